"""On PostgreSQL a served run's last versions go in its end's write: one statement for both.

The engine hands the versions it still holds at the run's end to the server
(``Landing(takes_last=True)``), and the run store writes them with the run's end
(record, last events, thread mark, lease let go: tests/checkpoint/test_run_end_with_versions.py).
A run of fast steps under the writer's linger makes two statements: its start and its end.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any, TypedDict

import psycopg
import pytest
from graphwire import Aborted, AsyncClient, FinishReason, RunFinished, RunStatus, ValuesEvent

from engine.checkpoint.postgres import PostgresSaver
from engine.graph import END, START, StateGraph
from engine.types import interrupt
from server._final_values import AT_VERSION
from server.app import build_server
from server.config import ServerConfig
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg
from tests.server.test_version_linger import GATES, GRAPHS


@pytest.fixture
def saver() -> Iterator[PostgresSaver]:
    """A saver on a schema of its own (dropped after the test)."""
    require_pg()
    name = new_schema_name()
    try:
        yield PostgresSaver.from_dsn(DSN, schema=name)
    finally:
        drop_schema(name)


#: The server's background passes (the delayed runs' every second, the webhooks' every two, ...), in
#: tasks named for them: their statements are not a run's, and may fall in any run's time.
_BACKGROUND = ("graphwire-delayed-runs", "graphwire-webhook-sender", "graphwire-cron-scheduler", "graphwire-thread-sweeper",
               "graphwire-run-sweeper", "graphwire-store-ttl-sweeper")  # fmt: skip


class _Statements:
    """How many statements the saver's connections ran for runs (its stores' included, the
    server's background passes not), and what the saver's own were for (its runner's labels)."""

    def __init__(self, saver: PostgresSaver) -> None:
        self.n = 0
        self.saver: list[str] = []
        conns_run, saver_run = saver._conns.run, saver._run

        async def counted(work: Any, **kw: Any) -> Any:
            task = asyncio.current_task()
            self.n += task is None or task.get_name() not in _BACKGROUND
            return await conns_run(work, **kw)

        async def labelled(what: str, work: Any) -> Any:
            self.saver.append(what)
            return await saver_run(what, work)

        saver._conns.run, saver._run = counted, labelled  # type: ignore[method-assign]


def _rows(saver: PostgresSaver, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` on ``saver``'s tables (``S.name``)."""
    with psycopg.connect(DSN, autocommit=True) as conn:
        return conn.execute(sql.replace("S.", f'"{saver.schema}".'), params).fetchall()


class _N(TypedDict):
    n: int


def _asks() -> Any:
    g = StateGraph(_N)
    g.add_node("first", lambda s: {"n": s["n"] + 1})
    g.add_node("ask", lambda s: {"n": s["n"] + interrupt("how many?")})
    g.add_edge(START, "first")
    g.add_edge("first", "ask")
    g.add_edge("ask", END)
    return g


asks = _asks()


@contextlib.asynccontextmanager
async def _client(saver: PostgresSaver) -> AsyncIterator[AsyncClient]:
    """A client of a server on ``saver`` whose runs' versions all wait for their end (a linger no run outlasts)."""
    graphs = {**GRAPHS, "asks": f"{__name__}:asks"}
    srv = await build_server(ServerConfig(address="127.0.0.1:0", graphs=graphs, version_linger_seconds=60), checkpointer=saver)
    try:
        async with AsyncClient(f"127.0.0.1:{srv.port}") as client:
            yield client
    finally:
        await srv.stop(grace=5)


def test_a_served_run_writes_its_versions_with_its_end(saver: PostgresSaver, thread_id: str) -> None:
    async def body() -> None:
        async with _client(saver) as client:
            await client.invoke("chain3", "warm-up", {"n": 0})  # the server's first reads and writes
            statements = _Statements(saver)
            done = await asyncio.wait_for(client.invoke("chain3", thread_id, {"n": 0}), 30)
            assert statements.n == 2 and statements.saver == ["put"]  # the start; the versions with the end
            assert done.reason is FinishReason.END and done.values == {"n": 3}
            history = await client.history("chain3", thread_id)
            assert [s.checkpoint.step for s in history] == [3, 2, 1, 0, -1]
            assert done.checkpoint.checkpoint_id == history[0].checkpoint.checkpoint_id
            run = await client.get_run(done.run_id)
            assert run.status is RunStatus.SUCCESS
        [(lapsed,)] = _rows(saver, "SELECT expires_at <= clock_timestamp() FROM S.leases WHERE thread_id LIKE %s", f"%{thread_id}")
        assert lapsed  # let go of with the end

    asyncio.run(body())


def test_a_run_stopped_by_an_interrupt_writes_its_record_with_its_versions_and_its_end(saver: PostgresSaver, thread_id: str) -> None:
    async def body() -> None:
        async with _client(saver) as client:
            await client.invoke("chain3", "warm-up", {"n": 0})
            statements = _Statements(saver)
            asked = await asyncio.wait_for(client.invoke("asks", thread_id, {"n": 0}), 30)
            assert statements.n == 2 and statements.saver == ["put"]
            assert asked.reason is FinishReason.INTERRUPT and [i.value for i in asked.interrupts] == ["how many?"]
            state = await client.get_state("asks", thread_id)
            assert state.next == ("ask",) and [i.value for t in state.tasks for i in t.interrupts] == ["how many?"]
            done = await asyncio.wait_for(client.resume("asks", thread_id, 10), 30)
            assert done.reason is FinishReason.END and done.values == {"n": 11}

    asyncio.run(body())


def test_a_streamed_run_s_stored_events_name_versions_written_with_its_end(saver: PostgresSaver, thread_id: str) -> None:
    async def body() -> None:
        async with _client(saver) as client:
            live = [e async for e in client.stream("chain3", thread_id, {"n": 0})]  # kept for joiners
            assert isinstance(live[-1], RunFinished) and live[-1].values == {"n": 3}
            assert [e async for e in client.join_run(live[0].run_id)] == live
        events = [bytes(r[0]) for r in _rows(saver, "SELECT data FROM S.run_events")]
        named = {t[:36] for data in events for t in data.decode("utf-8", "replace").split(AT_VERSION + ":")[1:]}
        stored = {r[0] for r in _rows(saver, "SELECT checkpoint_id FROM S.checkpoints")}
        assert named and named <= stored  # the events name the versions, and not a copy of their values

    asyncio.run(body())


def test_a_run_whose_lease_was_taken_over_before_its_end_fails_and_stores_none_of_its_last_versions(
    saver: PostgresSaver, thread_id: str
) -> None:
    GATES[thread_id] = asyncio.Event()

    async def body() -> None:
        async with _client(saver) as client:
            seen = []
            with pytest.raises(Aborted, match="the lease epoch 1 of .* was taken over"):
                async for e in client.stream("gated", thread_id, {"n": 0}):
                    seen.append(e)
                    if isinstance(e, ValuesEvent) and e.values == {"n": 1}:  # ``second`` waits at its gate
                        # Another replica took the thread over (the lease lapsed, say, while this one stalled).
                        _rows(saver, "UPDATE S.leases SET owner = 'elsewhere', epoch = epoch + 1 RETURNING 1")
                        GATES[thread_id].set()
            assert not any(isinstance(e, RunFinished) for e in seen)
            # The versions the stored events named went in before them; the last one was in the refused write.
            history = await client.history("gated", thread_id)
            assert [(s.checkpoint.step, s.values) for s in history] == [(1, {"n": 1}), (0, {"n": 0}), (-1, {})]
            run = await client.get_run(seen[0].run_id)
            assert run.status is RunStatus.ERROR

    asyncio.run(asyncio.wait_for(body(), 60))
