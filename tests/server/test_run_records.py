"""Run records and what reads them, on SQLite and PostgreSQL (issue 28 items 1, 3, 5a and 5b).

* A request_id's retention window counts from its run's end: a run that lasts
  longer than the window keeps its id, and the retry right after its end is
  answered from the record (its input applied once), where it used to be told
  "expired just now; send the call again".
* ``JoinRun`` with ``after_seq`` at or past a run's last event still ends with
  its RunFinished (it used to answer OK with nothing).
* Two copies of one call at once on one server: the second, finding the thread
  held by the first before the first recorded its run, waits for that record
  and joins it (it used to get ABORTED "already has a run in progress").
* ``ListRuns`` pages (``next_before``) and leaves the final state out unless
  asked for; ``GetRun`` returns it.

Each server runs in the test's event loop (:func:`tests.hardening.conftest.in_process`) on a
saver of the ``backend`` parameter; calls go through the raw stubs, so the tests see the wire.
Gated nodes (tests/graphs.py) hold runs where a test needs them; nothing sleeps to synchronise.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

from engine.checkpoint import SqliteSaver
from engine.checkpoint._runs import RunRecord
from server._going_on import request_expired
from server._records import outcome_of
from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg
from tests.hardening.conftest import in_process, until

DEADLINE = 60.0
#: The retention window of the test whose run outlasts it: short, as the run is held past it.
WINDOW = 4.0


@pytest.fixture(params=["sqlite", "postgres"])
def new_saver(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], Any]]:
    """Makes the test's saver (on one database); gated graphs wait at files in ``tmp_path / "gates"``."""
    (tmp_path / "gates").mkdir()
    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(tmp_path / "gates"))
    if request.param == "sqlite":
        yield lambda: SqliteSaver(str(tmp_path / "gw.db"))
        return
    from engine.checkpoint.postgres import PostgresSaver

    dsn, schema = require_pg(), new_schema_name()
    try:
        yield lambda: PostgresSaver.from_dsn(dsn, schema=schema)
    finally:
        drop_schema(schema)


@contextlib.asynccontextmanager
async def serving(new_saver: Callable[[], Any], **config: Any) -> AsyncIterator[tuple[Any, Any]]:
    """A server on a new saver, and a raw stub to it."""
    async with in_process(new_saver(), **config) as srv, grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        yield srv, pb_grpc.GraphServiceStub(channel)


def gated(gate: str | None, label: str, message: str = "hello") -> str:
    return json.dumps({"gate": gate, "label": label, "log": [message]})


async def head_until_waiting(stream: Any) -> list[pb.RunEvent]:
    """A gated run's first events, up to its node's custom event (it waits at its gate)."""
    head = []
    async for e in stream:
        head.append(e)
        if e.HasField("custom"):
            return head
    raise AssertionError(f"the run ended before its node waited: {head}")


def open_gate(tmp_path: Path, name: str) -> None:
    (tmp_path / "gates" / name).touch()


def tid() -> str:
    return f"records-{uuid.uuid4().hex[:8]}"


# -- item 1: the retention window counts from the run's end --------------------------------------------


def test_a_request_id_expires_a_window_after_its_run_ended() -> None:
    t0, window = datetime(2026, 1, 1, tzinfo=timezone.utc), timedelta(minutes=5)
    long_run = RunRecord("r", "g:t", "g", "t", "Invoke", "RUNNING", "me", t0)
    assert not request_expired(long_run, t0 + timedelta(days=3), window)  # running: never
    for status in ("PENDING", "RECOVERING"):
        long_run.status = status
        assert not request_expired(long_run, t0 + timedelta(days=3), window)
    long_run.status, long_run.ended_at = "SUCCESS", t0 + timedelta(hours=1)
    assert not request_expired(long_run, t0 + timedelta(hours=1, minutes=4), window)  # started long ago, ended just now
    assert request_expired(long_run, t0 + timedelta(hours=1, minutes=6), window)


def test_a_run_longer_than_the_window_answers_its_retry_after_its_end(new_saver: Any, tmp_path: Path) -> None:
    thread, gate = tid(), "long-run"
    request = pb.InvokeRequest(graph="gated", thread_id=thread, input_json=gated(gate, "reply", "user message"), request_id="turn")

    async def body() -> None:
        async with serving(new_saver, run_retention_seconds=WINDOW) as (srv, stub):
            stream = stub.Invoke(request, timeout=DEADLINE)
            head = await head_until_waiting(stream)
            info = await stub.GetRun(pb.GetRunRequest(run_id=head[0].run_id), timeout=DEADLINE)
            started = info.started_at.ToDatetime(tzinfo=timezone.utc)
            # The run outlasts the window (its node still waits), by the server's clock.
            await until(lambda: datetime.now(timezone.utc) - started > timedelta(seconds=WINDOW * 1.5), "the window to pass")
            open_gate(tmp_path, gate)
            first = head + [e async for e in stream]
            assert first[-1].run_finished.reason == pb.FINISH_REASON_END
            again = [e async for e in stub.Invoke(request, timeout=DEADLINE)]  # the client's retry, right after the end
            assert again == first  # answered from the record: the same events, RunFinished included
            state = await stub.GetState(pb.GetStateRequest(graph="gated", thread_id=thread), timeout=DEADLINE)
            assert json.loads(state.values_json)["log"] == ["user message", "reply"]  # applied once
            runs = (await stub.ListRuns(pb.ListRunsRequest(graph="gated", thread_id=thread), timeout=DEADLINE)).runs
            assert [r.run_id for r in runs] == [head[0].run_id]
            # Past the window after its end, the id is free: the same call is a new one, and runs (not refused).
            ended = runs[0].ended_at.ToDatetime(tzinfo=timezone.utc)
            await until(lambda: datetime.now(timezone.utc) - ended > timedelta(seconds=WINDOW * 1.5), "the window to pass")
            later = [e async for e in stub.Invoke(request, timeout=DEADLINE)]
            assert later[0].run_id != head[0].run_id and later[-1].run_finished.reason == pb.FINISH_REASON_END

    asyncio.run(body())


# -- item 5b: JoinRun at or past the last event --------------------------------------------------------


def test_join_at_or_past_the_last_event_ends_with_run_finished(new_saver: Any, tmp_path: Path) -> None:
    thread, gate = tid(), "join-past"

    async def body() -> None:
        async with serving(new_saver) as (srv, stub):
            ended = [e async for e in stub.Invoke(pb.InvokeRequest(
                graph="chain3", thread_id=thread, input_json='{"n": 1}', request_id="r1"), timeout=DEADLINE)]  # fmt: skip
            last = ended[-1]
            assert last.HasField("run_finished")
            for after in (last.seq - 1, last.seq, last.seq + 10):
                joined = [e async for e in stub.JoinRun(pb.JoinRunRequest(run_id=last.run_id, after_seq=after), timeout=DEADLINE)]
                assert joined == [last], after
            # A running run joined past its end: the rest is waited for, and its RunFinished sent.
            stream = stub.Invoke(pb.InvokeRequest(graph="gated", thread_id=thread + "-live", input_json=gated(gate, "x"),
                                                  on_disconnect=pb.ON_DISCONNECT_CONTINUE), timeout=DEADLINE)  # fmt: skip
            head = await head_until_waiting(stream)
            join = stub.JoinRun(pb.JoinRunRequest(run_id=head[0].run_id, after_seq=1000), timeout=DEADLINE)
            waiting = asyncio.ensure_future(join.read())
            open_gate(tmp_path, gate)
            rest = [e async for e in stream]
            assert await waiting == rest[-1] and rest[-1].HasField("run_finished")
            assert await join.read() is grpc.aio.EOF

    asyncio.run(body())


# -- item 5a: two copies of one call at once ----------------------------------------------------------


def test_a_copy_that_finds_its_twin_starting_joins_it(new_saver: Any, tmp_path: Path) -> None:
    """The first copy is held once it holds the thread, before it runs (between taking the thread and
    recording its run, or, where the lease's take and the record's insert are one write, just after
    it), until the second has found the thread busy and looked for the record: the window in which
    the second used to fail. Three rounds, each on a thread of its own."""

    async def body() -> None:
        async with serving(new_saver) as (srv, stub):
            store = srv.service.records.store
            real_start, real_take, real_find = store.astart, store.astart_taking, store.afind
            held, looked = asyncio.Event(), asyncio.Event()
            go = asyncio.Event()

            async def astart(record: RunRecord, events: Any = (), *, mark: Any = None) -> Any:
                if record.request_id == "twin" and not go.is_set():
                    held.set()
                    await go.wait()
                return await real_start(record, events, mark=mark)

            async def astart_taking(record: RunRecord, owner: str, ttl: float, *, mark: Any) -> Any:
                lease, first = out = await real_take(record, owner, ttl, mark=mark)
                if record.request_id == "twin" and lease is not None and first is None and not go.is_set():
                    held.set()
                    await go.wait()
                return out

            async def afind(thread_id: str, request_id: str) -> Any:
                if request_id == "twin" and held.is_set():
                    looked.set()
                return await real_find(thread_id, request_id)

            store.astart, store.astart_taking, store.afind = astart, astart_taking, afind
            for round_ in range(3):
                for flag in (held, looked, go):
                    flag.clear()
                thread, label = tid(), uuid.uuid4().hex
                request = pb.InvokeRequest(graph="parallel", thread_id=thread, input_json=gated(None, label), request_id="twin")
                first = asyncio.ensure_future(_events(stub.Invoke(request, timeout=DEADLINE)))
                await until(held.is_set, "the first copy to hold the thread, before it runs")
                second = asyncio.ensure_future(_events(stub.Invoke(request, timeout=DEADLINE)))
                await until(lambda: looked.is_set() or second.done(), "the second copy to look for its twin's record")
                go.set()
                a, b = await asyncio.gather(first, second, return_exceptions=True)
                assert not isinstance(b, BaseException), f"round {round_}: {b!r}"
                assert not isinstance(a, BaseException) and a[-1].run_finished.reason == pb.FINISH_REASON_END
                assert b == a  # joined: the twin's events, its RunFinished included
                assert (tmp_path / "gates" / f"runs-{label}").read_text().count("\n") == 1  # the input applied once

    asyncio.run(body())


async def _events(stream: Any) -> list[pb.RunEvent]:
    return [e async for e in stream]


# -- ListRuns: pages, and the final state only when asked for ---------------------------------------


def test_a_listing_keeps_a_runs_end_without_its_state() -> None:
    end = pb.RunEvent(seq=7, run_id="r", run_finished=pb.RunFinished(
        reason=pb.FINISH_REASON_INTERRUPT, values_json='{"log": ["large"]}', interrupts=[pb.Interrupt(interrupt_id="i", value_json='"ok?"')],
        checkpoint=pb.CheckpointRef(checkpoint_id="c"),
    ))  # fmt: skip
    kept = pb.RunEvent.FromString(outcome_of(end.SerializeToString()))
    end.run_finished.ClearField("values_json")
    assert kept == end  # all but the state
    assert outcome_of(b"\xff not an event") == b"\xff not an event"  # kept whole: a run's end is stored whatever it is


def test_list_runs_pages_and_leaves_the_final_state_out(new_saver: Any) -> None:
    thread = tid()

    async def body() -> None:
        async with serving(new_saver) as (srv, stub):
            finals = []
            for i in range(5):
                events = [e async for e in stub.Invoke(pb.InvokeRequest(graph="chain3", thread_id=thread, input_json=json.dumps({"n": i})), timeout=DEADLINE)]
                finals.append(events[-1])
            ids = [f.run_id for f in reversed(finals)]  # newest first

            async def listing(**kw: Any) -> pb.ListRunsResponse:
                return await stub.ListRuns(pb.ListRunsRequest(graph="chain3", thread_id=thread, **kw), timeout=DEADLINE)

            pages, before = [], None
            while True:
                got = await listing(limit=2, **({"before": before} if before else {}))
                pages.append([r.run_id for r in got.runs])
                if not got.next_before:
                    break
                assert got.next_before == got.runs[-1].run_id
                before = got.next_before
            assert pages == [ids[0:2], ids[2:4], ids[4:5]]
            everything = (await listing()).runs
            assert [r.run_id for r in everything] == ids and not (await listing()).next_before
            newest = everything[0]
            assert not newest.values_json  # left out...
            final = finals[-1].run_finished
            assert (newest.reason, newest.checkpoint_id) == (pb.FINISH_REASON_END, final.checkpoint.checkpoint_id)  # ...the rest kept
            full = (await listing(limit=1, include_values=True)).runs[0]
            assert json.loads(full.values_json) == json.loads(final.values_json) and full.values_json
            got = await stub.GetRun(pb.GetRunRequest(run_id=ids[0]), timeout=DEADLINE)
            assert got.values_json == full.values_json
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await listing(limit=1, before="no-such-run")
            assert missing.value.code() is grpc.StatusCode.NOT_FOUND

    asyncio.run(body())
