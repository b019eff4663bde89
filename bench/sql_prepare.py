"""The SQL savers' write preparation per put: the direct path (engine/checkpoint/_sql_write.py)
beside the shared planner and the serializer it stands in for.

A graph runs once on the SQLite saver and its puts are kept; then, on savers
in memory (``:memory:``) with the serializer and size limit a server sets
(``--plain``: neither), each put is replayed on new threads through what a
put does before and after its SQL: ``Writes._prepare`` (plan, meta, metadata,
time) and the delta cache's ``assume`` and ``commit``. Both ways take turns,
five times each; the median of each, in µs of process CPU time per put. The
planner's way is the direct path's fallback, forced. A figure, not a test:
nothing here asserts a timing.

    python bench/sql_prepare.py                          # chain3, agent20
    python bench/sql_prepare.py --rows agent20 --plain
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from bench import engine_overhead as eo  # noqa: E402
from bench.grpc_throughput import chain3  # noqa: E402
from engine.checkpoint import _sql_write  # noqa: E402
from engine.checkpoint.sqlite import SqliteSaver  # noqa: E402
from engine.checkpoint.sqlite import _writes  # noqa: E402

Put = tuple[Any, Any, Any, Any]


def captured_puts(row: str) -> list[Put]:
    """The puts of one run of ``row`` (chain3, or a row of engine_overhead.py), as ``_prepare`` got them."""
    puts: list[Put] = []
    real = _writes.Writes._prepare

    def keep(self: Any, *put: Any) -> Any:
        puts.append(put)
        return real(self, *put)

    _writes.Writes._prepare = keep  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            saver = SqliteSaver(Path(tmp) / "capture.db")
            if row == "chain3":
                graph, given = chain3(), {"n": 0}
            else:
                ours, _ = eo.load_ours()
                graph, given = eo.ROWS[row].build(ours), eo.ROWS[row].make_input()
            asyncio.run(graph.compile(checkpointer=saver).ainvoke(given, {"configurable": {"thread_id": "t"}}))
            saver.close()
    finally:
        _writes.Writes._prepare = real  # type: ignore[method-assign]
    return puts


def replay(puts: list[Put], threads: int, *, direct: bool, plain: bool) -> float:
    """µs of process CPU per put, ``puts`` replayed on ``threads`` new threads."""
    real = (_sql_write._plan_direct, _sql_write._meta_direct)
    if not direct:
        _sql_write._plan_direct = lambda *args: None  # type: ignore[assignment]
        _sql_write._meta_direct = lambda *args: None  # type: ignore[assignment]
    try:
        saver = SqliteSaver(":memory:", max_state_bytes=None if plain else 8 << 20)
        saver.serde.json_safe = not plain
        writes, deltas = saver._writes, saver._writes._deltas
        runs = [
            [({**config, "configurable": {**config["configurable"], "thread_id": f"t{i}"}}, *rest) for config, *rest in puts]
            for i in range(threads)
        ]
        start = time.process_time()
        for run in runs:
            for put in run:
                thread_id, ns, plan, _ = writes._prepare(*put)
                deltas.assume(thread_id, ns, plan)
                deltas.commit(thread_id, ns, plan, [r.channel for r in plan.rows])
        spent = time.process_time() - start
        saver.close()
    finally:
        _sql_write._plan_direct, _sql_write._meta_direct = real
    return spent / (threads * len(puts)) * 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", default="chain3,agent20", help="comma list: chain3 and engine_overhead.py's rows")
    p.add_argument("--plain", action="store_true", help="a serializer without json_safe, no size limit (a library's saver)")
    p.add_argument("--puts", type=int, default=15000, help="puts replayed per measure")
    args = p.parse_args()
    setting = "plain serializer, no size limit" if args.plain else "json_safe, max_state_bytes 8 MiB (as graphwire serve)"
    print(f"µs of CPU per put (prepare, assume, commit), median of 5 each way, taking turns; {setting}")
    for row in args.rows.split(","):
        puts = captured_puts(row)
        threads = max(20, args.puts // len(puts))
        found: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(5):
            for direct in (False, True):
                found[direct].append(replay(puts, threads, direct=direct, plain=args.plain))
        before, after = statistics.median(found[False]), statistics.median(found[True])
        print(f"{row:14s} {len(puts):3d} puts a run  planner {before:6.1f}  direct {after:6.1f}  direct/planner {after / before:.2f}")


if __name__ == "__main__":
    main()
