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
server's CPU per run (its process tree, from /proc) for each block of turns::

    python bench/long_thread.py                       # 4 callers, 200 turns in blocks of 25 (~3 minutes)
    python bench/long_thread.py --turns 100 --block 20

A turn is four messages (the user's, the model's tool call, the tool's
answer, the model's reply), so turn T starts from a thread of 4T messages.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._peers_callers import chat_input, check  # noqa: E402
from bench._peers_proc import loadavg, tree_cpu  # noqa: E402
from bench._peers_systems import graphwire_start  # noqa: E402


async def _blocks(target: str, pid: int, callers: int, turns: int, block: int) -> None:
    from graphwire import AsyncClient, FinishReason

    async with AsyncClient(target) as client:
        threads = [f"long-{k}-{time.time_ns()}" for k in range(callers)]

        async def turn(thread: str, i: int) -> None:
            r = await client.invoke("chat", thread, chat_input(i), timeout=120)
            if r.reason is not FinishReason.END:
                raise RuntimeError(f"run ended {r.reason}: {r}")
            check("chat", i, r.values)

        await asyncio.gather(*(turn(f"warm-{t}", 0) for t in threads))  # the server's first runs import and compile
        print(f"{'turns':>11} {'messages at start':>18} {'srv CPU ms/run':>15} {'wall ms/turn':>13}  load")
        for first in range(0, turns, block):
            last = min(first + block, turns)
            cpu, wall = tree_cpu(pid), time.perf_counter()
            for i in range(first, last):
                await asyncio.gather(*(turn(t, i) for t in threads))
            runs = (last - first) * callers
            cpu_ms = (tree_cpu(pid) - cpu) * 1e3 / runs
            wall_ms = (time.perf_counter() - wall) * 1e3 / (last - first)
            print(f"{first:>5}-{last - 1:<5} {4 * first:>8}-{4 * (last - 1):<9} {cpu_ms:>15.2f} {wall_ms:>13.1f}  {loadavg()}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--callers", type=int, default=4, help="threads, one caller each (default 4)")
    p.add_argument("--turns", type=int, default=200, help="turns per thread (default 200)")
    p.add_argument("--block", type=int, default=25, help="turns per printed row (default 25)")
    args = p.parse_args()
    print(f"graphwire gRPC SQLite, bench/peers_app's chat: {args.callers} caller(s), {args.turns} turns each; "
          f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {loadavg()}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="graphwire-long-") as tmp:
        served = graphwire_start("graphwire gRPC SQLite", "")(Path(tmp))
        try:
            asyncio.run(_blocks(served.target, served.popen.pid, args.callers, args.turns, args.block))
        finally:
            served.stop()


if __name__ == "__main__":
    main()
