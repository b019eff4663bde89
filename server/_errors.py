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
The store likewise: a store item that does not decode is DATA_LOSS, any
other store failure UNAVAILABLE, its message starting "store unavailable: ".

A request whose bytes do not parse as its protobuf message never reaches a
handler: grpc's own answer would be UNKNOWN. :class:`RejectMalformed`, a
server interceptor, answers INVALID_ARGUMENT instead, naming the message type
(or, for text that is not UTF-8, the field).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from engine import errors as E
from engine.serde import StateTooLargeError
from server._json import PayloadError

__all__ = ["MAX_MESSAGE_BYTES", "RejectMalformed", "RpcError", "cut", "status_for", "TABLE"]


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
    (E.CorruptItemError, grpc.StatusCode.DATA_LOSS),
    (E.LeaseLostError, grpc.StatusCode.ABORTED),
    (E.CheckpointError, grpc.StatusCode.UNAVAILABLE),
    (E.StoreError, grpc.StatusCode.UNAVAILABLE),
    (E.GraphDefinitionError, grpc.StatusCode.INVALID_ARGUMENT),
    (ValueError, grpc.StatusCode.INVALID_ARGUMENT),
)


#: The longest status message sent, in UTF-8 bytes. It travels in the call's
#: trailers, percent-encoded (up to 3 bytes per byte); a client refuses trailers
#: past its metadata limit (8 KiB for grpcio) and reports RESOURCE_EXHAUSTED
#: instead of the status, so longer messages are cut.
MAX_MESSAGE_BYTES = 1024


def _unavailable(exc: BaseException) -> str:
    return "store unavailable: " if isinstance(exc, E.StoreError) else "checkpointer unavailable: "


def status_for(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and (cut to :data:`MAX_MESSAGE_BYTES`) message for ``exc``."""
    code, message = _status(exc)
    return code, cut(message)


def cut(message: str) -> str:
    """``message``, at most :data:`MAX_MESSAGE_BYTES` bytes of UTF-8, saying what was cut."""
    data = message.encode("utf-8", "replace")
    if len(data) <= MAX_MESSAGE_BYTES:
        return message
    keep = data[: MAX_MESSAGE_BYTES - 48].decode("utf-8", "ignore")
    return f"{keep}… ({len(message) - len(keep)} more characters cut)"


def _status(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    if isinstance(exc, RpcError):
        return exc.code, exc.message
    for cls, code in TABLE:
        if isinstance(exc, cls):
            message = str(exc) or type(exc).__name__
            if code == grpc.StatusCode.UNAVAILABLE and not message.startswith(prefix := _unavailable(exc)):
                message = prefix + message
            return code, message
    return grpc.StatusCode.INTERNAL, f"internal error ({type(exc).__name__}); see the server log"


class _Malformed:
    """Stands in for a request whose bytes did not parse; the handler is never called with it."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if i >= len(data) or shift > 63:
            raise ValueError("truncated varint")
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if not byte & 0x80:
            return value, i


def bad_text_field(descriptor: Any, data: bytes, prefix: str = "") -> str | None:
    """The path of the first ``string`` field in ``data`` that is not UTF-8.

    protobuf refuses such a message whole ("String field had bad UTF-8"); a
    caller who put non-UTF-8 bytes in ``input_json`` should hear which field.
    A walk of the wire format, by the message's descriptor; None when nothing
    is found (or the bytes are broken some other way).
    """
    i = 0
    try:
        while i < len(data):
            key, i = _varint(data, i)
            number, wire = key >> 3, key & 7
            if wire == 0:
                _, i = _varint(data, i)
            elif wire == 1:
                i += 8
            elif wire == 5:
                i += 4
            elif wire == 2:
                size, i = _varint(data, i)
                chunk, i = data[i : i + size], i + size
                field = descriptor.fields_by_number.get(number)
                if field is None:
                    continue
                name = f"{prefix}{field.name}"
                if field.type == field.TYPE_STRING:
                    try:
                        chunk.decode("utf-8")
                    except UnicodeDecodeError:
                        return name
                elif field.type == field.TYPE_MESSAGE:
                    entry = field.message_type.GetOptions().map_entry
                    found = bad_text_field(field.message_type, chunk, name if entry else f"{name}.")
                    if found is not None:
                        return name if entry else found
            else:
                return None
    except ValueError:
        return None
    return None


def _lenient(deserialize: Callable[[bytes], Any], method: str) -> Callable[[bytes], Any]:
    message_class = getattr(deserialize, "__self__", None)
    descriptor = getattr(message_class, "DESCRIPTOR", None)

    def parse(data: bytes) -> Any:
        try:
            return deserialize(data)
        except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError, or whatever a deserializer raises
            field = bad_text_field(descriptor, data) if descriptor is not None else None
            if field is not None:
                return _Malformed(cut(f"{field}: not UTF-8 text (every string field, JSON texts included, must be UTF-8)"))
            name = descriptor.full_name if descriptor is not None else f"{method} request"
            return _Malformed(cut(f"the request's bytes do not parse as a {name} protobuf message ({exc})"))

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
