"""The HTTP API's app: LangGraph's Agent Server routes over a :class:`~server.service.GraphService`.

:func:`build_http_app` builds a FastAPI app (its OpenAPI document at
``/openapi.json``) whose routes call the gRPC servicer's parts, guarded by
:class:`TokenGuard`: the tokens the gRPC API accepts, read from the headers
LangGraph's SDKs send (``x-api-key``, or ``Authorization: Bearer``), the
caller's tenant set for the request (:data:`server._tenants.TENANT`).
"""

from __future__ import annotations

import importlib
from importlib import metadata as dist
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from server._auth import Tokens
from server._tenants import TENANT
from server.http import _errors
from server.http._common import SeenThreads
from server.service import GraphService

__all__ = ["ROUTES", "TokenGuard", "build_http_app"]

#: The route modules, each exposing ``router: fastapi.APIRouter``. The runs (``_runs``) and crons
#: (``_crons``) are written separately (issue 34): a module not present is skipped, and its paths
#: answer 404 saying they are not served yet. A request is matched against the routers in this
#: order, so the runs' (a chat's every turn) come first: ``/threads/{id}/runs/wait`` was matched
#: in ~11 µs instead of ~70 behind the others. No route of a router is taken by one of a router
#: before it (tests/http/test_routes.py), so the order changes no answer.
ROUTES = ("server.http._runs", "server.http._assistants", "server.http._threads", "server.http._thread_stream",
          "server.http._state", "server.http._store", "server.http._run_admin", "server.http._crons")  # fmt: skip
#: Paths open without a token: they tell nothing of any tenant's data.
OPEN = ("/ok", "/info", "/openapi.json")


class TokenGuard:
    """Every request but :data:`OPEN`'s needs an accepted token; the tenant is set while it is served.

    A pure ASGI middleware, so the tenant is set in the task that runs the
    route (and reset after it): what the route calls sees it as a gRPC
    handler does.
    """

    def __init__(self, app: ASGIApp, tokens: Tokens) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        key = headers.get("x-api-key")
        got = f"Bearer {key}" if key is not None else headers.get("authorization")
        ok, tenant = self.tokens.tenant_of(got)
        if not ok:
            detail = "missing token (send x-api-key or Authorization: Bearer)" if got is None else "wrong token"
            await JSONResponse({"detail": detail}, status_code=401, headers={"www-authenticate": "Bearer"})(scope, receive, send)
            return
        token = TENANT.set(tenant)
        try:
            await self.app(scope, receive, send)
        finally:
            TENANT.reset(token)


def _version() -> str:
    try:
        return dist.version("graphwire-server")
    except dist.PackageNotFoundError:
        return "unknown"


def build_http_app(service: GraphService, *, tokens: Tokens | None = None) -> FastAPI:
    """The HTTP API over ``service``; ``tokens``: the accepted ones (None: open, as the gRPC API is then)."""
    app = FastAPI(
        title="graphwire", version=_version(), docs_url=None, redoc_url=None,  # those pages load scripts from elsewhere
        description="LangGraph's Agent Server HTTP API, served by graphwire beside its gRPC API (docs/http.md).",
    )  # fmt: skip
    app.state.service = service
    app.state.seen_threads = SeenThreads()  # threads whose runs' starts check them in their writes (server.http._common)
    _errors.install(app)
    meta = APIRouter(tags=["system"])

    @meta.get("/ok")
    async def ok() -> dict[str, bool]:
        return {"ok": True}

    @meta.get("/info")
    async def info(request: Request) -> dict[str, Any]:
        served = request.app.state.route_modules
        return {
            "version": _version(), "server": "graphwire",
            "flags": {"assistants": True, "crons": "server.http._crons" in served, "langsmith": False, "langsmith_tracing_replicas": False},
            "metadata": {"graphs": sorted(service.graphs)},
        }  # fmt: skip

    app.include_router(meta)
    included = []
    for name in ROUTES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:  # the module is there, but something it imports is not
                raise
            continue
        app.include_router(module.router)
        included.append(name)
    app.state.route_modules = tuple(included)
    if tokens is not None:
        app.add_middleware(TokenGuard, tokens=tokens)
    return app
