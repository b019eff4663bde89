"""graphwire beside its peers: the same graphs and callers against graphwire (gRPC and HTTP, SQLite and
PostgreSQL, 1 and N workers), ``langgraph dev``, Aegra and the bare gRPC echo floor.

Every server serves bench/peers_app/ (a langgraph.json project whose graphs
import ``langgraph``; bench/_peers_systems.py says how each is started).
Two workloads: ``chain3`` (START → a → b → c → END) and ``chat`` (a
tool-calling chat: agent → tools → agent, its history growing turn by turn).
A row is one system at 1, 8 or 32 callers, each caller an asyncio task of
this process on a conversation thread of its own doing ``--turns`` turns in
a row (bench/_peers_callers.py): graphwire's ``AsyncClient.invoke`` over
gRPC, the real ``langgraph-sdk``'s ``runs.wait`` over HTTP, one unary call on
the echo floor. The systems take turns round by round (each round in a
rotated order), so what else the machine does falls on all of them alike.

Printed per row, summed over the rounds: runs/s (turns / wall time of the
timed part), p50/p95 per turn, the server's CPU per run (user + system of
its process tree from /proc, read before and after its turns) and, apart,
its PostgreSQL backends' CPU per run (the backends connected to its own
database), and the 1-minute load average at the row's end (the highest of
the rounds). Then the ratios the issues set targets for.

``langgraph dev`` (langgraph-cli[inmem]) and Aegra (aegra-api with greenlet,
which it needs and does not declare) are installed once, each in a venv of
its own under ~/.cache/graphwire-bench/peers, with this venv's langgraph and
langchain-core versions; a system that cannot be installed or started is
skipped with a one-line reason. ``langgraph dev`` is started afresh for
every row (its CPU per run grows with the runs it has served); the others
once. PostgreSQL rows need the server at ``--pg`` (each system gets a
database of its own, dropped at the end).

Usage::

    python bench/peers.py                 # 3 rounds, 20 turns, 1/8/32 callers, both workloads
    python bench/peers.py --quick         # smoke run: 1 round, 3 turns, 1 and 8 callers
    python bench/peers.py --only "graphwire gRPC SQLite,langgraph dev" --callers 1,8
    python bench/peers.py --pg ''         # without PostgreSQL (and without Aegra)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parent.parent)
if not any(Path(p or ".").resolve() == Path(_ROOT) for p in sys.path):
    sys.path.insert(1, _ROOT)

from bench._peers_callers import Row, run_row  # noqa: E402
from bench._peers_proc import Served, loadavg  # noqa: E402
from bench._peers_systems import Spec, Systems  # noqa: E402

WORKLOADS = ("chain3", "chat")


def _ints(text: str) -> list[int]:
    return [int(n) for n in text.split(",") if n]


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run: 1 round, 3 turns, 1 and 8 callers")
    p.add_argument("--rounds", type=int, help="rounds of every system per row (default 3, quick 1)")
    p.add_argument("--turns", type=int, help="turns per caller per round (default 20, quick 3)")
    p.add_argument("--callers", type=_ints, help="caller counts (default 1,8,32; quick 1,8)")
    p.add_argument("--workloads", default=",".join(WORKLOADS), help="chain3, chat or both (default both)")
    p.add_argument("--workers", type=int, default=2, help="the workers of the 'graphwire gRPC PG xN' row (default 2)")
    p.add_argument("--only", default="", help="comma-separated system names (prefixes) to run, e.g. 'graphwire gRPC,langgraph dev'")
    p.add_argument("--pg", default=os.environ.get("GRAPHWIRE_BENCH_PG", "postgresql://root@127.0.0.1:5432/test"),
                   help="a PostgreSQL server to make the systems' databases on ('' for none; env GRAPHWIRE_BENCH_PG)")
    p.add_argument("--no-install", action="store_true", help="skip the peers not installed yet instead of installing them")
    args = p.parse_args(argv)
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.turns = args.turns or (3 if args.quick else 20)
    args.callers = args.callers or ([1, 8] if args.quick else [1, 8, 32])
    args.workloads = [w for w in args.workloads.split(",") if w]
    unknown = set(args.workloads) - set(WORKLOADS)
    if unknown:
        p.error(f"unknown workload(s): {', '.join(sorted(unknown))}")
    return args


def wanted(only: str) -> Callable[[str], bool]:
    """Whether a system is run: every one, or those whose names start with one of ``only``'s prefixes."""
    prefixes = [o.strip() for o in only.split(",") if o.strip()]
    return lambda name: not prefixes or any(name.startswith(p) for p in prefixes)


async def bench(args: argparse.Namespace, tmp: Path, systems: Systems) -> list[Row]:
    specs = [s for s in systems.specs if not s.skipped]
    started: dict[str, Served] = {}
    rows: list[Row] = []
    try:
        for spec in specs:
            if not spec.per_row:
                _start(spec, tmp, started)
        for workload in args.workloads:
            for callers in args.callers:
                here = {s.name: Row(s.name, workload, callers) for s in specs}
                for r in range(args.rounds):
                    order = specs[r % len(specs):] + specs[: r % len(specs)]
                    for spec in order:
                        if spec.skipped:
                            continue
                        served = started.get(spec.name) or _start(spec, tmp, started)
                        if served is None:
                            continue
                        try:
                            await run_row(spec, served, workload, callers, args.turns, args.pg, here[spec.name])
                        finally:
                            if spec.per_row:
                                code = started.pop(spec.name).stop()
                                if code not in (0, -15):
                                    print(f"{spec.name} exited with {code}", file=sys.stderr)
                print(f"  done: {workload}, {callers} callers (load {loadavg()})", file=sys.stderr, flush=True)
                rows += [here[s.name] for s in specs if here[s.name].runs]
    finally:
        for served in started.values():
            served.stop()
    return rows


def _start(spec: Spec, tmp: Path, started: dict[str, Served]) -> Served | None:
    """``spec`` started (kept in ``started``), or None: then it is skipped from here on, saying why."""
    assert spec.start is not None
    try:
        started[spec.name] = spec.start(tmp)
    except RuntimeError as exc:
        spec.skipped = f"did not start: {str(exc).splitlines()[0]}"
        print(f"{spec.name}: {exc}", file=sys.stderr)
        return None
    return started[spec.name]


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _by(rows: list[Row], workload: str, callers: int, system: str) -> Row | None:
    return next((r for r in rows if r.workload == workload and r.callers == callers and r.system == system), None)


def _ratio(a: Row | None, b: Row | None, what: str = "cpu") -> str:
    if a is None or b is None:
        return "-"
    x, y = (a.cpu_ms(), b.cpu_ms()) if what == "cpu" else (a.rate, b.rate)
    return f"{x / y:.2f}x" if x and y else "-"


def report(args: argparse.Namespace, rows: list[Row], systems: Systems, loads: tuple[str, str]) -> None:
    import grpc

    print(f"graphwire and its peers: python {platform.python_version()}, grpcio {grpc.__version__}, "
          f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs")  # fmt: skip
    print(f"{args.rounds} round(s) per row, the systems interleaved; each caller {args.turns} turns on a thread of its own per round")
    print(f"load average (1, 5, 15 min): {loads[0]} at the start, {loads[1]} at the end")
    for spec in systems.specs:
        if spec.skipped:
            print(f"skipped: {spec.name}: {spec.skipped}")
    head = f"{'system':<26} {'callers':>7} {'runs':>6} {'runs/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'srv CPU ms/run':>14} {'PG CPU ms/run':>13} {'load':>5}"
    for workload in args.workloads:
        print(f"\n{workload}\n{head}\n{'-' * len(head)}")
        for r in (r for r in rows if r.workload == workload):
            print(f"{r.system:<26} {r.callers:>7} {r.runs:>6} {r.rate:>8.1f} {r.pct(0.5):>8.2f} {r.pct(0.95):>8.2f} "
                  f"{_ms(r.cpu_ms()):>14} {_ms(r.pg_ms()):>13} {max(r.loads, key=float):>5}")  # fmt: skip
    print("\nserver CPU per run, as ratios (issue 34: HTTP within 1.5x of gRPC; issue 36: graphwire at most 1/5 of a fresh "
          "langgraph dev's, 1/8 of Aegra's, 6x the echo floor)")  # fmt: skip
    head = f"{'workload':<8} {'callers':>7} {'HTTP/gRPC SQLite':>16} {'HTTP/gRPC PG':>12} {'dev/gRPC SQLite':>15} {'aegra/gRPC PG':>13} {'gRPC SQLite/echo':>16}"
    print(f"{head}\n{'-' * len(head)}")
    for workload in args.workloads:
        for n in args.callers:
            g_sqlite, g_pg = _by(rows, workload, n, "graphwire gRPC SQLite"), _by(rows, workload, n, "graphwire gRPC PG")
            print(f"{workload:<8} {n:>7} {_ratio(_by(rows, workload, n, 'graphwire HTTP SQLite'), g_sqlite):>16} "
                  f"{_ratio(_by(rows, workload, n, 'graphwire HTTP PG'), g_pg):>12} "
                  f"{_ratio(_by(rows, workload, n, 'langgraph dev (memory)'), g_sqlite):>15} {_ratio(_by(rows, workload, n, 'aegra PG'), g_pg):>13} "
                  f"{_ratio(g_sqlite, _by(rows, workload, n, 'echo (grpc.aio floor)')):>16}")  # fmt: skip
    many = f"graphwire gRPC PG x{args.workers}"
    if any(r.system == many for r in rows):
        print(f"\n--workers {args.workers} against 1 worker on PostgreSQL (issue 36: runs per server CPU-second unchanged; "
              f"runs/s at 32 callers at least 1.6x where the machine has the cores)")  # fmt: skip
        for workload in args.workloads:
            for n in args.callers:
                one, more = _by(rows, workload, n, "graphwire gRPC PG"), _by(rows, workload, n, many)
                if one and more and one.server_cpu and more.server_cpu:
                    print(f"  {workload:<8} {n:>3} callers: runs/CPU-s {one.runs / one.server_cpu:.0f} -> {more.runs / more.server_cpu:.0f}, "
                          f"runs/s {_ratio(more, one, 'rate')}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    start_load = loadavg()
    systems = Systems(args.pg, args.workers, not args.no_install, wanted(args.only))
    try:
        with tempfile.TemporaryDirectory(prefix="gw-peers-") as tmp:
            try:
                rows = asyncio.run(bench(args, Path(tmp), systems))
            except Exception as exc:  # say what failed, with the servers' logs
                print(f"bench failed: {type(exc).__name__}: {exc}", file=sys.stderr)
                for log in sorted(Path(tmp).glob("*.log")):
                    print(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}", file=sys.stderr)
                return 1
    finally:
        systems.close()
    report(args, rows, systems, (start_load, loadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
