"""Both Python clients against an in-process fake GraphService.

The fake answers with canned messages and records what it received, so these
tests check the client's side of the wire — requests, metadata, streaming,
cancellation, status codes — without the real server (tests/e2e has that).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import graphwire
import grpc
import pytest
from graphwire import FinishReason, InterruptEvent, RunFinished, RunStarted, ValuesEvent
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc


def payload(value: Any) -> str:
    return json.dumps(value)


class FakeGraphService(pb_grpc.GraphServiceServicer):
    def __init__(self) -> None:
        self.requests: list[Any] = []
        self.metadata: list[dict[str, str]] = []
        self.stream_cancelled = threading.Event()
        self.release = threading.Event()

    def _record(self, request: Any, context: grpc.ServicerContext) -> None:
        self.requests.append(request)
        self.metadata.append(dict(context.invocation_metadata()))

    def Invoke(self, request: pb.InvokeRequest, context: grpc.ServicerContext) -> Iterator[pb.RunEvent]:
        self._record(request, context)
        if request.thread_id == "slow":  # one event, then wait until cancelled
            context.add_callback(self.stream_cancelled.set)
            yield pb.RunEvent(seq=1, run_id="r9", run_started=pb.RunStarted(run_id="r9", thread_id="slow"))
            self.release.wait(10)
            return
        if request.thread_id == "breaks":
            yield pb.RunEvent(seq=1, run_id="r2", run_started=pb.RunStarted(run_id="r2", thread_id="breaks"))
            context.abort(grpc.StatusCode.INTERNAL, "lost the checkpointer")
        question = pb.Interrupt(interrupt_id="i1", node="ask", task_id="k1", value_json=payload("Add it?"))
        yield pb.RunEvent(
            seq=1, run_id="r1", run_started=pb.RunStarted(run_id="r1", thread_id=request.thread_id, graph="g")
        )
        yield pb.RunEvent(seq=2, run_id="r1", values=pb.Values(step=-1, values_json=request.input_json))
        yield pb.RunEvent(seq=3, run_id="r1", interrupt=question)
        yield pb.RunEvent(
            seq=4,
            run_id="r1",
            run_finished=pb.RunFinished(
                reason=pb.FINISH_REASON_INTERRUPT,
                checkpoint=pb.CheckpointRef(checkpoint_id="c1", step=0, source="loop", next=["ask"]),
                values_json=request.input_json,
                interrupts=[question],
            ),
        )

    def Resume(self, request: pb.ResumeRequest, context: grpc.ServicerContext) -> Iterator[pb.RunEvent]:
        self._record(request, context)
        if request.thread_id == "idle":
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, "thread 'idle' has no pending interrupt")
        yield pb.RunEvent(
            seq=1,
            run_id="r3",
            run_finished=pb.RunFinished(
                reason=pb.FINISH_REASON_ERROR,
                values_json=request.resume_json,
                error=pb.ErrorInfo(type="ValueError", message="no such day"),
            ),
        )

    def GetState(self, request: pb.GetStateRequest, context: grpc.ServicerContext) -> pb.StateSnapshot:
        self._record(request, context)
        if request.thread_id != "t1":
            context.set_trailing_metadata((("graphwire-field", "thread_id"),))
            context.abort(grpc.StatusCode.NOT_FOUND, f"unknown thread {request.thread_id!r}")
        return pb.StateSnapshot(
            values_json=payload({"n": 2**70}),
            next=[],
            checkpoint=pb.CheckpointRef(checkpoint_id=request.checkpoint_id or "c9", parent_id="c8"),
        )

    def ListHistory(self, request: pb.ListHistoryRequest, context: grpc.ServicerContext) -> pb.ListHistoryResponse:
        self._record(request, context)
        return pb.ListHistoryResponse(
            snapshots=[pb.StateSnapshot(checkpoint=pb.CheckpointRef(checkpoint_id=c)) for c in ("c2", "c1")]
        )

    def UpdateState(self, request: pb.UpdateStateRequest, context: grpc.ServicerContext) -> pb.UpdateStateResponse:
        self._record(request, context)
        return pb.UpdateStateResponse(checkpoint=pb.CheckpointRef(checkpoint_id="c3", parent_id="c2", source="update"))

    def ListGraphs(self, request: pb.ListGraphsRequest, context: grpc.ServicerContext) -> pb.ListGraphsResponse:
        self._record(request, context)
        return pb.ListGraphsResponse(graphs=[pb.GraphInfo(name="reminders", nodes=[pb.GraphNode(name="ask")])])

    def GetGraph(self, request: pb.GetGraphRequest, context: grpc.ServicerContext) -> pb.GraphInfo:
        self._record(request, context)
        return pb.GraphInfo(name=request.graph, edges=[pb.GraphEdge(source="__start__", target="ask")])

    def CancelRun(self, request: pb.CancelRunRequest, context: grpc.ServicerContext) -> pb.CancelRunResponse:
        self._record(request, context)
        return pb.CancelRunResponse(cancelled=request.run_id == "r9")

    def DeleteThread(self, request: pb.DeleteThreadRequest, context: grpc.ServicerContext) -> pb.DeleteThreadResponse:
        self._record(request, context)
        return pb.DeleteThreadResponse()


@pytest.fixture
def service() -> Iterator[FakeGraphService]:
    yield FakeGraphService()


@pytest.fixture
def address(service: FakeGraphService) -> Iterator[str]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    pb_grpc.add_GraphServiceServicer_to_server(service, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        service.release.set()
        server.stop(grace=None)


# -- the blocking client ------------------------------------------------------------


def test_invoke_returns_the_run_result(address: str, service: FakeGraphService) -> None:
    with graphwire.Client(address) as client:
        result = client.invoke("g", "t1", {"messages": [{"content": "remind me"}]}, event_kinds=["values"])
    assert result.reason is FinishReason.INTERRUPT and result.interrupted
    assert result.run_id == "r1" and result.thread_id == "t1"
    assert result.interrupts == (graphwire.Interrupt("i1", "ask", "k1", "Add it?"),)
    assert result.values == {"messages": [{"content": "remind me"}]}
    assert result.checkpoint is not None and result.checkpoint.next == ("ask",)
    assert [type(e) for e in result.events] == [RunStarted, ValuesEvent, InterruptEvent, RunFinished]
    (request,) = service.requests
    assert list(request.event_kinds) == [pb.EVENT_KIND_VALUES]


def test_stream_yields_typed_events(address: str) -> None:
    with graphwire.Client(address) as client:
        events = list(client.stream("g", "t1", {"x": 1}))
    assert [e.seq for e in events] == [1, 2, 3, 4]
    assert isinstance(events[2], InterruptEvent) and events[2].value == "Add it?"


def test_token_and_extra_metadata_are_sent(address: str, service: FakeGraphService) -> None:
    traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    with graphwire.Client(address, token="s3cret") as client:
        client.graphs(metadata=[("traceparent", traceparent)])
        client.invoke("g", "t1", None, metadata=[("traceparent", traceparent)])
    for sent in service.metadata:
        assert sent["authorization"] == "Bearer s3cret"
        assert sent["traceparent"] == traceparent
        assert sent["user-agent"].startswith(f"graphwire-python/{graphwire.__version__}")


def test_a_node_error_is_a_result(address: str, service: FakeGraphService) -> None:
    with graphwire.Client(address) as client:
        result = client.resume("g", "t1", {"day": "someday"})
    assert result.reason is FinishReason.ERROR
    assert result.error == graphwire.ErrorInfo("ValueError", "no such day")
    assert result.values == {"day": "someday"}
    assert service.requests[0].resume_json == '{"day":"someday"}'


def test_status_codes_raise_typed_errors(address: str) -> None:
    with graphwire.Client(address) as client:
        with pytest.raises(graphwire.NotFound) as caught:
            client.get_state("g", "nope")
        assert caught.value.message == "unknown thread 'nope'"
        assert caught.value.details["graphwire-field"] == "thread_id"
        with pytest.raises(graphwire.FailedPrecondition, match="no pending interrupt"):
            client.resume("g", "idle", "yes")
        with pytest.raises(graphwire.Internal, match="lost the checkpointer"):
            list(client.stream("g", "breaks", None))


def test_unreachable_server_is_unavailable() -> None:
    with graphwire.Client("127.0.0.1:1") as client:
        with pytest.raises(graphwire.Unavailable):
            client.graphs(timeout=5)


def test_leaving_a_stream_early_cancels_the_call(address: str, service: FakeGraphService) -> None:
    with graphwire.Client(address) as client:
        stream = client.stream("g", "slow", None)
        first = next(stream)
        assert isinstance(first, RunStarted)
        stream.close()  # what breaking out of a for loop does
        assert service.stream_cancelled.wait(5), "the server never saw the cancellation"


def test_a_deadline_raises_deadline_exceeded(address: str) -> None:
    with graphwire.Client(address) as client:
        with pytest.raises(graphwire.DeadlineExceeded):
            client.invoke("g", "slow", None, timeout=0.2)


def test_unary_calls_round_trip(address: str, service: FakeGraphService) -> None:
    with graphwire.Client(address) as client:
        snapshot = client.get_state("g", "t1", "c5")
        assert snapshot.values == {"n": 2**70}
        assert snapshot.checkpoint.checkpoint_id == "c5" and snapshot.checkpoint.parent_id == "c8"

        history = client.history("g", "t1", limit=2, before="c3", filter={"source": "loop"})
        assert [s.checkpoint.checkpoint_id for s in history] == ["c2", "c1"]

        ref = client.update_state("g", "t1", {"x": 1}, as_node="ask")
        assert (ref.checkpoint_id, ref.parent_id, ref.source) == ("c3", "c2", "update")

        assert [g.name for g in client.graphs()] == ["reminders"]
        assert client.graph("reminders").edges == (graphwire.GraphEdge("__start__", "ask", False, None),)
        assert client.cancel("g", "t1", run_id="r9") is True
        assert client.cancel("g", "t1") is False
        assert client.delete_thread("g", "t1") is None

    history_request = service.requests[1]
    assert (history_request.limit, history_request.before) == (2, "c3")
    assert json.loads(history_request.filter_json) == {"source": "loop"}
    assert service.requests[2].as_node == "ask"


# -- the asyncio client --------------------------------------------------------------


def test_async_client_invoke_stream_and_errors(address: str, service: FakeGraphService) -> None:
    async def main() -> None:
        async with graphwire.AsyncClient(address, token="s3cret") as client:
            result = await client.invoke("g", "t1", {"x": 1})
            assert result.reason is FinishReason.INTERRUPT
            assert result.interrupts[0].value == "Add it?"

            kinds = [type(e) async for e in client.stream("g", "t1", {"x": 1})]
            assert kinds == [RunStarted, ValuesEvent, InterruptEvent, RunFinished]

            snapshot = await client.get_state("g", "t1")
            assert snapshot.values == {"n": 2**70}
            with pytest.raises(graphwire.NotFound):
                await client.get_state("g", "nope")
            with pytest.raises(graphwire.Internal):
                async for _ in client.stream("g", "breaks", None):
                    pass

    asyncio.run(main())
    assert all(m["authorization"] == "Bearer s3cret" for m in service.metadata)


def test_async_client_leaving_a_stream_cancels_the_call(address: str, service: FakeGraphService) -> None:
    async def main() -> None:
        async with graphwire.AsyncClient(address) as client:
            stream = client.stream("g", "slow", None)
            first = await anext(stream)
            assert isinstance(first, RunStarted)
            await stream.aclose()  # type: ignore[attr-defined]

    asyncio.run(main())
    assert service.stream_cancelled.wait(5), "the server never saw the cancellation"
