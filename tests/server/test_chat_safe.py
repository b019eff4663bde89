"""Chat-safe turns and the double-texting strategies on one server, on SQLite and PostgreSQL (issue 33 items 3, 4).

* ``if_interrupted = REJECT`` refuses a thread waiting at an interrupt with
  FAILED_PRECONDITION whose trailing ``TurnRefused`` carries the pending
  interrupts; nothing is written and no run is recorded; DROP (the default)
  still starts a new turn.
* ``expect_checkpoint_id`` refuses a stale caller (naming the newest version),
  an empty thread, and accepts a fresh one, on Invoke, Resume and Fork.
* ``multitask_strategy`` INTERRUPT cancels the running run and keeps its
  versions; ROLLBACK deletes them (read back through ListHistory and from the
  database's rows); both records name each other (``replaced_by``/``replaces``).
* ``enqueue`` and another strategy together are INVALID_ARGUMENT.

Each server runs in the test's event loop (:func:`tests.hardening.conftest.in_process`)
and is called through the raw stubs, so the tests see the wire. A gated node
(tests/graphs.py) holds the run to replace; nothing sleeps to synchronise.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from psycopg import sql

from engine.checkpoint import SqliteSaver
from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg
from tests.hardening.conftest import in_process, until

DEADLINE = 60.0
REFUSED_KEY = "graphwire-turn-refused-bin"
RUN_KEY = "__graphwire_run_id__"


class Backend:
    """The test's database: a saver maker, and a count of the rows a run left."""

    def __init__(self, kind: str, make: Callable[[], Any], rows: Callable[[str], int]) -> None:
        self.kind, self.make, self.rows = kind, make, rows


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Backend]:
    (tmp_path / "gates").mkdir()
    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(tmp_path / "gates"))
    if request.param == "sqlite":
        db = tmp_path / "gw.db"

        def sqlite_rows(run_id: str) -> int:
            with contextlib.closing(sqlite3.connect(db)) as conn:
                # The run that wrote a version: a column (16 bytes) since migration 0013, in the metadata before.
                query = "SELECT count(*) FROM checkpoints WHERE metadata LIKE ? OR lower(hex(run_id)) = ?"
                return conn.execute(query, (f"%{run_id}%", run_id.replace("-", ""))).fetchone()[0]

        yield Backend("sqlite", lambda: SqliteSaver(str(db)), sqlite_rows)
        return
    from engine.checkpoint.postgres import PostgresSaver

    dsn, schema = require_pg(), new_schema_name()

    def pg_rows(run_id: str) -> int:
        # The run that wrote a version: a column since migration 0014, in the metadata before.
        query = sql.SQL("SELECT count(*) FROM {} WHERE coalesce(run_id::text, metadata->>%s) = %s").format(sql.Identifier(schema, "checkpoints"))
        with psycopg.connect(dsn, autocommit=True) as conn:
            row = conn.execute(query, (RUN_KEY, run_id)).fetchone()
            assert row is not None
            return int(row[0])

    try:
        yield Backend("postgres", lambda: PostgresSaver.from_dsn(dsn, schema=schema), pg_rows)
    finally:
        drop_schema(schema)


@contextlib.asynccontextmanager
async def serving(backend: Backend) -> AsyncIterator[Any]:
    async with serving_with(backend) as (_, stub):
        yield stub


@contextlib.asynccontextmanager
async def serving_with(backend: Backend) -> AsyncIterator[tuple[Any, Any]]:
    """A server in this loop, and a raw stub to it."""
    async with in_process(backend.make()) as srv, grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        yield srv, pb_grpc.GraphServiceStub(channel)


def tid() -> str:
    return f"chat-{uuid.uuid4().hex[:8]}"


def gated(gate: str | None, label: str) -> str:
    return json.dumps({"gate": gate, "label": label})


async def run(stub: Any, request: Any) -> list[pb.RunEvent]:
    method = {pb.InvokeRequest: stub.Invoke, pb.ResumeRequest: stub.Resume, pb.ForkRequest: stub.Fork}[type(request)]
    return [e async for e in method(request, timeout=DEADLINE)]


async def refused(stub: Any, request: Any) -> tuple[str, pb.TurnRefused]:
    """The refusal of ``request``: its message and its trailing TurnRefused."""
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await run(stub, request)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION, info.value.details()
    trailers = dict(info.value.trailing_metadata() or ())
    return info.value.details() or "", pb.TurnRefused.FromString(trailers[REFUSED_KEY])


async def newest(stub: Any, graph: str, thread: str) -> pb.StateSnapshot:
    return await stub.GetState(pb.GetStateRequest(graph=graph, thread_id=thread), timeout=DEADLINE)


async def runs_of(stub: Any, graph: str, thread: str) -> list[pb.RunInfo]:
    return list((await stub.ListRuns(pb.ListRunsRequest(graph=graph, thread_id=thread), timeout=DEADLINE)).runs)


async def history(stub: Any, graph: str, thread: str) -> list[pb.StateSnapshot]:
    got = await stub.ListHistory(pb.ListHistoryRequest(graph=graph, thread_id=thread), timeout=DEADLINE)
    return list(got.snapshots)


def run_id_of(state: pb.StateSnapshot) -> str:
    return str(json.loads(state.metadata_json).get("run_id"))


# -- item 3: chat-safe turns ------------------------------------------------------------------------


def test_reject_returns_the_pending_interrupts_and_writes_nothing(backend: Backend) -> None:
    thread = tid()

    async def body() -> None:
        async with serving(backend) as stub:
            asked = await run(stub, pb.InvokeRequest(graph="gated_question", thread_id=thread, input_json=gated(None, "reply")))
            assert asked[-1].run_finished.reason == pb.FINISH_REASON_INTERRUPT
            pending = asked[-1].run_finished.interrupts[0]
            before = await newest(stub, "gated_question", thread)
            versions = len(await history(stub, "gated_question", thread))

            new_turn = pb.InvokeRequest(
                graph="gated_question", thread_id=thread, input_json=gated(None, "again"), if_interrupted=pb.IF_INTERRUPTED_REJECT
            )
            message, why = await refused(stub, new_turn)
            assert why.reason == pb.TURN_REFUSED_REASON_INTERRUPTED
            assert why.checkpoint_id == before.checkpoint.checkpoint_id
            assert [(i.interrupt_id, i.node, json.loads(i.value_json)) for i in why.interrupts] == [
                (pending.interrupt_id, "work", "Go on with reply?")
            ]
            assert pending.interrupt_id in message and "Resume" in message
            # Nothing written, no run recorded.
            assert len(await history(stub, "gated_question", thread)) == versions
            assert [r.run_id for r in await runs_of(stub, "gated_question", thread)] == [asked[0].run_id]
            # The interrupt is still pending: answering it works.
            done = await run(stub, pb.ResumeRequest(graph="gated_question", thread_id=thread, resume_json='"yes"'))
            assert done[-1].run_finished.reason == pb.FINISH_REASON_END
            # DROP (the default, and explicit) starts a new turn over a pending interrupt.
            await run(stub, pb.InvokeRequest(graph="gated_question", thread_id=thread, input_json=gated(None, "two")))
            dropped = await run(
                stub,
                pb.InvokeRequest(
                    graph="gated_question", thread_id=thread, input_json=gated(None, "three"), if_interrupted=pb.IF_INTERRUPTED_DROP
                ),
            )
            assert dropped[-1].run_finished.reason == pb.FINISH_REASON_INTERRUPT
            # REJECT on a thread with nothing pending runs.
            await run(stub, pb.ResumeRequest(graph="gated_question", thread_id=thread, resume_json='"ok"'))
            fine = pb.InvokeRequest(
                graph="gated_question", thread_id=thread, input_json=gated(None, "four"), if_interrupted=pb.IF_INTERRUPTED_REJECT
            )
            assert (await run(stub, fine))[-1].run_finished.reason == pb.FINISH_REASON_INTERRUPT

    asyncio.run(body())


def test_expect_checkpoint_id_refuses_a_stale_caller_and_accepts_a_fresh_one(backend: Backend) -> None:
    thread = tid()

    async def body() -> None:
        async with serving(backend) as stub:
            # An empty thread is refused when a version is expected.
            message, why = await refused(
                stub, pb.InvokeRequest(graph="chain3", thread_id=thread, input_json='{"n": 0}', expect_checkpoint_id="nope")
            )
            assert why.reason == pb.TURN_REFUSED_REASON_STALE_CHECKPOINT and why.checkpoint_id == ""
            assert "no version yet" in message
            assert await runs_of(stub, "chain3", thread) == []
            assert await history(stub, "chain3", thread) == []

            first = await run(stub, pb.InvokeRequest(graph="chain3", thread_id=thread, input_json='{"n": 0}'))
            seen = first[-1].run_finished.checkpoint.checkpoint_id
            # A fresh caller (it saw the newest version) runs.
            fresh = await run(
                stub, pb.InvokeRequest(graph="chain3", thread_id=thread, input_json='{"n": 10}', expect_checkpoint_id=seen)
            )
            assert fresh[-1].run_finished.reason == pb.FINISH_REASON_END
            now = fresh[-1].run_finished.checkpoint.checkpoint_id
            versions = len(await history(stub, "chain3", thread))
            # A stale one (it still shows the first turn's version) is refused, naming the newest.
            message, why = await refused(
                stub, pb.InvokeRequest(graph="chain3", thread_id=thread, input_json='{"n": 20}', expect_checkpoint_id=seen)
            )
            assert why.reason == pb.TURN_REFUSED_REASON_STALE_CHECKPOINT and why.checkpoint_id == now
            assert now in message and seen in message
            assert len(await history(stub, "chain3", thread)) == versions
            assert len(await runs_of(stub, "chain3", thread)) == 2
            # Fork checks the newest version too (not the one it forks from).
            stale_fork = pb.ForkRequest(graph="chain3", thread_id=thread, checkpoint_id=seen, expect_checkpoint_id=seen)
            assert (await refused(stub, stale_fork))[1].checkpoint_id == now
            fork = pb.ForkRequest(graph="chain3", thread_id=thread, checkpoint_id=seen, expect_checkpoint_id=now)
            assert (await run(stub, fork))[-1].run_finished.reason == pb.FINISH_REASON_END

            # Resume: a caller answering the interrupt it displayed.
            q = tid()
            asked = await run(stub, pb.InvokeRequest(graph="gated_question", thread_id=q, input_json=gated(None, "x")))
            at = asked[-1].run_finished.checkpoint.checkpoint_id
            stale = pb.ResumeRequest(graph="gated_question", thread_id=q, resume_json='"y"', expect_checkpoint_id=seen)
            assert (await refused(stub, stale))[1].interrupts[0].interrupt_id == asked[-1].run_finished.interrupts[0].interrupt_id
            ok = pb.ResumeRequest(graph="gated_question", thread_id=q, resume_json='"y"', expect_checkpoint_id=at)
            assert (await run(stub, ok))[-1].run_finished.reason == pb.FINISH_REASON_END

    asyncio.run(body())


def test_the_check_is_made_after_the_wait_for_the_thread(backend: Backend) -> None:
    """A queued call whose caller saw the version before the running turn is refused once its turn comes."""
    thread, gate = tid(), f"gate-{uuid.uuid4().hex[:6]}"

    async def body() -> None:
        async with serving_with(backend) as (srv, stub):
            first = await run(stub, pb.InvokeRequest(graph="gated", thread_id=thread, input_json=gated(None, "first")))
            seen = first[-1].run_finished.checkpoint.checkpoint_id
            held = stub.Invoke(pb.InvokeRequest(graph="gated", thread_id=thread, input_json=gated(gate, "held")), timeout=DEADLINE)
            async for e in held:
                if e.HasField("custom"):
                    break
            # Sent while the thread is busy, with the version its caller saw (still the newest... for now).
            queued = asyncio.ensure_future(
                refused(
                    stub,
                    pb.InvokeRequest(
                        graph="gated", thread_id=thread, input_json=gated(None, "late"), enqueue=True, expect_checkpoint_id=seen
                    ),
                )
            )
            await until(lambda: srv.service.runs.waiting(f"gated:{thread}"), "the queued call to wait", deadline=DEADLINE)
            Path(os.environ["GRAPHWIRE_TEST_GATES"], gate).touch()
            ended = [e async for e in held]
            message, why = await queued
            assert why.checkpoint_id == ended[-1].run_finished.checkpoint.checkpoint_id != seen
            assert len(await runs_of(stub, "gated", thread)) == 2

    asyncio.run(body())


# -- item 4: the double-texting strategies ------------------------------------------------------------


def test_enqueue_with_another_strategy_is_invalid(backend: Backend) -> None:
    async def body() -> None:
        async with serving(backend) as stub:
            bad = pb.InvokeRequest(
                graph="chain3", thread_id=tid(), input_json="{}", enqueue=True, multitask_strategy=pb.MULTITASK_STRATEGY_ROLLBACK
            )
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await run(stub, bad)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "multitask_strategy" in (info.value.details() or "")
            same = pb.InvokeRequest(
                graph="chain3", thread_id=tid(), input_json="{}", enqueue=True, multitask_strategy=pb.MULTITASK_STRATEGY_ENQUEUE
            )
            assert (await run(stub, same))[-1].run_finished.reason == pb.FINISH_REASON_END

    asyncio.run(body())


async def replaced_turn(stub: Any, tmp_gate: str, thread: str, strategy: int) -> tuple[str, list[pb.RunEvent], list[pb.RunEvent]]:
    """A first turn ended, a second held at its gate after saving its input version, then a third
    sent with ``strategy``: (the held run's id, its events, the third's events)."""
    await run(stub, pb.InvokeRequest(graph="gated", thread_id=thread, input_json=gated(None, "first")))
    held = stub.Invoke(pb.InvokeRequest(graph="gated", thread_id=thread, input_json=gated(tmp_gate, "held")), timeout=DEADLINE)
    head = []
    async for e in held:
        head.append(e)
        if e.HasField("custom"):
            break
    held_id = head[0].run_id
    await until(lambda: _saved_by(stub, thread, held_id), "the held run's input version")
    third = await run(
        stub, pb.InvokeRequest(graph="gated", thread_id=thread, input_json=gated(None, "third"), multitask_strategy=strategy)
    )
    rest = [e async for e in held]
    return held_id, head + rest, third


async def _saved_by(stub: Any, thread: str, run_id: str) -> bool:
    return any(run_id_of(s) == run_id for s in await history(stub, "gated", thread))


def test_interrupt_cancels_the_running_run_and_keeps_its_versions(backend: Backend) -> None:
    thread = tid()

    async def body() -> None:
        async with serving(backend) as stub:
            held_id, held, third = await replaced_turn(stub, "never-opened-i", thread, pb.MULTITASK_STRATEGY_INTERRUPT)
            assert held[-1].run_finished.reason == pb.FINISH_REASON_CANCELLED
            assert third[-1].run_finished.reason == pb.FINISH_REASON_END
            kept = [s for s in await history(stub, "gated", thread) if run_id_of(s) == held_id]
            assert kept, "INTERRUPT keeps the versions of the run it cancelled"
            assert backend.rows(held_id) == len(kept)
            # The new turn started from the cancelled run's newest version.
            state = json.loads((await newest(stub, "gated", thread)).values_json)
            assert state["label"] == "third" and state["log"] == ["first", "third"]
            records = {r.run_id: r for r in await runs_of(stub, "gated", thread)}
            assert records[held_id].status == pb.RUN_STATUS_CANCELLED
            assert records[held_id].replaced_by == third[0].run_id
            assert records[third[0].run_id].replaces == held_id and records[third[0].run_id].replaced_by == ""

    asyncio.run(body())


def test_rollback_deletes_every_version_of_the_cancelled_run(backend: Backend) -> None:
    thread = tid()

    async def body() -> None:
        async with serving(backend) as stub:
            held_id, held, third = await replaced_turn(stub, "never-opened-r", thread, pb.MULTITASK_STRATEGY_ROLLBACK)
            assert held[-1].run_finished.reason == pb.FINISH_REASON_CANCELLED
            assert third[-1].run_finished.reason == pb.FINISH_REASON_END
            versions = await history(stub, "gated", thread)
            assert all(run_id_of(s) != held_id for s in versions), "ROLLBACK leaves no version of the cancelled run"
            assert backend.rows(held_id) == 0
            # The new turn started from the first turn's newest version, as if the held one never ran.
            by_id = {s.checkpoint.checkpoint_id: s for s in versions}
            third_input = next(s for s in versions if run_id_of(s) == third[0].run_id and s.checkpoint.source == "input")
            assert run_id_of(by_id[third_input.checkpoint.parent_id]) != held_id
            state = json.loads((await newest(stub, "gated", thread)).values_json)
            assert state["log"] == ["first", "third"]
            records = {r.run_id: r for r in await runs_of(stub, "gated", thread)}
            assert records[held_id].status == pb.RUN_STATUS_ROLLED_BACK
            assert records[held_id].replaced_by == third[0].run_id
            assert records[third[0].run_id].replaces == held_id
            got = await stub.GetRun(pb.GetRunRequest(run_id=held_id), timeout=DEADLINE)
            assert got.status == pb.RUN_STATUS_ROLLED_BACK and got.replaced_by == third[0].run_id

    asyncio.run(body())


def test_rollback_of_a_fork_deletes_its_update_version_too(backend: Backend) -> None:
    """A Fork's update version is written by its run (named in its metadata): a rollback deletes it with the rest."""
    thread = tid()

    async def body() -> None:
        async with serving(backend) as stub:
            first = await run(stub, pb.InvokeRequest(graph="gated", thread_id=thread, input_json=gated(None, "first")))
            end = first[-1].run_finished.checkpoint.checkpoint_id
            fork = pb.ForkRequest(
                graph="gated", thread_id=thread, checkpoint_id=end, update_json=gated("never-opened-f", "forked"), as_node="__start__"
            )
            held = stub.Fork(fork, timeout=DEADLINE)
            head = []
            async for e in held:
                head.append(e)
                if e.HasField("custom"):
                    break
            held_id = head[0].run_id
            update = next(e.checkpoint_saved.checkpoint for e in head if e.HasField("checkpoint_saved"))
            assert update.source == "update" and backend.rows(held_id) >= 1
            third = await run(
                stub,
                pb.InvokeRequest(
                    graph="gated", thread_id=thread, input_json=gated(None, "third"), multitask_strategy=pb.MULTITASK_STRATEGY_ROLLBACK
                ),
            )
            assert [e async for e in held][-1].run_finished.reason == pb.FINISH_REASON_CANCELLED
            ids = {s.checkpoint.checkpoint_id for s in await history(stub, "gated", thread)}
            assert update.checkpoint_id not in ids and backend.rows(held_id) == 0
            assert third[0].run_started.checkpoint_id == end  # it started where the fork had started from

    asyncio.run(body())


def test_a_static_breakpoint_is_not_refused_as_an_interrupt(backend: Backend) -> None:
    thread = tid()

    async def body() -> None:
        async with serving(backend) as stub:
            paused = await run(
                stub,
                pb.InvokeRequest(
                    graph="chain3", thread_id=thread, input_json='{"n": 0}', config=pb.RunConfig(interrupt_before=["b"])
                ),
            )
            assert paused[-1].run_finished.reason == pb.FINISH_REASON_INTERRUPT
            assert list((await newest(stub, "chain3", thread)).next) == ["b"]
            again = pb.InvokeRequest(graph="chain3", thread_id=thread, input_json='{"n": 5}', if_interrupted=pb.IF_INTERRUPTED_REJECT)
            assert (await run(stub, again))[-1].run_finished.reason == pb.FINISH_REASON_END

    asyncio.run(body())
