"""The server's CPU per run as a chat thread grows: what a run costs at turn 10 and at turn 200.

The peers bench (bench/peers.py) runs 20 turns a thread, where a run's cost
is mostly its own steps. A chat server's threads grow for longer, and some of
a run's work grows with them: the run's start reads the thread's newest
version (every message of the conversation decoded, LangChain's validation
of each included), the model node is handed the whole conversation, and the
run's end sends the state's values back (every message as JSON). This
script serves bench/peers_app's ``chat`` graph with ``graphwire serve`` on a
SQLite file, has ``--callers`` callers each take a thread of its own through
``--turns`` turns in step (one turn each, then the next), and prints the
server's CPU per run (its process tree, from /proc) and the size of its
database (every thread's versions, run records and events) after each block
of turns::

    python bench/long_thread.py                       # 4 callers, 200 turns in blocks of 25 (~3 minutes)
    python bench/long_thread.py --turns 100 --block 20
    python bench/long_thread.py --in-process          # no server: the engine and its SQLite saver alone
    python bench/long_thread.py --stream              # callers read every event (stored for JoinRun)

``--in-process`` takes one thread through the turns with the engine in this
process (bench/peers_app's graph under engine/swap.py, graphwire's
AsyncSqliteSaver on a file) and prints, per block, the process's CPU per
run and the CPU of one read of the thread's newest version (``aget_tuple``,
best of 5 x 10), the read every run starts with.

A turn is four messages (the user's, the model's tool call, the tool's
answer, the model's reply), so turn T starts from a thread of 4T messages.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._peers_callers import chat_input, check  # noqa: E402
from bench._peers_proc import loadavg, tree_cpu  # noqa: E402
from bench._peers_systems import graphwire_start  # noqa: E402


def _db_mb(path: Path) -> float:
    """The server's SQLite database's size (its pages, those still in the WAL included), in MB."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        pages, size = conn.execute("PRAGMA page_count").fetchone()[0], conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()
    return float(pages * size) / 1e6


async def _blocks(target: str, pid: int, callers: int, turns: int, block: int, db: Path, stream: bool) -> None:
    from graphwire import AsyncClient, FinishReason

    async with AsyncClient(target) as client:
        threads = [f"long-{k}-{time.time_ns()}" for k in range(callers)]

        async def turn(thread: str, i: int) -> None:
            if stream:  # every event read, as a chat UI streaming each turn does
                run = client.stream("chat", thread, chat_input(i), timeout=120)
                async for _ in run:
                    pass
                r = await run.result()
            else:
                r = await client.invoke("chat", thread, chat_input(i), timeout=120)
            if r.reason is not FinishReason.END:
                raise RuntimeError(f"run ended {r.reason}: {r}")
            check("chat", i, r.values)

        await asyncio.gather(*(turn(f"warm-{t}", 0) for t in threads))  # the server's first runs import and compile
        print(f"{'turns':>11} {'messages at start':>18} {'srv CPU ms/run':>15} {'wall ms/turn':>13} {'db MB':>7}  load")
        for first in range(0, turns, block):
            last = min(first + block, turns)
            cpu, wall = tree_cpu(pid), time.perf_counter()
            for i in range(first, last):
                await asyncio.gather(*(turn(t, i) for t in threads))
            runs = (last - first) * callers
            cpu_ms = (tree_cpu(pid) - cpu) * 1e3 / runs
            wall_ms = (time.perf_counter() - wall) * 1e3 / (last - first)
            print(f"{first:>5}-{last - 1:<5} {4 * first:>8}-{4 * (last - 1):<9} {cpu_ms:>15.2f} {wall_ms:>13.1f} {_db_mb(db):>7.2f}  {loadavg()}",
                  flush=True)  # fmt: skip


async def _in_process(turns: int, block: int) -> None:
    from engine.swap import install

    install()  # bench/peers_app is written for LangGraph: its imports are served by the engine
    sys.path.insert(0, str(Path(__file__).resolve().parent / "peers_app"))
    import graphs  # type: ignore[import-not-found]
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver  # type: ignore[import-not-found]

    with tempfile.TemporaryDirectory(prefix="graphwire-long-") as tmp:
        async with AsyncSqliteSaver.from_conn_string(os.path.join(tmp, "chat.db")) as saver:
            graph = graphs._chat.compile(checkpointer=saver)
            config: Any = {"configurable": {"thread_id": "long"}}
            await graph.ainvoke(chat_input(0), {"configurable": {"thread_id": "warm"}})
            print(f"{'turns':>11} {'messages at start':>18} {'CPU ms/run':>11} {'read ms':>8}")
            for first in range(0, turns, block):
                last = min(first + block, turns)
                cpu = time.process_time()
                for i in range(first, last):
                    reply = (await graph.ainvoke(chat_input(i), config))["messages"][-1].content
                    if reply != f"Done: sunny in City{i}.":
                        raise RuntimeError(f"turn {i}: the last message is {reply!r}")
                run_ms = (time.process_time() - cpu) * 1e3 / (last - first)
                read_ms = 1e9
                for _ in range(5):
                    cpu = time.process_time()
                    for _ in range(10):
                        await saver.aget_tuple(config)
                    read_ms = min(read_ms, (time.process_time() - cpu) * 1e3 / 10)
                print(f"{first:>5}-{last - 1:<5} {4 * first:>8}-{4 * (last - 1):<9} {run_ms:>11.2f} {read_ms:>8.2f}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--callers", type=int, default=4, help="threads, one caller each (default 4)")
    p.add_argument("--turns", type=int, default=200, help="turns per thread (default 200)")
    p.add_argument("--block", type=int, default=25, help="turns per printed row (default 25)")
    p.add_argument("--in-process", action="store_true", help="the engine in this process, no server (one thread)")
    p.add_argument("--stream", action="store_true", help="callers stream every event of a run (kept for JoinRun), not just its end")
    args = p.parse_args()
    if args.in_process:
        print(f"the engine in process, graphwire's SQLite saver, bench/peers_app's chat: one thread, {args.turns} turns; "
              f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {loadavg()}")  # fmt: skip
        asyncio.run(_in_process(args.turns, args.block))
        return
    print(f"graphwire gRPC SQLite, bench/peers_app's chat: {args.callers} caller(s), {args.turns} turns each"
          f"{', every event streamed' if args.stream else ''}; "
          f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {loadavg()}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="graphwire-long-") as tmp:
        served = graphwire_start("graphwire gRPC SQLite", "")(Path(tmp))
        try:
            db = Path(tmp) / "graphwire-gRPC-SQLite.db"  # (graphwire_start's file for this name)
            asyncio.run(_blocks(served.target, served.popen.pid, args.callers, args.turns, args.block, db, args.stream))
        finally:
            served.stop()


if __name__ == "__main__":
    main()
