"""Runs driven from Python (:mod:`server._run_api`) against a real GraphService on SQLite.

The server runs in the test's event loop (:func:`tests.hardening.conftest.in_process`),
so the same service is called both ways: through :func:`run_events` and through its
gRPC stub. A gated node (tests/graphs.py) holds a run open; nothing sleeps.
"""

from __future__ import annotations

import asyncio
import functools
import json
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

from engine.checkpoint import SqliteSaver
from server._errors import status_for
from server._run_api import join_events, run_events
from server._tenants import TENANT
from tests.hardening.conftest import in_process, until

DEADLINE = 60.0


@pytest.fixture
def gates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "gates").mkdir()
    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(tmp_path / "gates"))
    return tmp_path / "gates"


def in_loop(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """The test run to its end in an event loop of its own (pytest sees its fixtures)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


def tid() -> str:
    return f"api-{uuid.uuid4().hex[:8]}"


def shape(events: list[pb.RunEvent]) -> list[tuple[Any, ...]]:
    """What two runs of the same request share: each event's seq, kind, namespace and payload,
    without the ids and times that differ between runs."""
    out = []
    for e in events:
        kind = e.WhichOneof("event")
        body = getattr(e, kind)
        keep: Any = None
        if kind == "values":
            keep = (body.step, json.loads(body.values_json))
        elif kind == "task_finished":
            keep = (body.step, body.node, body.update_json and json.loads(body.update_json))
        elif kind == "run_finished":
            keep = (body.reason, json.loads(body.values_json), body.checkpoint.step)
        elif kind == "checkpoint_saved":
            keep = (body.checkpoint.step, body.checkpoint.source, list(body.checkpoint.next))
        out.append((e.seq, kind, tuple(e.namespace), keep))
    return out


async def collect(events: AsyncIterator[pb.RunEvent]) -> list[pb.RunEvent]:
    return [e async for e in events]


@in_loop
async def test_a_run_from_python_sends_what_its_grpc_stream_sends(tmp_path: Path) -> None:
    async with in_process(SqliteSaver(str(tmp_path / "gw.db"))) as srv, grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as ch:
        stub = pb_grpc.GraphServiceStub(ch)
        a, b = tid(), tid()
        by_grpc = [e async for e in stub.Invoke(pb.InvokeRequest(graph="chain3", thread_id=a, input_json='{"n": 0}'), timeout=DEADLINE)]
        by_api = await collect(run_events(srv.service, pb.InvokeRequest(graph="chain3", thread_id=b, input_json='{"n": 0}')))
        assert shape(by_api) == shape(by_grpc)
        assert by_api[-1].run_finished.reason == pb.FINISH_REASON_END
        assert json.loads(by_api[-1].run_finished.values_json)["n"] == 3
        assert {e.run_id for e in by_api} == {by_api[0].run_started.run_id}
        # The run is recorded as a gRPC call's is.
        info = await stub.GetRun(pb.GetRunRequest(run_id=by_api[0].run_id), timeout=DEADLINE)
        assert info.status == pb.RUN_STATUS_SUCCESS and info.thread_id == b


@in_loop
async def test_a_bad_request_raises_the_status_the_grpc_call_ends_with(tmp_path: Path) -> None:
    async with in_process(SqliteSaver(str(tmp_path / "gw.db"))) as srv:
        with pytest.raises(Exception) as unknown:
            await collect(run_events(srv.service, pb.InvokeRequest(graph="nope", thread_id=tid(), input_json="{}")))
        assert status_for(unknown.value)[0] == grpc.StatusCode.NOT_FOUND
        with pytest.raises(Exception) as bad:
            await collect(run_events(srv.service, pb.InvokeRequest(graph="chain3", thread_id=tid(), input_json="{not json")))
        code, message = status_for(bad.value)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "input_json" in message


@in_loop
async def test_a_caller_that_leaves_cancels_its_run(tmp_path: Path, gates: Path) -> None:
    async with in_process(SqliteSaver(str(tmp_path / "gw.db"))) as srv:
        gone = asyncio.Event()
        thread = tid()
        request = pb.InvokeRequest(graph="gated", thread_id=thread, input_json=json.dumps({"gate": "never", "label": "x"}))
        seen: list[pb.RunEvent] = []
        async for e in run_events(srv.service, request, disconnected=gone):
            seen.append(e)
            if e.HasField("custom"):  # the node runs, and waits for its gate
                gone.set()
        assert seen[0].HasField("run_started") and not any(e.HasField("run_finished") for e in seen)
        run_id = seen[0].run_id
        record = await until(lambda: _ended(srv, run_id), "the run's record to end")
        assert record.status == "CANCELLED"


async def _ended(srv: Any, run_id: str) -> Any:
    found = await srv.service.records.store.aget(run_id)
    return found if found is not None and found.ended_at is not None else None


@in_loop
async def test_a_run_that_continues_is_joined_after_its_caller_left(tmp_path: Path, gates: Path) -> None:
    async with in_process(SqliteSaver(str(tmp_path / "gw.db"))) as srv:
        request = pb.InvokeRequest(
            graph="gated", thread_id=tid(), input_json=json.dumps({"gate": "later", "label": "kept"}),
            on_disconnect=pb.ON_DISCONNECT_CONTINUE,
        )  # fmt: skip
        first: list[pb.RunEvent] = []
        events = run_events(srv.service, request)
        async for e in events:
            first.append(e)
            if e.HasField("custom"):
                break  # the caller goes: the iterator is closed mid-run
        await events.aclose()  # type: ignore[attr-defined]
        run_id = first[0].run_id
        (gates / "later").touch()
        joined = await collect(join_events(srv.service, run_id, after_seq=first[-1].seq))
        assert [e.seq for e in joined] == sorted(e.seq for e in joined) and joined[0].seq > first[-1].seq
        assert joined[-1].run_finished.reason == pb.FINISH_REASON_END
        assert json.loads(joined[-1].run_finished.values_json)["log"] == ["kept"]
        # From the start, the join replays what the first caller saw.
        again = await collect(join_events(srv.service, run_id))
        assert [e.SerializeToString() for e in again[: len(first)]] == [e.SerializeToString() for e in first]


@in_loop
async def test_a_retry_with_its_request_id_answers_with_the_first_run(tmp_path: Path) -> None:
    async with in_process(SqliteSaver(str(tmp_path / "gw.db"))) as srv:
        request = pb.InvokeRequest(graph="chain3", thread_id=tid(), input_json='{"n": 0}', request_id="turn-1")
        first = await collect(run_events(srv.service, request))
        retry = await collect(run_events(srv.service, request))
        assert {e.run_id for e in retry} == {first[0].run_id}
        assert retry[-1].run_finished.values_json == first[-1].run_finished.values_json
        assert len(await srv.service.records.store.alist(_key(request))) == 1


def _key(request: pb.InvokeRequest) -> str:
    from server._reads import thread_key

    return thread_key(request.graph, request.thread_id)


@in_loop
async def test_the_callers_tenant_is_the_runs(tmp_path: Path) -> None:
    async with in_process(SqliteSaver(str(tmp_path / "gw.db"))) as srv:
        thread = tid()
        token = TENANT.set("acme")
        try:
            done = await collect(run_events(srv.service, pb.InvokeRequest(graph="chain3", thread_id=thread, input_json='{"n": 0}')))
            assert done[-1].run_finished.reason == pb.FINISH_REASON_END
        finally:
            TENANT.reset(token)
        # Another tenant (here: none) finds no such run.
        with pytest.raises(Exception) as other:
            await collect(join_events(srv.service, done[0].run_id))
        assert status_for(other.value)[0] == grpc.StatusCode.NOT_FOUND
        token = TENANT.set("acme")
        try:  # its record is under the tenant's key
            assert [r.run_id for r in await srv.service.records.store.alist(_key(pb.InvokeRequest(graph="chain3", thread_id=thread)))] == [done[0].run_id]
        finally:
            TENANT.reset(token)
