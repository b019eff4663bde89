"""The run routes served for a test: a bare FastAPI app with the routes, on uvicorn (port 0), over a
graphwire service on SQLite in the test's event loop.

Until the HTTP face's own app is merged, the app here stands in for it: the
service as ``app.state.service``, the caller's tenant from an ``x-tenant``
header, and failures answered with the HTTP status of their gRPC status
(``{"detail": message}``), as the face maps them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import uvicorn
from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse

from engine.checkpoint import SqliteSaver
from server._errors import status_for
from server._tenants import TENANT
from server.app import Server, build_server
from server.config import ServerConfig
from server.http._runs import router

__all__ = ["GRAPHS", "Served", "serving"]

GRAPHS = {
    "sse": "tests.http._sse_graphs:graph", "broken": "tests.http._sse_graphs:broken",
    "gated": "tests.graphs:gated", "chain3": "tests.graphs:chain3",
}  # fmt: skip
_HTTP = {
    grpc.StatusCode.NOT_FOUND: 404, grpc.StatusCode.INVALID_ARGUMENT: 422, grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.FAILED_PRECONDITION: 409, grpc.StatusCode.ALREADY_EXISTS: 409, grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.UNAVAILABLE: 503, grpc.StatusCode.UNAUTHENTICATED: 401, grpc.StatusCode.PERMISSION_DENIED: 403,
}  # fmt: skip


class Served:
    """A served app: its URL and the graphwire server behind it."""

    def __init__(self, url: str, srv: Server) -> None:
        self.url, self.srv = url, srv

    @property
    def service(self) -> Any:
        return self.srv.service


class _Tenant:
    """The caller's tenant from its ``x-tenant`` header, for the request's whole life (its stream too)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        named = dict(scope.get("headers") or ()).get(b"x-tenant")
        token = TENANT.set(named.decode() if named else None)
        try:
            await self.app(scope, receive, send)
        finally:
            TENANT.reset(token)


def app_for(srv: Server) -> FastAPI:
    app = FastAPI()
    app.state.service = srv.service

    app.add_middleware(_Tenant)

    @app.exception_handler(Exception)
    async def failed(request: Request, exc: Exception) -> Response:
        code, message = status_for(exc)
        return JSONResponse({"detail": message}, status_code=_HTTP.get(code, 500))

    app.include_router(router)
    return app


@contextlib.asynccontextmanager
async def serving(tmp_path: Path) -> AsyncIterator[Served]:
    srv = await build_server(ServerConfig(address="127.0.0.1:0", graphs=dict(GRAPHS)), checkpointer=SqliteSaver(str(tmp_path / "gw.db")))
    web = uvicorn.Server(uvicorn.Config(app_for(srv), host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
    task = asyncio.get_running_loop().create_task(web.serve())
    try:
        while not web.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        port = web.servers[0].sockets[0].getsockname()[1]
        yield Served(f"http://127.0.0.1:{port}", srv)
    finally:
        web.should_exit = True
        await task
        await srv.stop(grace=5)
