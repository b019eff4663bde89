"""What the run records cost the server: each call of the run store a run makes, in CPU per call.

A server writes a record for every run (``astart`` as it takes its thread,
``aupdate`` as it ends); a durable run (request_id, CONTINUE, background)
also stores its events, the replica's event writer storing those of every
run at once (``aadd_event_batches``), and ends with ``afinish`` (its last
events and its record's end in one write). Rows: SQLite (a file in a
temporary directory) and PostgreSQL (a fresh schema on
``GRAPHWIRE_BENCH_PG_DSN``, default the local server; skipped when it cannot
be reached). Each figure is this process's CPU (the event loop's thread and
the saver's worker threads) per call, the mean of ``--reps`` calls after a
warm-up: what the server spends, not what the database does. Prints figures;
asserts nothing.

    python bench/run_store.py
    python bench/run_store.py --reps 2000 --runs 32
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

_ROOT = str(Path(__file__).resolve().parent.parent)
if not any(Path(p or ".").resolve() == Path(_ROOT) for p in sys.path):
    _n_env = len([p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    sys.path.insert(min(1 + _n_env, len(sys.path)), _ROOT)  # after PYTHONPATH: an engine named there is the one measured

from engine.checkpoint import SqliteSaver  # noqa: E402
from engine.checkpoint._runs import RunRecord  # noqa: E402
from server._records import open_run_store  # noqa: E402

DSN = os.environ.get("GRAPHWIRE_BENCH_PG_DSN") or os.environ.get("GRAPHWIRE_TEST_PG_DSN", "postgresql://root@127.0.0.1:5432/test")
EVENT = b"e" * 120  # a RunEvent of this graph's size, about


def _record() -> RunRecord:
    return RunRecord(str(uuid.uuid4()), f"g:{uuid.uuid4().hex}", "g", "t", "Invoke", "RUNNING", "bench", datetime.now(timezone.utc),
                     keeps_events=True, request=b"r" * 60, fingerprint=b"f" * 32)  # fmt: skip


async def _cpu_per_call(reps: int, make: Callable[[int], Awaitable[Any]]) -> float:
    for i in range(min(50, reps)):
        await make(i)
    t0 = time.process_time()
    for i in range(reps):
        await make(i)
    return (time.process_time() - t0) / reps * 1e6


async def _row(saver: Any, reps: int, runs: int, events: int) -> list[float]:
    store = open_run_store(saver)
    batch_runs = [_record() for _ in range(runs)]
    for r in batch_runs:
        await store.astart(r)
    seq = [0]

    async def add(_: int) -> None:
        first = seq[0]
        seq[0] += events
        await store.aadd_event_batches([(r, [(first + k + 1, EVENT) for k in range(events)]) for r in batch_runs])

    ended = [_record() for _ in range(2 * (reps + 50))]
    for r in ended:
        await store.astart(r)
    finished = b"f" * 300

    async def finish(i: int) -> None:
        r = ended[i]
        await store.afinish(r.run_id, 1, r, [(k, EVENT) for k in (1, 2, 3)], status="SUCCESS", ended_at=datetime.now(timezone.utc),
                            last_seq=4, finished=finished, checkpoint_id="c", started=b"s" * 80)  # fmt: skip

    async def update(i: int) -> None:
        r = ended[reps + 50 + i]
        await store.aupdate(r.run_id, 1, status="SUCCESS", ended_at=datetime.now(timezone.utc), last_seq=2, finished=finished, checkpoint_id="c")

    async def start(_: int) -> None:
        await store.astart(_record())

    return [await _cpu_per_call(reps, start), await _cpu_per_call(reps, update), await _cpu_per_call(reps, finish),
            await _cpu_per_call(max(1, reps // 4), add)]  # fmt: skip


async def main(args: argparse.Namespace) -> None:
    head = ["astart", "aupdate", "afinish (3 events)", f"aadd_event_batches ({args.runs} runs x {args.events})"]
    print(f"{'store':<11}" + "".join(f"{h:>{max(12, len(h) + 2)}}" for h in head) + "   (µs of CPU per call)")
    with tempfile.TemporaryDirectory() as tmp:
        saver = SqliteSaver(str(Path(tmp) / "runs.db"))
        try:
            got = await _row(saver, args.reps, args.runs, args.events)
        finally:
            saver.close()
        print(f"{'SQLite':<11}" + "".join(f"{v:>{max(12, len(h) + 2)}.0f}" for h, v in zip(head, got)))
    try:
        import psycopg

        with psycopg.connect(DSN, autocommit=True, connect_timeout=5):
            pass
    except Exception as exc:  # noqa: BLE001 - no PostgreSQL here: its row is left out
        print(f"{'PostgreSQL':<11} skipped: {exc}")
        return
    from engine.checkpoint.postgres import PostgresSaver

    schema = f"gw_bench_runs_{uuid.uuid4().hex[:8]}"
    saver = PostgresSaver.from_dsn(DSN, schema=schema)
    try:
        got = await _row(saver, args.reps, args.runs, args.events)
    finally:
        saver.close()
        with psycopg.connect(DSN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    print(f"{'PostgreSQL':<11}" + "".join(f"{v:>{max(12, len(h) + 2)}.0f}" for h, v in zip(head, got)))


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reps", type=int, default=600, help="timed calls per figure (the batch: a quarter of them)")
    p.add_argument("--runs", type=int, default=6, help="runs in one event batch (a write of the event writer)")
    p.add_argument("--events", type=int, default=9, help="events of each run in the batch")
    asyncio.run(main(p.parse_args()))
