"""A run being taken over reads RECOVERING until its new replica claims it (issue 20), on SQLite;
and one whose thread went on without it is not run again.

A durable run whose server died is continued by the next sweep of a server
on the same file (:mod:`server._recovery`). The sweep's decision comes first;
the claim (one more attempt, RUNNING) only once the continuation holds the
thread, which waits while the thread is busy: at a restart, a caller's call
can take the thread before the first sweep does. Between the two, GetRun
and ListRuns say RECOVERING, with the dead replica and its attempts.

The window is held open by the test, deterministically: the server runs in
the test's event loop (:func:`tests.hardening.conftest.in_process`), the test
holds the thread's slot as such a call would, and it looks at the record
once the continuation waits for that slot
(:meth:`server._runs.RunManager.waiting`). The dead server's record is the
one a server writes for a background Invoke (:meth:`server._records.Records.new`),
under another replica's name: on SQLite one process serves a file, so no
second server can leave one while this one runs (the replicas' version,
with a replica SIGKILLed, is ``tests/replicas/test_recovering.py``).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

from engine.checkpoint import SqliteSaver
from server._reads import key_of
from server._records import Call
from tests.hardening.conftest import in_process, until

DEADLINE = 60.0
GONE = "a-server-that-died:1:0badc0de"


def test_a_run_reads_recovering_from_the_sweep_to_the_claim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gates = tmp_path / "gates"
    gates.mkdir()
    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(gates))
    tid, gate, run_id = f"recovering-{uuid.uuid4().hex[:8]}", "gate", str(uuid.uuid4())
    key = key_of(None, "gated", tid)
    request = pb.InvokeRequest(graph="gated", thread_id=tid, input_json=json.dumps({"gate": gate, "label": "reply", "log": ["hi"]}), background=True)

    async def body() -> None:
        async with in_process(SqliteSaver(str(tmp_path / "gw.db"))) as srv:
            service = srv.service
            async with grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
                stub = pb_grpc.GraphServiceStub(channel)

                async def info() -> pb.RunInfo:
                    return await stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE)

                async with service.runs.slot(key, tid, "held-by-the-test", enqueue=False):
                    dead = service.records.new(run_id, key, "gated", tid, Call(request), None)
                    dead.replica = GONE  # started by a server that died before the run took its first step
                    assert await service.records.store.astart(dead) is None
                    await until(lambda: service.runs.waiting(key) == 1, "the sweep's continuation to wait for the thread")
                    seen = await info()
                    assert (seen.status, seen.attempts, seen.replica) == (pb.RUN_STATUS_RECOVERING, 1, GONE)
                    (listed,) = (await stub.ListRuns(pb.ListRunsRequest(graph="gated", thread_id=tid), timeout=DEADLINE)).runs
                    assert listed.status == pb.RUN_STATUS_RECOVERING and not listed.HasField("ended_at")
                # The thread is free: the continuation claims the run (attempt 2, this server) and runs it.
                claimed = await until(lambda: _status(info, pb.RUN_STATUS_RUNNING), "the claim")
                assert (claimed.attempts, claimed.replica) == (2, service.records.replica)
                (gates / gate).touch()
                done = await until(lambda: _status(info, pb.RUN_STATUS_SUCCESS), "the run to end")
                assert (done.attempts, done.reason) == (2, pb.FINISH_REASON_END)
                state = await stub.GetState(pb.GetStateRequest(graph="gated", thread_id=tid), timeout=DEADLINE)
                assert json.loads(state.values_json)["log"] == ["hi", "reply"]  # its call, run once

    asyncio.run(body())


async def _status(info: Callable[[], Any], status: int) -> pb.RunInfo | None:
    got = await info()
    return got if got.status == status else None


def test_a_run_whose_thread_went_on_without_it_is_not_run_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its first attempt applied its input, then another call went on from the thread before the sweep
    came: continuing it with its input would apply that twice, and on from its own version would fork
    the thread's past. It ends ERROR (RecoveryError), the thread as the other call left it."""
    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(tmp_path))
    tid, run_id = f"went-on-{uuid.uuid4().hex[:8]}", str(uuid.uuid4())
    key = key_of(None, "gated", tid)
    first = {"gate": None, "label": "reply", "log": ["hi"]}
    request = pb.InvokeRequest(graph="gated", thread_id=tid, input_json=json.dumps(first), background=True)

    async def body() -> None:
        async with in_process(SqliteSaver(str(tmp_path / "gw.db"))) as srv:
            service = srv.service
            graph = service.graphs.get("gated").graph
            async with grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
                stub = pb_grpc.GraphServiceStub(channel)
                async with service.runs.slot(key, tid, "held-by-the-test", enqueue=False):
                    # The dead server's run applied its input (a version under its run id), then died ...
                    # (the served graph calls the thread by the caller's id; its checkpointer stores it under key)
                    config = {"configurable": {"thread_id": tid}, "metadata": {"run_id": run_id}}
                    await graph.ainvoke(first, config, interrupt_before=["work"])
                    # ... and a call on another server went on from the thread.
                    await graph.ainvoke({"label": "next", "log": ["more"]}, {"configurable": {"thread_id": tid}})
                    dead = service.records.new(run_id, key, "gated", tid, Call(request), None)
                    dead.replica = GONE
                    assert await service.records.store.astart(dead) is None
                    await until(lambda: service.runs.waiting(key) == 1, "the sweep's continuation to wait for the thread")

                async def ended() -> pb.RunInfo | None:
                    got = await stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE)
                    return got if got.ended_at.seconds else None

                done = await until(ended, "the continued run to end")
                state = await stub.GetState(pb.GetStateRequest(graph="gated", thread_id=tid), timeout=DEADLINE)
                assert json.loads(state.values_json)["log"] == ["hi", "more", "next"]  # "hi" once, nothing after the other call
                assert (done.status, done.reason, done.error.type) == (pb.RUN_STATUS_ERROR, pb.FINISH_REASON_ERROR, "RecoveryError")
                assert "would apply its input twice" in done.error.message

    asyncio.run(body())


def test_a_continued_run_keeps_its_configurable(tmp_path: Path) -> None:
    """A durable run carries its request's configurable to the replica that continues it (issue 32):
    its dead server had run its first steps (under its run id), the continuation runs on from there,
    and the steps it runs see the configurable the call sent."""
    from server.app import build_server
    from server.config import ServerConfig

    pytest.importorskip("langchain_core")
    tid, run_id = f"conf-{uuid.uuid4().hex[:8]}", str(uuid.uuid4())
    key = key_of(None, "seen", tid)
    conf = {"user_id": "recovered", "replies": ["from the request"]}
    hi = {"messages": [{"role": "user", "content": "hi"}]}
    config_pb = pb.RunConfig(configurable_json=json.dumps(conf))
    request = pb.InvokeRequest(graph="seen", thread_id=tid, input_json=json.dumps(hi), background=True, config=config_pb)

    async def body() -> None:
        graphs = {"seen": "tests.configurable_graph:graph"}
        srv = await build_server(ServerConfig(address="127.0.0.1:0", graphs=graphs), checkpointer=SqliteSaver(str(tmp_path / "gw.db")))
        try:
            service = srv.service
            graph = service.graphs.get("seen").graph
            async with service.runs.slot(key, tid, "held-by-the-test", enqueue=False):
                # The dead server's run took its first step (look), under its run id, then died.
                first = {"configurable": {"thread_id": tid, **conf}, "metadata": {"run_id": run_id}}
                await graph.ainvoke(hi, first, interrupt_before=["model"])
                dead = service.records.new(run_id, key, "seen", tid, Call(request), None)
                dead.replica = GONE
                assert await service.records.store.astart(dead) is None
            async with grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
                stub = pb_grpc.GraphServiceStub(channel)

                async def ended() -> pb.RunInfo | None:
                    got = await stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE)
                    return got if got.ended_at.seconds else None

                done = await until(ended, "the continued run to end")
                assert (done.status, done.attempts) == (pb.RUN_STATUS_SUCCESS, 2)
                state = json.loads((await stub.GetState(pb.GetStateRequest(graph="seen", thread_id=tid), timeout=DEADLINE)).values_json)
            assert len(state["seen"]) == 1  # look ran once, in the first attempt
            assert state["messages"][1]["content"] == "from the request"  # the model, in the continuation
            assert json.loads(state["messages"][2]["content"]) == {"thread_id": tid, "user_id": "recovered"}  # the tool
        finally:
            await srv.stop(grace=5)

    asyncio.run(body())
