"""What a durable turn costs per Invoke: request_id and on_disconnect = CONTINUE beside the default.

Run by ``python bench/grpc_throughput.py --durable`` (issue 20's figures). One
``graphwire serve`` on SQLite and, when reachable, one on PostgreSQL, each
serving the 3-node chain; callers use the raw stubs (so each variant sends
exactly its request), a new thread per call, the default event kinds
(RunStarted and RunFinished). Variants:

* ``default``: no request_id, ON_DISCONNECT_UNSPECIFIED (the run record only);
* ``request_id``: a fresh request_id per call (the record carries it and its
  fingerprint, and the run's events are stored before they are sent);
* ``CONTINUE``: on_disconnect = ON_DISCONNECT_CONTINUE (events stored, the run
  would outlive its caller).

The variants take turns, round after round (each going first in turn), so a
load that comes and goes on a shared machine falls on all of them alike. Per variant: the server's CPU
time per call (user + system of its process, from /proc: what the machine
spends, whatever the others do), calls per second, and p50 latency; the cost
is each against ``default``. The issue's target: under 10 %. Nothing is
asserted.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

_VARIANTS = ("default", "request_id", "CONTINUE")


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _measure(address: str, pid: int, callers: int, calls: int, rounds: int) -> dict[str, dict[str, float]]:
    import grpc
    from graphwire_proto.v1 import graphwire_pb2 as pb
    from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

    totals = {v: {"calls": 0.0, "cpu": 0.0, "wall": 0.0} for v in _VARIANTS}
    latencies: dict[str, list[float]] = {v: [] for v in _VARIANTS}
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.GraphServiceStub(channel)

        def request(variant: str) -> Any:
            r = pb.InvokeRequest(graph="chain3", thread_id=uuid.uuid4().hex, input_json='{"n": 0}')
            if variant == "request_id":
                r.request_id = uuid.uuid4().hex
            elif variant == "CONTINUE":
                r.on_disconnect = pb.ON_DISCONNECT_CONTINUE
            return r

        async def one(variant: str) -> None:
            t0 = time.perf_counter()
            last = None
            async for e in stub.Invoke(request(variant), timeout=60):
                last = e
            assert last is not None and last.run_finished.reason == pb.FINISH_REASON_END, last
            latencies[variant].append(time.perf_counter() - t0)

        for variant in _VARIANTS:  # warm-up
            for _ in range(20):
                await one(variant)
        per_round = max(calls // rounds, callers)
        for i in range(rounds):
            for variant in _VARIANTS[i % 3 :] + _VARIANTS[: i % 3]:  # each goes first in turn
                budget = [per_round]

                async def caller(variant: str = variant, budget: list[int] = budget) -> None:
                    while budget[0] > 0:
                        budget[0] -= 1
                        await one(variant)

                cpu0, wall0 = _cpu_seconds(pid), time.perf_counter()
                await asyncio.gather(*(caller() for _ in range(callers)))
                t = totals[variant]
                t["cpu"] += _cpu_seconds(pid) - cpu0
                t["wall"] += time.perf_counter() - wall0
                t["calls"] += per_round
    for v in _VARIANTS:
        totals[v]["p50"] = statistics.median(latencies[v][20:] or latencies[v])
    return totals


async def durable_rows(start: Any, wait_serving: Any, tmp: str, pg: str, calls: int, rounds: int) -> list[str]:
    """The printed rows: per store and callers count, each variant's cost."""
    servers: list[tuple[str, Any]] = []
    base = [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--graph",
            "chain3=bench.grpc_throughput:chain3", "--log-level", "WARNING"]  # fmt: skip
    servers.append(("SQLite", start([*base, "--checkpointer", str(Path(tmp) / "durable.db")], "graphwire listening on", tmp,
                                    Path(tmp) / "durable-sqlite.log")))  # fmt: skip
    schema = None
    if pg:
        import psycopg

        try:
            with psycopg.connect(pg, autocommit=True, connect_timeout=5):
                schema = f"gw_bench_{uuid.uuid4().hex[:10]}"
        except psycopg.Error:
            schema = None
        if schema is not None:
            servers.append(("PostgreSQL", start([*base, "--checkpointer", pg, "--pg-schema", schema], "graphwire listening on",
                                                tmp, Path(tmp) / "durable-pg.log")))  # fmt: skip
    lines = [f"{'store':<11} {'callers':>7} {'variant':<11} {'calls':>6} {'runs/s':>8} {'p50 ms':>8} {'server CPU ms/call':>19} {'cost':>7}"]
    lines.append("-" * len(lines[0]))
    try:
        for name, proc in servers:
            await wait_serving(proc.address)
            for callers in (1, 32):
                got = await _measure(proc.address, proc.popen.pid, callers, calls, rounds)
                base_cpu = got["default"]["cpu"] / got["default"]["calls"]
                for v in _VARIANTS:
                    t = got[v]
                    cpu = t["cpu"] / t["calls"]
                    cost = "" if v == "default" else f"{(cpu / base_cpu - 1) * 100:+.1f}%"
                    lines.append(f"{name:<11} {callers:>7} {v:<11} {int(t['calls']):>6} {t['calls'] / t['wall']:>8.0f} "
                                 f"{t['p50'] * 1e3:>8.3f} {cpu * 1e3:>19.3f} {cost:>7}")  # fmt: skip
    finally:
        for _, proc in servers:
            proc.stop()
        if schema is not None:
            import psycopg
            from psycopg import sql

            with psycopg.connect(pg, autocommit=True, connect_timeout=5) as conn:
                conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    lines.append("cost: the variant's server CPU per call against default's (target: under 10%)")
    return lines
