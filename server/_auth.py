"""Bearer-token auth: a gRPC server interceptor (health checks stay open), and
the check itself, which the inspector's HTTP API shares.

Every RPC but health needs an accepted token, server reflection included
(any accepted token: the shared one, or any tenant's); a missing or wrong one
is UNAUTHENTICATED, whatever the method's shape."""

from __future__ import annotations

import hmac
from typing import Any, AsyncIterator, Awaitable, Callable, Mapping

import grpc

from server._tenants import TENANT

__all__ = ["TokenAuth", "Tokens", "bearer", "bearer_matches"]

_OPEN = ("/grpc.health.v1.Health/",)


def _deny(message: str, handler: grpc.RpcMethodHandler | None) -> grpc.RpcMethodHandler:
    """A handler of the same shape as ``handler`` that answers UNAUTHENTICATED.

    The shape must match the method's (reflection's is a bidirectional
    stream), or grpc fails the call with UNKNOWN instead.
    """

    async def refuse(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    if handler is None or not handler.request_streaming and not handler.response_streaming:
        return grpc.unary_unary_rpc_method_handler(refuse)
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(refuse)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(refuse)
    return grpc.unary_stream_rpc_method_handler(refuse)


def bearer(token: str) -> bytes:
    """The ``authorization`` value a caller must send."""
    return f"Bearer {token}".encode()


def bearer_matches(got: str | bytes | None, expected: bytes) -> bool:
    """Whether ``got`` is the expected ``authorization`` value (in constant time)."""
    if isinstance(got, str):
        got = got.encode()
    return hmac.compare_digest(got or b"", expected)


class Tokens:
    """The accepted tokens: the one shared ``auth_token`` (tenant None), or token → tenant."""

    def __init__(self, tokens: Mapping[str, str | None] | str) -> None:
        if isinstance(tokens, str):
            tokens = {tokens: None}
        self._expected = [(bearer(t), tenant) for t, tenant in tokens.items()]

    def tenant_of(self, got: str | bytes | None) -> tuple[bool, str | None]:
        """(whether the ``authorization`` value ``got`` is accepted, its token's tenant)."""
        # Compare with every token (constant time each) so timing does not tell which matched.
        found, tenant = False, None
        for expected, name in self._expected:
            if bearer_matches(got, expected):
                found, tenant = True, name
        return found, tenant


class TokenAuth(grpc.aio.ServerInterceptor):
    """Every call but health must carry ``authorization: Bearer <token>``.

    A call made with a tenant's token runs with :data:`server._tenants.TENANT`
    set to it.
    """

    def __init__(self, tokens: Tokens) -> None:
        self._tokens = tokens

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        if details.method.startswith(_OPEN):
            return await continuation(details)
        got = dict(details.invocation_metadata or ()).get("authorization", "")
        ok, tenant = self._tokens.tenant_of(got)
        handler = await continuation(details)
        if ok:
            return handler if tenant is None or handler is None else _as_tenant(handler, tenant)
        return _deny("missing bearer token" if not got else "wrong bearer token", handler)


def _as_tenant(handler: grpc.RpcMethodHandler, tenant: str) -> grpc.RpcMethodHandler:
    """``handler`` running with TENANT set (inside the call's own task and context).

    Request-streaming methods (server reflection's only: graphwire has none)
    touch no thread, so a tenant's token reaches them unchanged.
    """
    if handler.request_streaming:
        return handler
    if handler.response_streaming:
        inner_stream = handler.unary_stream

        async def stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            token = TENANT.set(tenant)
            try:
                result = inner_stream(request, context)
                if hasattr(result, "__aiter__"):
                    async for item in result:
                        yield item
                else:
                    await result
            finally:
                TENANT.reset(token)

        return grpc.unary_stream_rpc_method_handler(
            stream, request_deserializer=handler.request_deserializer, response_serializer=handler.response_serializer
        )
    inner_unary = handler.unary_unary

    async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
        token = TENANT.set(tenant)
        try:
            return await inner_unary(request, context)
        finally:
            TENANT.reset(token)

    return grpc.unary_unary_rpc_method_handler(
        unary, request_deserializer=handler.request_deserializer, response_serializer=handler.response_serializer
    )
