"""Bearer-token auth: a gRPC server interceptor (health checks stay open), and
the check itself, which the inspector's HTTP API shares."""

from __future__ import annotations

import hmac
from typing import Any, Awaitable, Callable

import grpc

__all__ = ["TokenAuth", "bearer", "bearer_matches"]

_OPEN = ("/grpc.health.v1.Health/",)


def _deny(message: str) -> grpc.RpcMethodHandler:
    async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    async def stream(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)
        yield  # pragma: no cover

    return grpc.unary_unary_rpc_method_handler(unary), grpc.unary_stream_rpc_method_handler(stream)  # type: ignore[return-value]


def bearer(token: str) -> bytes:
    """The ``authorization`` value a caller must send."""
    return f"Bearer {token}".encode()


def bearer_matches(got: str | bytes | None, expected: bytes) -> bool:
    """Whether ``got`` is the expected ``authorization`` value (in constant time)."""
    if isinstance(got, str):
        got = got.encode()
    return hmac.compare_digest(got or b"", expected)


class TokenAuth(grpc.aio.ServerInterceptor):
    """Every call but health must carry ``authorization: Bearer <token>``."""

    def __init__(self, token: str) -> None:
        self._expected = bearer(token)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        if details.method.startswith(_OPEN):
            return await continuation(details)
        got = dict(details.invocation_metadata or ()).get("authorization", "")
        if bearer_matches(got, self._expected):
            return await continuation(details)
        handler = await continuation(details)
        message = "missing bearer token" if not got else "wrong bearer token"
        unary, stream = _deny(message)
        if handler is not None and handler.response_streaming:
            return stream
        return unary
