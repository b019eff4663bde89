"""What every call goes through before and after its handler: the server's interceptors.

Handlers raise and never catch. :class:`Calls` wraps each GraphService method
(unary and streaming alike) so that:

* a failure becomes its status through the one table
  (:func:`server._errors.status_for`), mid-stream too; an INTERNAL one is
  logged with its traceback, which the caller never sees;
* the handler runs in the caller's trace context (W3C ``traceparent``
  metadata), so a run's span, and whatever else the call traces, is a child
  of the caller's span;
* a unary response larger than the server sends in one message is
  RESOURCE_EXHAUSTED naming what was too large (grpc would fail the call at
  send with a message saying nothing of it). A page of several messages is cut
  by :func:`page`, which tells the caller how to ask for less.

:class:`RejectMalformed` answers request bytes that do not parse.
"""

from __future__ import annotations

import logging
from contextvars import Token
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any, TypeVar

import grpc
from opentelemetry import context as otel_context
from opentelemetry import propagate

from graphwire_proto.v1 import graphwire_pb2 as pb
from server._errors import RpcError, cut, status_for
from server._telemetry import extract

__all__ = ["Calls", "RejectMalformed", "bad_text_field", "page", "too_large"]

log = logging.getLogger("graphwire.server")
M = TypeVar("M")

_SERVICE = "/" + pb.DESCRIPTOR.services_by_name["GraphService"].full_name + "/"


def too_large(thread_id: str, snap: pb.StateSnapshot, limit: int) -> RpcError:
    """RESOURCE_EXHAUSTED for a version that does not fit in one message."""
    return RpcError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"the state of thread {thread_id!r} at {snap.checkpoint.checkpoint_id} takes {snap.ByteSize()} bytes "
        f"as JSON, more than the server sends in one message ({limit}); max_state_bytes keeps threads under it",
    )


def page(
    messages: Iterable[M], limit: int, *, over: Callable[[int], str], alone: Callable[[M], RpcError] | None = None
) -> list[M]:
    """``messages`` as one response's repeated field, at most ``limit`` bytes in all.

    Past it: RESOURCE_EXHAUSTED with ``over(n)``, ``n`` the count that fit; or
    ``alone(first)`` when given and the first message alone is too large (no
    smaller page helps).
    """
    out: list[M] = []
    size = 0
    for m in messages:
        size += m.ByteSize() + 8  # type: ignore[attr-defined]  # the field's tag and length
        if size > limit:
            if not out and alone is not None:
                raise alone(m)
            raise RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, over(len(out)))
        out.append(m)
    return out


def _oversized(method: str, request: Any, response: Any, limit: int) -> RpcError:
    if isinstance(response, pb.StateSnapshot):
        return too_large(request.thread_id, response, limit)
    name = method.rsplit("/", 1)[-1]
    return RpcError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"the answer to {name} takes {response.ByteSize()} bytes, more than the server sends in one message ({limit})",
    )


async def _abort(context: grpc.aio.ServicerContext, exc: Exception) -> None:
    code, message = status_for(exc)
    if code == grpc.StatusCode.INTERNAL:
        log.exception("internal error", exc_info=exc)
    trailers = exc.trailers if isinstance(exc, RpcError) else ()
    await context.abort(code, message, trailing_metadata=trailers)


def _attach(context: grpc.aio.ServicerContext) -> Token[otel_context.Context] | None:
    """Enter the caller's trace context, when its metadata names one; the token to leave it."""
    metadata = context.invocation_metadata() or ()
    fields = propagate.get_global_textmap().fields
    if not any(k in fields for k, _ in metadata):
        return None
    return otel_context.attach(extract(metadata))


class Calls(grpc.aio.ServerInterceptor):
    """Status mapping, trace context and the response-size limit for every GraphService method.

    The innermost interceptor (the last in the server's list): it runs inside
    the call's tenant, right around the servicer's method.

    Args:
        max_response_bytes: the largest unary response sent (under the server's send limit).
    """

    def __init__(self, max_response_bytes: int) -> None:
        self.max_response_bytes = max_response_bytes

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or handler.request_streaming or not details.method.startswith(_SERVICE):
            return handler
        method = details.method
        limit = self.max_response_bytes
        if handler.response_streaming:
            inner_stream = handler.unary_stream

            async def stream(request: Any, context: grpc.aio.ServicerContext) -> None:
                token = _attach(context)
                try:
                    result = inner_stream(request, context)
                    if hasattr(result, "__aiter__"):
                        async for item in result:
                            await context.write(item)
                    else:  # the service's run RPCs write through context.write()
                        await result
                except grpc.aio.AbortError:
                    raise
                except Exception as exc:
                    await _abort(context, exc)
                finally:
                    if token is not None:
                        otel_context.detach(token)

            return grpc.unary_stream_rpc_method_handler(
                stream, request_deserializer=handler.request_deserializer, response_serializer=handler.response_serializer
            )
        inner_unary = handler.unary_unary

        async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
            token = _attach(context)
            try:
                response = await inner_unary(request, context)
                if response.ByteSize() > limit:
                    raise _oversized(method, request, response, limit)
                return response
            except grpc.aio.AbortError:
                raise
            except Exception as exc:
                await _abort(context, exc)
            finally:
                if token is not None:
                    otel_context.detach(token)

        return grpc.unary_unary_rpc_method_handler(
            unary, request_deserializer=handler.request_deserializer, response_serializer=handler.response_serializer
        )


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
    """Answer INVALID_ARGUMENT, not UNKNOWN (grpc's own answer), to request bytes that do not parse.

    The outermost interceptor. Wraps each unary-request handler: its
    deserializer returns a stand-in instead of raising, and the handler aborts
    on the stand-in before the servicer runs, naming the message type (or, for
    text that is not UTF-8, the field). Handlers without a deserializer (an
    interceptor's own denial) and streaming-request handlers pass through
    unchanged. Wrapping twice is harmless (an already lenient handler is left
    as it is).
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
