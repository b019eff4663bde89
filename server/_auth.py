"""Bearer-token auth as a server interceptor (health checks stay open)."""

from __future__ import annotations

import hmac
from typing import Any, Awaitable, Callable

import grpc

__all__ = ["TokenAuth"]

_OPEN = ("/grpc.health.v1.Health/",)


def _deny(message: str) -> grpc.RpcMethodHandler:
    async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    async def stream(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)
        yield  # pragma: no cover

    return grpc.unary_unary_rpc_method_handler(unary), grpc.unary_stream_rpc_method_handler(stream)  # type: ignore[return-value]


class TokenAuth(grpc.aio.ServerInterceptor):
    """Every call but health must carry ``authorization: Bearer <token>``."""

    def __init__(self, token: str) -> None:
        self._expected = f"Bearer {token}".encode()

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        if details.method.startswith(_OPEN):
            return await continuation(details)
        got = dict(details.invocation_metadata or ()).get("authorization", "")
        if isinstance(got, str):
            got = got.encode()
        if hmac.compare_digest(got, self._expected):
            return await continuation(details)
        handler = await continuation(details)
        message = "missing bearer token" if not got else "wrong bearer token"
        unary, stream = _deny(message)
        if handler is not None and handler.response_streaming:
            return stream
        return unary
