"""What a node cache costs: a lookup and a write per cache kind, and an invoke whose node is a hit.

Rows: ``InMemoryCache``, ``SqliteCache`` (a file in a temporary directory,
the saver's file as the server has it) and ``PostgresCache`` (a fresh schema
on ``GRAPHWIRE_BENCH_PG_DSN``, default the local server; skipped when it
cannot be reached). Columns, each the median of ``--reps`` timed calls after
a warm-up:

* ``aget hit`` / ``aset``: one key, a node's typical writes (two channels);
* ``invoke, no policy``: a one-node graph on the in-memory saver, its node
  returning at once (what a step costs without a cache);
* ``invoke, hit``: the same graph with ``CachePolicy()`` on the node and the
  cache compiled in, every call a hit (a new thread each time, one input);
* ``invoke, miss``: the same with a new input each call (a lookup and a write).

The invoke columns differ from the first by what the cache adds to a step.
Prints figures; asserts nothing (exit 1 only when a row failed).

    python bench/node_cache.py
    python bench/node_cache.py --reps 500
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

_ROOT = str(Path(__file__).resolve().parent.parent)
if not any(Path(p or ".").resolve() == Path(_ROOT) for p in sys.path):
    _n_env = len([p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    sys.path.insert(min(1 + _n_env, len(sys.path)), _ROOT)

from engine.cache.memory import InMemoryCache  # noqa: E402
from engine.checkpoint import InMemorySaver  # noqa: E402
from engine.graph import START, StateGraph  # noqa: E402
from engine.types import CachePolicy  # noqa: E402

DSN = os.environ.get("GRAPHWIRE_BENCH_PG_DSN") or os.environ.get("GRAPHWIRE_TEST_PG_DSN", "postgresql://root@127.0.0.1:5432/test")
NS = ("__pregel_ns_writes", "bench.node", "node")
WRITES = [("answer", "sunny in Oslo, 21 degrees"), ("log", ["looked up Oslo"])]


class S(TypedDict, total=False):
    city: str
    answer: str
    log: list


def _node(state: S) -> dict[str, Any]:
    return {"answer": "sunny", "log": ["looked up"]}


def _median_us(fn: Callable[[int], Any], reps: int) -> float:
    for i in range(min(20, reps)):
        fn(-1 - i)
    times = []
    for i in range(reps):
        t0 = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def _graph(cache: Any, policy: bool) -> Any:
    b = StateGraph(S).add_node("node", _node, cache_policy=CachePolicy() if policy else None).add_edge(START, "node")
    return b.compile(checkpointer=InMemorySaver(), cache=cache)


async def _amedian_us(fn: Callable[[int], Any], reps: int) -> float:
    for i in range(min(20, reps)):
        await fn(-1 - i)
    times = []
    for i in range(reps):
        t0 = time.perf_counter()
        await fn(i)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


async def _lookups(cache: Any, reps: int) -> tuple[float, float]:
    """One loop for both (``asyncio.run`` closes the loop's pool with it)."""
    await cache.aset({(NS, "hit"): (WRITES, None)})
    get = await _amedian_us(lambda i: cache.aget([(NS, "hit")]), reps)
    put = await _amedian_us(lambda i: cache.aset({(NS, f"k{i}"): (WRITES, 600)}), reps)
    return get, put


def row(cache: Any, reps: int) -> list[float]:
    get, put = asyncio.run(_lookups(cache, reps))
    plain, cached = _graph(None, False), _graph(cache, True)

    def call(g: Any, city: str) -> None:
        out = g.invoke({"city": city}, {"configurable": {"thread_id": uuid.uuid4().hex}})
        assert out["answer"] == "sunny", out

    no_policy = _median_us(lambda i: call(plain, "Oslo"), reps)
    hit = _median_us(lambda i: call(cached, "Oslo"), reps)
    miss = _median_us(lambda i: call(cached, f"city {i} {uuid.uuid4().hex}"), reps)
    return [get, put, no_policy, hit, miss]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=200)
    args = p.parse_args(argv)
    failed = False
    heads = ["aget hit", "aset", "invoke, no policy", "invoke, hit", "invoke, miss"]
    print(f"{'cache':<16}" + "".join(f"{h:>20}" for h in heads) + "   (µs, median)")
    with tempfile.TemporaryDirectory() as tmp:
        makers: list[tuple[str, Callable[[], Any]]] = [("InMemoryCache", InMemoryCache)]

        def sqlite() -> Any:
            from engine.cache.sqlite import SqliteCache

            return SqliteCache(path=os.path.join(tmp, "gw.db"))

        makers.append(("SqliteCache", sqlite))
        schema = f"gw_bench_{uuid.uuid4().hex[:12]}"

        def postgres() -> Any:
            from engine.cache.postgres import PostgresCache

            return PostgresCache.from_dsn(DSN, schema=schema, max_size=2)

        makers.append(("PostgresCache", postgres))
        for name, make in makers:
            try:
                cache = make()
            except Exception as exc:  # noqa: BLE001 - a database that is not there skips its row
                print(f"{name:<16}  skipped: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                continue
            try:
                figures = row(cache, args.reps)
                print(f"{name:<16}" + "".join(f"{f:>20.1f}" for f in figures))
            except Exception:  # noqa: BLE001 - a failed row is reported, the others still run
                failed = True
                print(f"{name:<16}  error:\n{traceback.format_exc()}")
            finally:
                cache.close()
        try:
            import psycopg
            from psycopg import sql

            with psycopg.connect(DSN, autocommit=True, connect_timeout=5) as conn:
                conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
        except Exception:  # noqa: BLE001 - nothing to drop without the server
            pass
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
