"""The callers of bench/peers.py: one row is ``callers`` asyncio tasks, each on a conversation thread of its
own, doing ``turns`` turns one after the other, against one served system; the server's CPU (its
process tree) and its PostgreSQL backends' CPU are read before and after.

A turn is what a chat server does per user message: over gRPC graphwire's
``AsyncClient.invoke`` (the server sends RunStarted and RunFinished), over
HTTP the real ``langgraph-sdk``'s ``runs.wait`` (one POST
``/threads/{id}/runs/wait``), on the echo floor one unary call carrying the
bytes of a real ``InvokeRequest`` (``ECHO_TIMES`` calls per turn). Every answer is checked (chain3: ``n`` is
3; chat: the last message is the model's "Done: sunny in <city>."), so a wrong
answer fails the row instead of counting.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bench._peers_proc import Served, loadavg, pg_backends, pids_cpu, tree_cpu
from bench._peers_systems import Spec

#: The echo floor makes this many calls per turn: its CPU per call is far below /proc's 10 ms tick.
ECHO_TIMES = 25


@dataclass
class Row:
    """One system at one caller count on one workload, summed over the rounds."""

    system: str
    workload: str
    callers: int
    runs: int = 0
    seconds: float = 0.0
    latencies_ns: list[int] = field(default_factory=list)
    server_cpu: float = 0.0
    pg_cpu: float | None = None
    loads: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.runs / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        xs = sorted(self.latencies_ns)
        return xs[min(len(xs) - 1, max(0, round(q * len(xs)) - 1))] / 1e6 if xs else 0.0

    def cpu_ms(self) -> float | None:
        return self.server_cpu * 1e3 / self.runs if self.runs else None

    def pg_ms(self) -> float | None:
        return self.pg_cpu * 1e3 / self.runs if self.runs and self.pg_cpu is not None else None


def chat_input(turn: int) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": f"weather in City{turn}"}]}


def check(workload: str, turn: int, values: dict[str, Any]) -> None:
    if workload == "chain3":
        ok = values.get("n") == 3
    else:
        last = (values.get("messages") or [{}])[-1]
        ok = isinstance(last, dict) and last.get("content") == f"Done: sunny in City{turn}."
    if not ok:
        raise RuntimeError(f"{workload} turn {turn}: unexpected values {str(values)[-300:]}")


def _input(workload: str, turn: int) -> dict[str, Any]:
    return {"n": 0} if workload == "chain3" else chat_input(turn)


class Caller:
    """A client of one served system, and what one turn is on it (made in the loop that uses it)."""

    def __init__(self, spec: Spec, served: Served, workload: str) -> None:
        self.spec, self.served, self.workload = spec, served, workload
        self._close: Callable[[], Awaitable[Any]] | None = None

    async def __aenter__(self) -> Caller:
        if self.spec.proto == "grpc":
            from graphwire import AsyncClient

            self._client: Any = AsyncClient(self.served.target, channels=1 if self.spec.workers == 1 else 4 * self.spec.workers)
            self._close = self._client.close
        elif self.spec.proto == "http":
            from langgraph_sdk import get_client

            self._client = get_client(url=self.served.target, api_key=None)
            self._close = self._client.aclose
        else:
            import grpc
            from graphwire._requests import invoke as invoke_request

            from bench.grpc_throughput import ECHO_METHOD

            self._channel = grpc.aio.insecure_channel(self.served.target)
            self._echo = self._channel.unary_unary(ECHO_METHOD)
            self._bytes = invoke_request(self.workload, uuid.uuid4().hex, _input(self.workload, 0), checkpoint_id=None,
                                         event_kinds=None, enqueue=False, config=None).SerializeToString()  # fmt: skip
            self._close = self._channel.close
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._close is not None:
            await self._close()

    async def thread(self) -> str:
        """A new conversation thread (over HTTP made first, as an SDK user makes one; graphwire wants its graph named)."""
        if self.spec.proto == "http":
            return str((await self._client.threads.create(graph_id=self.workload))["thread_id"])
        return str(uuid.uuid4())

    async def turn(self, thread: str, turn: int) -> None:
        if self.spec.proto == "echo":
            reply = await self._echo(self._bytes, timeout=60)
            assert reply == self._bytes
            return
        if self.spec.proto == "grpc":
            from graphwire import FinishReason

            r = await self._client.invoke(self.workload, thread, _input(self.workload, turn), timeout=120)
            if r.reason is not FinishReason.END:
                raise RuntimeError(f"{self.spec.name}: run ended {r.reason}: {r}")
            check(self.workload, turn, r.values)
            return
        values = await self._client.runs.wait(thread, self.workload, input=_input(self.workload, turn))
        check(self.workload, turn, values)


async def run_row(spec: Spec, served: Served, workload: str, callers: int, turns: int, pg: str, row: Row) -> None:
    """One round of ``row``: a warm-up turn on a thread of its own, then the timed turns of every caller."""
    import asyncio

    async with Caller(spec, served, workload) as caller:
        warm = await caller.thread()
        for n in range(2):
            await caller.turn(warm, n)
        threads = [await caller.thread() for _ in range(callers)]
        latencies: list[int] = []

        async def one(thread: str) -> None:
            for n in range(turns * (ECHO_TIMES if spec.proto == "echo" else 1)):
                t0 = time.perf_counter_ns()
                await caller.turn(thread, n)
                latencies.append(time.perf_counter_ns() - t0)

        backends = pg_backends(pg, served.database) if served.database else []
        pg_before = pids_cpu(backends)
        cpu_before, started = tree_cpu(served.popen.pid), time.perf_counter()
        await asyncio.gather(*(one(t) for t in threads))
        elapsed, cpu_after = time.perf_counter() - started, tree_cpu(served.popen.pid)
        if served.database:
            after = pids_cpu(pg_backends(pg, served.database))
            row.pg_cpu = (row.pg_cpu or 0.0) + sum(cpu - pg_before.get(pid, 0.0) for pid, cpu in after.items())
    row.runs += len(latencies)
    row.seconds += elapsed
    row.latencies_ns += latencies
    row.server_cpu += cpu_after - cpu_before
    row.loads.append(loadavg().split()[0])
