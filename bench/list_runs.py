"""What ListRuns costs on a thread of many runs with a large state: a page should cost the same however long the thread.

Threads of 1, 100 and 1,000 ended runs (``--runs``), each run's RunFinished
carrying a ``--state-kib`` state (256 KiB, incompressible: TOAST and page
caches get no help), are written through the server's own run store
(:func:`server._records.open_run_store`, so each record keeps its outcome as
a server's does). Then a server (in this process, on the same saver) answers
``ListRuns`` over gRPC from a client on 127.0.0.1. Each figure is the median
wall time of ``--reps`` calls, spread over ``--rounds`` rounds that take
every figure in turn (a slow moment of a shared machine lands on all), in ms:

* ``ListRuns(limit=20)``: a page, as the inspector and a chat server ask;
* ``... mid-thread``: the page after the thread's middle run (``before``: how a
  client pages to the end; a thread of one run gives an empty page);
* ``... include_values``: the first page with each run's final state;
* ``store, every run whole``: reading every run of the thread with its final
  state, as the listing did before issue 28 (one ``alist(full=True)``).

Rows: SQLite (a file in a temporary directory) and PostgreSQL (a fresh schema
on ``GRAPHWIRE_BENCH_PG_DSN``, default the local server; skipped when it
cannot be reached). Prints figures; asserts nothing.

    python bench/list_runs.py
    python bench/list_runs.py --runs 1 100 1000 --reps 30 --state-kib 256
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
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
from engine.checkpoint._runs import RunRecord  # noqa: E402
from server._reads import thread_key  # noqa: E402
from server._records import open_run_store  # noqa: E402
from server.app import build_server  # noqa: E402
from server.config import ServerConfig  # noqa: E402

DSN = os.environ.get("GRAPHWIRE_BENCH_PG_DSN") or os.environ.get("GRAPHWIRE_TEST_PG_DSN", "postgresql://root@127.0.0.1:5432/test")
GRAPH = "chain3"
HEAD = ["ListRuns(limit=20)", "... mid-thread", "... include_values", "store, every run whole"]


def _finished(run_id: str, seq: int, state_kib: int) -> bytes:
    """A RunFinished whose state is ``state_kib`` KiB of JSON that does not compress."""
    text = base64.b64encode(os.urandom(state_kib * 768)).decode()
    values = f'{{"log": ["{text}"]}}'
    return pb.RunEvent(seq=seq, run_id=run_id, run_finished=pb.RunFinished(
        reason=pb.FINISH_REASON_END, checkpoint=pb.CheckpointRef(checkpoint_id=uuid.uuid4().hex), values_json=values,
    )).SerializeToString()  # fmt: skip


async def _fill(store: Any, thread: str, runs: int, state_kib: int) -> list[str]:
    """Write ``runs`` ended runs on ``thread``; their ids, oldest first."""
    t0 = datetime.now(timezone.utc) - timedelta(days=1)
    ids = []
    for i in range(runs):
        run_id = str(uuid.uuid4())
        at = t0 + timedelta(seconds=i)
        await store.astart(RunRecord(run_id, thread_key(GRAPH, thread), GRAPH, thread, "Invoke", "RUNNING", "bench", at,
                                     request_id=f"req-{i}", fingerprint=b"f" * 32, request=b"r" * 200, keeps_events=True))  # fmt: skip
        await store.aupdate(run_id, 1, status="SUCCESS", ended_at=at + timedelta(milliseconds=500), last_seq=9,
                            finished=_finished(run_id, 9, state_kib), checkpoint_id="c")  # fmt: skip
        ids.append(run_id)
    return ids


async def _times(reps: int, call: Callable[[], Awaitable[Any]]) -> list[float]:
    """Wall times (s) of ``reps`` calls, after a call not counted (its thread's pages warm)."""
    await call()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        await call()
        times.append(time.perf_counter() - t0)
    return times


async def _rows(saver: Any, args: argparse.Namespace) -> list[tuple[int, list[float]]]:
    store = open_run_store(saver)
    threads = {n: f"bench-{n}-{uuid.uuid4().hex[:6]}" for n in args.runs}
    middle = {n: (await _fill(store, thread, n, args.state_kib))[n // 2] for n, thread in threads.items()}
    srv = await build_server(ServerConfig(address="127.0.0.1:0", graphs={GRAPH: "tests.graphs:chain3"}), checkpointer=saver)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}", options=[("grpc.max_receive_message_length", -1)]) as ch:
            stub = pb_grpc.GraphServiceStub(ch)

            def listing(thread: str, values: bool = False, before: str | None = None) -> Awaitable[Any]:
                request = pb.ListRunsRequest(graph=GRAPH, thread_id=thread, limit=20, include_values=values, before=before)
                return stub.ListRuns(request, timeout=600)

            calls = {
                n: [
                    (args.reps, lambda t=thread: listing(t)),
                    (args.reps, lambda t=thread, n=n: listing(t, before=middle[n])),
                    (max(1, args.reps // 4), lambda t=thread: listing(t, values=True)),
                    (max(1, args.reps // 10) if n > 100 else args.reps, lambda t=thread: store.alist(thread_key(GRAPH, t), full=True)),
                ]
                for n, thread in threads.items()
            }
            # Rounds, each taking its share of every figure in turn: a slow moment of a shared machine
            # lands on every figure, not on one thread's.
            samples: dict[tuple[int, int], list[float]] = {}
            for _ in range(args.rounds):
                for n, figures in calls.items():
                    for i, (reps, call) in enumerate(figures):
                        samples.setdefault((n, i), []).extend(await _times(max(1, reps // args.rounds), call))
    finally:
        await srv.stop(grace=1)
    return [(n, [statistics.median(samples[(n, i)]) * 1e3 for i in range(len(HEAD))]) for n in threads]


def _print(name: str, rows: list[tuple[int, list[float]]]) -> None:
    for n, figures in rows:
        print(f"{name:<11}{n:>7}" + "".join(f"{v:>{len(h) + 3}.2f}" for h, v in zip(HEAD, figures)))


async def main(args: argparse.Namespace) -> None:
    os.environ.setdefault("GRAPHWIRE_TEST_GATES", tempfile.gettempdir())  # tests.graphs reads it; chain3 waits for nothing
    print(f"{'store':<11}{'runs':>7}" + "".join(f"{h:>{len(h) + 3}}" for h in HEAD) + f"   (ms, median; state {args.state_kib} KiB)")
    with tempfile.TemporaryDirectory() as tmp:
        saver = SqliteSaver(str(Path(tmp) / "runs.db"))
        _print("SQLite", await _rows(saver, args))
    try:
        import psycopg

        with psycopg.connect(DSN, autocommit=True, connect_timeout=5):
            pass
    except Exception as exc:  # noqa: BLE001 - no PostgreSQL here: its rows are left out
        print(f"{'PostgreSQL':<11} skipped: {exc}")
        return
    from engine.checkpoint.postgres import PostgresSaver

    schema = f"gw_bench_list_{uuid.uuid4().hex[:8]}"
    try:
        _print("PostgreSQL", await _rows(PostgresSaver.from_dsn(DSN, schema=schema), args))
    finally:
        with psycopg.connect(DSN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, nargs="+", default=[1, 100, 1000], help="runs of each thread measured")
    p.add_argument("--reps", type=int, default=60, help="timed calls per figure (a quarter with values, a tenth for a whole read past 100 runs)")
    p.add_argument("--rounds", type=int, default=5, help="rounds the calls are spread over, every figure in each")
    p.add_argument("--state-kib", type=int, default=256, help="each run's final state, KiB")
    asyncio.run(main(p.parse_args()))
