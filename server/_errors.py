"""The one table from failures to gRPC status codes.

Handlers raise; :func:`status_for` decides the code. Engine errors are mapped
by class (most specific first); anything unexpected is INTERNAL with the
exception's type in the message (the traceback goes to the server log, not to
the caller).

Storage: a write fenced off because the run lost its thread's lease to another
replica is ABORTED (as a busy thread is); any other checkpointer failure (the
database refused the connection, dropped it, shut down) is UNAVAILABLE, its
message starting "checkpointer unavailable: ", and the call may be retried.
A state or metadata over a saver's size limit is RESOURCE_EXHAUSTED.

A request whose bytes do not parse as its protobuf message never reaches a
handler: grpc's own answer would be UNKNOWN. :class:`RejectMalformed`, a
server interceptor, answers INVALID_ARGUMENT instead, naming the message type.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from engine import errors as E
from engine.serde import StateTooLargeError
from server._json import PayloadError

__all__ = ["RejectMalformed", "RpcError", "status_for", "TABLE"]


class RpcError(Exception):
    """A failure the handler already knows the status code of."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# Checked in order: the first matching class wins.
TABLE: tuple[tuple[type[BaseException], grpc.StatusCode], ...] = (
    (E.NotFoundError, grpc.StatusCode.NOT_FOUND),
    (E.InvalidResumeError, grpc.StatusCode.FAILED_PRECONDITION),
    (E.EmptyInputError, grpc.StatusCode.FAILED_PRECONDITION),
    (E.InvalidUpdateError, grpc.StatusCode.INVALID_ARGUMENT),
    (StateTooLargeError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (E.SerializationError, grpc.StatusCode.INVALID_ARGUMENT),
    (PayloadError, grpc.StatusCode.INVALID_ARGUMENT),
    (E.CorruptCheckpointError, grpc.StatusCode.DATA_LOSS),
    (E.LeaseLostError, grpc.StatusCode.ABORTED),
    (E.CheckpointError, grpc.StatusCode.UNAVAILABLE),
    (E.GraphDefinitionError, grpc.StatusCode.INVALID_ARGUMENT),
    (ValueError, grpc.StatusCode.INVALID_ARGUMENT),
)


_UNAVAILABLE = "checkpointer unavailable: "


def status_for(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    if isinstance(exc, RpcError):
        return exc.code, exc.message
    for cls, code in TABLE:
        if isinstance(exc, cls):
            message = str(exc) or type(exc).__name__
            if code == grpc.StatusCode.UNAVAILABLE and not message.startswith(_UNAVAILABLE):
                message = _UNAVAILABLE + message
            return code, message
    return grpc.StatusCode.INTERNAL, f"internal error ({type(exc).__name__}); see the server log"


class _Malformed:
    """Stands in for a request whose bytes did not parse; the handler is never called with it."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


def _lenient(deserialize: Callable[[bytes], Any], method: str) -> Callable[[bytes], Any]:
    def parse(data: bytes) -> Any:
        try:
            return deserialize(data)
        except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError, or whatever a deserializer raises
            return _Malformed(f"the request is not a valid {method.rsplit('/', 1)[-1]} message: {exc}")

    parse.graphwire_lenient = True  # type: ignore[attr-defined]
    return parse


class RejectMalformed(grpc.aio.ServerInterceptor):
    """Answer INVALID_ARGUMENT, not UNKNOWN, to request bytes that do not parse.

    Wraps each unary-request handler: its deserializer returns a stand-in
    instead of raising, and the handler aborts on the stand-in before the
    servicer runs. Handlers without a deserializer (an interceptor's own
    denial) and streaming-request handlers pass through unchanged. Wrapping
    twice is harmless (an already lenient handler is left as it is).
    """

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or handler.request_streaming:
            return handler
        deserialize = handler.request_deserializer
        if deserialize is None or getattr(deserialize, "graphwire_lenient", False):
            return handler
        parse = _lenient(deserialize, details.method)
        if handler.response_streaming:
            inner_stream = handler.unary_stream

            async def stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                if isinstance(request, _Malformed):
                    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
                result = inner_stream(request, context)
                if hasattr(result, "__aiter__"):
                    async for item in result:
                        yield item
                else:  # a handler that streams through context.write() (e.g. health Watch)
                    await result

            return grpc.unary_stream_rpc_method_handler(
                stream, request_deserializer=parse, response_serializer=handler.response_serializer
            )
        inner_unary = handler.unary_unary

        async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
            if isinstance(request, _Malformed):
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
            return await inner_unary(request, context)

        return grpc.unary_unary_rpc_method_handler(
            unary, request_deserializer=parse, response_serializer=handler.response_serializer
        )
