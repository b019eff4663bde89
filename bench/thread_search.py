"""What SearchThreads costs over many threads: a page should cost the same at the start of the listing and deep in it.

``--threads`` thread records (100,000 on PostgreSQL, 10,000 on SQLite by
default) are written straight into the checkpointer's ``threads`` table (in
bulk: the run path writes one per thread, which is not what is measured), each
with metadata ``{"org": "o<i % 10>", "user": "u<i % 1000>", "plan": ...}``.
Then a server (in this process, on the same saver) answers ``SearchThreads``
over gRPC from a client on 127.0.0.1, newest first, ``limit=20``. Each figure
is the median wall time of ``--reps`` calls, spread over ``--rounds`` rounds
that take every figure in turn, in ms:

* ``org filter, page 1``: metadata ``{"org": "o3"}`` (a tenth of the threads), the first page;
* ``org filter, deep``: the same filter, the page after the ``--deep``-th match (a page token);
* ``user filter, page 1``: ``{"user": "u42"}`` (a thousandth), the first page;
* ``no filter, deep``: every thread, the page after the ``--deep``-th;
* ``CountThreads org``: the count of the org filter's threads.

Rows: SQLite (a file in a temporary directory) and PostgreSQL (a fresh schema
on ``GRAPHWIRE_BENCH_PG_DSN``, default the local server; skipped when it
cannot be reached). Prints figures; asserts nothing.

    python bench/thread_search.py
    python bench/thread_search.py --pg-threads 100000 --sqlite-threads 10000 --reps 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

_ROOT = str(Path(__file__).resolve().parent.parent)
if not any(Path(p or ".").resolve() == Path(_ROOT) for p in sys.path):
    _n_env = len([p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    sys.path.insert(min(1 + _n_env, len(sys.path)), _ROOT)  # after PYTHONPATH: an engine named there is the one measured

import grpc  # noqa: E402
from graphwire_proto.v1 import graphwire_pb2 as pb  # noqa: E402
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc  # noqa: E402

from engine.checkpoint import SqliteSaver  # noqa: E402
from server.app import build_server  # noqa: E402
from server.config import ServerConfig  # noqa: E402

DSN = os.environ.get("GRAPHWIRE_BENCH_PG_DSN") or os.environ.get("GRAPHWIRE_TEST_PG_DSN", "postgresql://root@127.0.0.1:5432/test")
GRAPH = "chain3"
HEAD = ["org filter, page 1", "org filter, deep", "user filter, page 1", "no filter, deep", "CountThreads org"]
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _rows(n: int) -> list[tuple[Any, ...]]:
    """(thread_id, graph, caller_thread, created_at, updated_at, metadata JSON) of ``n`` threads, a second apart."""
    out = []
    for i in range(n):
        at = T0 + timedelta(seconds=i)
        meta = json.dumps({"org": f"o{i % 10}", "user": f"u{i % 1000}", "plan": "pro" if i % 3 else "free"})
        out.append((f"{GRAPH}:t{i:07}", GRAPH, f"t{i:07}", at, at, meta))
    return out


def _fill_sqlite(path: str, n: int) -> None:
    from engine.checkpoint.sqlite._runs import text_of

    with sqlite3.connect(path) as conn:
        conn.executemany(
            "INSERT INTO threads (thread_id, graph, caller_thread, created_at, updated_at, metadata) VALUES (?, ?, ?, ?, ?, ?)",
            [(k, g, c, text_of(a), text_of(b), m) for k, g, c, a, b, m in _rows(n)],
        )
        conn.execute("ANALYZE")


def _fill_pg(schema: str, n: int) -> None:
    import psycopg

    with psycopg.connect(DSN, autocommit=True) as conn:
        with conn.cursor().copy(
            f'COPY "{schema}".threads (thread_id, graph, caller_thread, created_at, updated_at, metadata) FROM STDIN'
        ) as copy:
            for row in _rows(n):
                copy.write_row(row)
        conn.execute(f'ANALYZE "{schema}".threads')


async def _times(reps: int, call: Callable[[], Awaitable[Any]]) -> list[float]:
    """Wall times (s) of ``reps`` calls, after a call not counted."""
    await call()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        await call()
        times.append(time.perf_counter() - t0)
    return times


async def _figures(saver: Any, args: argparse.Namespace) -> list[float]:
    srv = await build_server(
        ServerConfig(address="127.0.0.1:0", graphs={GRAPH: "tests.graphs:chain3"}, thread_sweep_seconds=3600.0), checkpointer=saver
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}", options=[("grpc.max_receive_message_length", -1)]) as ch:
            stub = pb_grpc.GraphServiceStub(ch)
            org = pb.ThreadFilter(graph=GRAPH, metadata_json='{"org": "o3"}')
            user = pb.ThreadFilter(graph=GRAPH, metadata_json='{"user": "u42"}')
            every = pb.ThreadFilter(graph=GRAPH)

            async def token_after(where: pb.ThreadFilter, n: int) -> str:
                """The page token after the ``n``-th thread ``where`` finds (read in pages of 1000)."""
                token, seen = "", 0
                while seen < n:
                    page = await stub.SearchThreads(pb.SearchThreadsRequest(filter=where, limit=min(1000, n - seen), page_token=token))
                    seen, token = seen + len(page.threads), page.next_page_token
                    if not token:
                        break
                return token

            org_deep, every_deep = await token_after(org, args.deep), await token_after(every, args.deep)

            def search(where: pb.ThreadFilter, token: str = "") -> Awaitable[Any]:
                return stub.SearchThreads(pb.SearchThreadsRequest(filter=where, limit=20, page_token=token), timeout=600)

            calls = [
                lambda: search(org), lambda: search(org, org_deep), lambda: search(user), lambda: search(every, every_deep),
                lambda: stub.CountThreads(pb.CountThreadsRequest(filter=org), timeout=600),
            ]  # fmt: skip
            samples: dict[int, list[float]] = {}
            for _ in range(args.rounds):
                for i, call in enumerate(calls):
                    samples.setdefault(i, []).extend(await _times(max(1, args.reps // args.rounds), call))
    finally:
        await srv.stop(grace=1)
    return [statistics.median(samples[i]) * 1e3 for i in range(len(HEAD))]


def _print(name: str, n: int, figures: list[float]) -> None:
    print(f"{name:<11}{n:>9}" + "".join(f"{v:>{len(h) + 3}.2f}" for h, v in zip(HEAD, figures)))


async def main(args: argparse.Namespace) -> None:
    os.environ.setdefault("GRAPHWIRE_TEST_GATES", tempfile.gettempdir())  # tests.graphs reads it; chain3 waits for nothing
    print(f"{'store':<11}{'threads':>9}" + "".join(f"{h:>{len(h) + 3}}" for h in HEAD) + f"   (ms, median; deep: after {args.deep})")
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "threads.db")
        saver = SqliteSaver(path)
        _fill_sqlite(path, args.sqlite_threads)
        _print("SQLite", args.sqlite_threads, await _figures(saver, args))
    try:
        import psycopg

        with psycopg.connect(DSN, autocommit=True, connect_timeout=5):
            pass
    except Exception as exc:  # noqa: BLE001 - no PostgreSQL here: its row is left out
        print(f"{'PostgreSQL':<11} skipped: {exc}")
        return
    from engine.checkpoint.postgres import PostgresSaver

    schema = f"gw_bench_threads_{uuid.uuid4().hex[:8]}"
    try:
        saver = PostgresSaver.from_dsn(DSN, schema=schema)
        _fill_pg(schema, args.pg_threads)
        _print("PostgreSQL", args.pg_threads, await _figures(saver, args))
    finally:
        with psycopg.connect(DSN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pg-threads", type=int, default=100_000, help="threads on PostgreSQL")
    p.add_argument("--sqlite-threads", type=int, default=10_000, help="threads on SQLite")
    p.add_argument("--deep", type=int, default=5_000, help="where the deep page starts: after this many matches")
    p.add_argument("--reps", type=int, default=50, help="timed calls per figure")
    p.add_argument("--rounds", type=int, default=5, help="rounds the calls are spread over, every figure in each")
    asyncio.run(main(p.parse_args()))
