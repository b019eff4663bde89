"""server._calls.Calls: what every GraphService call goes through, on a servicer of its own.

The servicer's handlers raise and never catch; the interceptor gives each
failure its status from the one table (mid-stream too), runs the handler in
the caller's trace context, and refuses a unary answer too large to send.
Health and reflection pass through untouched.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from opentelemetry import trace

from engine import errors as E
from server._calls import Calls, RejectMalformed

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
SPAN_ID = "b7ad6b7169203331"


class Raising(pb_grpc.GraphServiceServicer):
    """Handlers that fail the way the real ones do: by raising."""

    def __init__(self) -> None:
        self.trace_ids: list[str] = []

    async def GetState(self, request: pb.GetStateRequest, context: Any) -> pb.StateSnapshot:
        span = trace.get_current_span().get_span_context()
        self.trace_ids.append(format(span.trace_id, "032x") if span.is_valid else "")
        if request.thread_id == "missing":
            raise E.NotFoundError(f"thread {request.thread_id!r} does not exist")
        if request.thread_id == "big":
            return pb.StateSnapshot(values_json="x" * 5000, checkpoint=pb.CheckpointRef(checkpoint_id="c1"))
        if request.thread_id == "bug":
            raise KeyError("a bug")
        return pb.StateSnapshot(values_json="{}")

    async def ListGraphs(self, request: pb.ListGraphsRequest, context: Any) -> pb.ListGraphsResponse:
        return pb.ListGraphsResponse(graphs=[pb.GraphInfo(name="x" * 5000)])

    async def Invoke(self, request: pb.InvokeRequest, context: Any) -> None:
        await context.write(pb.RunEvent(seq=1))
        raise E.InvalidResumeError("nothing is pending")  # after an event was sent


async def _serve(servicer: Raising) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server(interceptors=[RejectMalformed(), Calls(max_response_bytes=4096)])
    pb_grpc.add_GraphServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


async def _calls(servicer: Raising) -> dict[str, Any]:
    server, port = await _serve(servicer)
    out: dict[str, Any] = {}
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.GraphServiceStub(channel)

            async def status(call: Any) -> tuple[grpc.StatusCode, str]:
                try:
                    await call
                except grpc.aio.AioRpcError as exc:
                    return exc.code(), exc.details() or ""
                return grpc.StatusCode.OK, ""

            traceparent = (("traceparent", f"00-{TRACE_ID}-{SPAN_ID}-01"),)
            out["ok"] = await status(stub.GetState(pb.GetStateRequest(thread_id="t"), metadata=traceparent))
            out["missing"] = await status(stub.GetState(pb.GetStateRequest(thread_id="missing")))
            out["bug"] = await status(stub.GetState(pb.GetStateRequest(thread_id="bug")))
            out["big"] = await status(stub.GetState(pb.GetStateRequest(thread_id="big")))
            out["big_list"] = await status(stub.ListGraphs(pb.ListGraphsRequest()))

            async def stream() -> tuple[list[pb.RunEvent], tuple[grpc.StatusCode, str]]:
                got: list[pb.RunEvent] = []
                call: AsyncIterator[pb.RunEvent] = stub.Invoke(pb.InvokeRequest())
                try:
                    async for e in call:
                        got.append(e)
                except grpc.aio.AioRpcError as exc:
                    return got, (exc.code(), exc.details() or "")
                return got, (grpc.StatusCode.OK, "")

            out["stream"] = await stream()
    finally:
        await server.stop(None)
    return out


@pytest.fixture(scope="module")
def seen() -> tuple[Raising, dict[str, Any]]:
    servicer = Raising()
    return servicer, asyncio.run(_calls(servicer))


def test_a_raised_engine_error_gets_its_status_from_the_table(seen: tuple[Raising, dict[str, Any]]) -> None:
    _, out = seen
    assert out["ok"] == (grpc.StatusCode.OK, "")
    assert out["missing"] == (grpc.StatusCode.NOT_FOUND, "thread 'missing' does not exist")


def test_an_unexpected_error_is_internal_naming_only_its_type(seen: tuple[Raising, dict[str, Any]]) -> None:
    _, out = seen
    assert out["bug"] == (grpc.StatusCode.INTERNAL, "internal error (KeyError); see the server log")


def test_a_stream_failing_after_an_event_ends_with_that_status(seen: tuple[Raising, dict[str, Any]]) -> None:
    _, out = seen
    events, status = out["stream"]
    assert [e.seq for e in events] == [1]
    assert status == (grpc.StatusCode.FAILED_PRECONDITION, "nothing is pending")


def test_a_unary_answer_too_large_to_send_is_resource_exhausted_naming_it(seen: tuple[Raising, dict[str, Any]]) -> None:
    _, out = seen
    code, message = out["big"]
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert message.startswith("the state of thread 'big' at c1 takes ") and "more than the server sends in one message (4096)" in message
    code, message = out["big_list"]
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert message.startswith("the answer to ListGraphs takes ") and message.endswith("(4096)")


def test_the_handler_runs_in_the_callers_trace_context(seen: tuple[Raising, dict[str, Any]]) -> None:
    servicer, _ = seen
    # The first call sent a traceparent; the others did not, and see no trace.
    assert servicer.trace_ids[0] == TRACE_ID
    assert set(servicer.trace_ids[1:]) == {""}


def test_internal_errors_are_logged_with_their_traceback(caplog: pytest.LogCaptureFixture) -> None:
    servicer = Raising()

    async def one() -> grpc.StatusCode:
        server, port = await _serve(servicer)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                try:
                    await pb_grpc.GraphServiceStub(channel).GetState(pb.GetStateRequest(thread_id="bug"))
                except grpc.aio.AioRpcError as exc:
                    return exc.code()
                return grpc.StatusCode.OK
        finally:
            await server.stop(None)

    with caplog.at_level(logging.ERROR, logger="graphwire.server"):
        assert asyncio.run(one()) == grpc.StatusCode.INTERNAL
    logged = [r for r in caplog.records if r.name == "graphwire.server" and r.exc_info]
    assert logged and logged[0].exc_info[0] is KeyError  # type: ignore[index]
