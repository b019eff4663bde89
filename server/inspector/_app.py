"""The inspector's ASGI app: the page, its read-only JSON API and its event stream.

    GET /                                   the page (static/index.html)
    GET /static/...                         its CSS and JS
    GET /api/graphs                         [{name, description}] in name order
    GET /api/graph?name=G                   nodes and edges, for drawing
    GET /api/threads?graph=G[&limit=N][&metadata=JSON][&status=S...]
                                            the graph's threads, most recently written first (each with
                                            the interrupt its newest version waits at, if any, and its
                                            record's status and metadata); with metadata (contained in
                                            theirs) or status: the records matching, most recently updated first
    GET /api/history?graph=G&thread=T[&checkpoint_ns=NS]
                                            the thread's versions, oldest first, every branch (or
                                            a subgraph's, under a task's checkpoint_ns)
    GET /api/version?graph=G&thread=T&checkpoint=C[&checkpoint_ns=NS]
                                            one version: values, metadata, tasks (a subgraph's
                                            with its checkpoint_ns), writes
    GET /api/runs?graph=G&thread=T          the thread's runs from the run records (every replica's),
                                            newest first, with this server's replica id and clock
    GET /api/live                           the runs in flight
    GET /api/events                         server-sent events from the run hub

Reads go through :class:`server._reads.Reads`, the code the RPCs use, so a
status the gRPC API would answer maps onto HTTP here (NOT_FOUND → 404,
INVALID_ARGUMENT → 400, …; a checkpointer that cannot list threads → 501).

Auth: with a token, every ``/api/`` request needs ``Authorization: Bearer
<token>`` (the same check as the gRPC interceptor). With tenants, a tenant's
token serves the request as that tenant (:data:`server._tenants.TENANT` set
around it, as the interceptor sets it around a call), so its reads address
that tenant's threads exactly as its RPCs do: another tenant's thread answers
as one that does not exist, and the live runs and the event stream hold that
tenant's runs only (see :class:`server._hub.RunHub`). The page and its static
files carry no data and are served without it; the page takes the token once
from ``?token=`` (or asks for it), keeps it in ``sessionStorage`` and sends it
as that header, so it is not in later URLs, logs or referrers. The event
stream is read with ``fetch`` rather than ``EventSource``, which cannot send
headers.

On a loopback address only ``Host: localhost / 127.0.0.1 / [::1]`` is served:
a page on another site cannot reach the API by rebinding its DNS name.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

import grpc
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.checkpoint.base import ThreadInfo
from engine.errors import CheckpointError, NotFoundError
from server._auth import Tokens
from server._errors import status_for
from server._hub import RunHub
from server._json import encode
from server._reads import Reads
from server._requests import bad, ident, namespace
from server._tenants import TENANT
from server.inspector import _views as views

__all__ = ["STATIC", "RunRecords", "build_app"]

log = logging.getLogger("graphwire.inspector")

STATIC = Path(__file__).resolve().parent / "static"
#: Seconds between comments on a quiet event stream: keeps proxies from
#: closing it, and finds a client that went away (the write fails).
KEEPALIVE_SECONDS = 15.0
DEFAULT_THREADS = 200

_HTTP_STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 413,
    grpc.StatusCode.UNAVAILABLE: 503,
}
_PAGE_HEADERS = {
    # Everything the page loads comes from here: no CDN, works offline.
    "content-security-policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "cache-control": "no-cache",
}
_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})


class RunRecords(Protocol):
    """Where the calls time line reads runs: the records every replica writes (``ListRuns``'s source)."""

    #: This server's replica id, as run records name it.
    replica: str

    async def list_runs(self, graph: str, thread_id: str) -> Sequence[Any]:
        """The thread's runs as ``RunInfo`` messages, newest first (raising as ``ListRuns`` would)."""
        ...


class ThreadRecords(Protocol):
    """Where the thread list reads threads' status and metadata, and searches them: their records."""

    async def records_of(self, graph: str, thread_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The records of these threads of ``graph`` (those that have one), by thread id."""
        ...

    async def search(self, graph: str, *, metadata: dict[str, Any] | None, statuses: tuple[str, ...], limit: int) -> list[dict[str, Any]]:
        """``graph``'s threads whose metadata contains ``metadata`` and status is one of ``statuses``
        (empty: any), most recently updated first: ``{thread_id, updated_at, status, metadata}``."""
        ...


def _json(value: Any, status: int = 200) -> Response:
    return Response(encode(value), status, media_type="application/json")


def _error(exc: BaseException) -> Response:
    if isinstance(exc, NotImplementedError):
        return _json({"error": "UNIMPLEMENTED", "message": str(exc)}, 501)
    code, message = status_for(exc)
    if code == grpc.StatusCode.INTERNAL:
        log.error("inspector: internal error", exc_info=exc)
    return _json({"error": code.name, "message": message}, _HTTP_STATUS.get(code, 500))


def _api(handler: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
    @functools.wraps(handler)
    async def endpoint(request: Request) -> Response:
        try:
            return _json(await handler(request))
        except Exception as exc:  # noqa: BLE001 - every failure becomes a JSON error
            return _error(exc)

    return endpoint


def _param(request: Request, name: str) -> str:
    """A query parameter naming a graph, thread or version, checked as the RPCs check ids."""
    value = request.query_params.get(name)
    if value is None:
        raise bad(name, "required (a query parameter)")
    return ident(value, name)


def _int_param(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise bad(name, f"not an integer: {raw!r}") from None
    if value < 1:
        raise bad(name, "must be at least 1")
    return value


class _Guard:
    """Host check, bearer auth on ``/api/`` (as the token's tenant), and response headers, around the app."""

    def __init__(self, app: ASGIApp, tokens: Tokens | None, loopback: bool) -> None:
        self.app = app
        self.tokens = tokens
        self.loopback = loopback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        path: str = scope["path"]
        if self.loopback and _host_name(headers.get("host", "")) not in _LOOPBACK_HOSTS:
            await _json({"error": "FORBIDDEN", "message": "unexpected Host header"}, 403)(scope, receive, send)
            return
        is_api = path.startswith("/api/")
        tenant = None
        if is_api and self.tokens is not None:
            got = headers.get("authorization")
            ok, tenant = self.tokens.tenant_of(got)
            if not ok:
                message = "missing bearer token" if not got else "wrong bearer token"
                response = _json({"error": "UNAUTHENTICATED", "message": message}, 401)
                response.headers["www-authenticate"] = "Bearer"
                await response(scope, receive, send)
                return
        extra = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]
        if is_api:
            extra.append((b"cache-control", b"no-store"))
        else:
            extra += [(k.encode(), v.encode()) for k, v in _PAGE_HEADERS.items()]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        reset = TENANT.set(tenant)
        try:
            await self.app(scope, receive, send_with_headers)
        finally:
            TENANT.reset(reset)


def _host_name(host: str) -> str:
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def build_app(
    reads: Reads,
    hub: RunHub,
    *,
    tokens: Tokens | None = None,
    loopback: bool = True,
    runs: RunRecords | None = None,
    records: ThreadRecords | None = None,
) -> ASGIApp:
    """The inspector as an ASGI app over a server's reads and run hub.

    ``tokens``: the tokens the gRPC API accepts (a request is served as its
    token's tenant); None: no auth. ``runs``: the run records (the calls time
    line); None: ``/api/runs`` answers 501. ``records``: the thread records (each listed thread's
    status and metadata, and the list's search); None: the list shows neither and cannot search.
    """

    def running() -> set[tuple[str, str]]:
        return {(r["graph"], r["thread_id"]) for r in hub.live_runs()}

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    @_api
    async def graphs(request: Request) -> Any:
        return {"graphs": [{"name": e.name, "description": e.description} for e in reads.entries()]}

    @_api
    async def graph(request: Request) -> Any:
        entry = reads.graph(_param(request, "name"))
        return views.graph_view(entry.name, entry.description, entry.graph)

    @_api
    async def threads(request: Request) -> Any:
        name = _param(request, "graph")
        limit = _int_param(request, "limit", DEFAULT_THREADS)
        metadata, statuses = views.thread_filter(request.query_params.get("metadata", ""), request.query_params.getlist("status"))
        if metadata is not None or statuses:  # a search: the records say which threads
            if records is None:
                raise NotImplementedError("this server keeps no thread records, so it cannot search threads")
            reads.graph(name)  # an unknown graph is NOT_FOUND, as the RPCs answer
            matched = await records.search(name, metadata=metadata, statuses=statuses, limit=limit)
            found = [ThreadInfo(r["thread_id"], "", r["updated_at"]) for r in matched]
        else:
            found = await reads.threads(name, limit=limit)
        live = running()
        waiting = await asyncio.gather(*(_waiting(name, t.thread_id) for t in found))
        known = await records.records_of(name, [t.thread_id for t in found]) if records is not None else {}
        return {
            "graph": name,
            "threads": [
                views.thread_view(t, (name, t.thread_id) in live, w, known.get(t.thread_id)) for t, w in zip(found, waiting)
            ],
        }

    async def _waiting(graph: str, thread_id: str) -> dict[str, Any] | None:
        """The thread's first pending interrupt, when its newest version waits at one."""
        try:
            _, state = await reads.state(graph, thread_id)
        except CheckpointError:  # unreadable or unreachable: the version row says why when opened
            return None
        except NotFoundError:  # a thread found by its record has no version yet (CreateThread)
            return None
        pending = views.interrupts(state)
        return pending[0] if pending else None

    @_api
    async def history(request: Request) -> Any:
        name, thread = _param(request, "graph"), _param(request, "thread")
        ns = namespace(request.query_params.get("checkpoint_ns", ""))  # a subgraph's versions
        versions = await reads.history(name, thread, checkpoint_ns=ns)
        return {
            "graph": name,
            "thread_id": thread,
            "checkpoint_ns": ns,
            "versions": [views.version_ref(s) for s in reversed(versions)],
            "truncated": len(versions) >= reads.max_history,
            "running": (name, thread) in running(),
        }

    @_api
    async def version(request: Request) -> Any:
        name, thread = _param(request, "graph"), _param(request, "thread")
        ns = namespace(request.query_params.get("checkpoint_ns", ""))  # a subgraph's version
        entry, state = await reads.state(name, thread, _param(request, "checkpoint"), checkpoint_ns=ns)
        parent = parent_saved = None
        parent_id = views.version_ref(state)["parent_id"]
        if parent_id and not ns:  # a subgraph's version shows without its writes
            try:
                parent_saved = await reads.saved(name, thread, parent_id)
            except NotFoundError:  # pruned away: the version still shows, without its writes
                pass
            else:
                parent = await entry.graph.aget_state(parent_saved.config)  # either runtime's graph reads it
        return {"graph": name, "thread_id": thread, **views.version_detail(state, parent, parent_saved)}

    @_api
    async def runs_of_thread(request: Request) -> Any:
        name, thread = _param(request, "graph"), _param(request, "thread")
        if runs is None:
            raise NotImplementedError("this server keeps no run records, so it cannot draw the calls")
        reads.graph(name)  # an unknown graph is NOT_FOUND, as the RPCs answer
        found = await runs.list_runs(name, thread)
        return {
            "graph": name,
            "thread_id": thread,
            "replica": runs.replica,
            "now": datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"),
            "runs": [views.run_view(r) for r in found],
        }

    @_api
    async def live(request: Request) -> Any:
        return {"runs": hub.live_runs()}

    async def events(request: Request) -> Response:
        sub = hub.subscribe()

        async def stream() -> Any:
            try:
                yield b": graphwire inspector events\n\n"
                while True:
                    try:
                        msg = await sub.get(timeout=KEEPALIVE_SECONDS)
                    except TimeoutError:
                        yield b": keep-alive\n\n"
                        continue
                    if msg is None:
                        return
                    yield b"event: " + msg["type"].encode() + b"\ndata: " + encode(msg).encode() + b"\n\n"
            finally:
                sub.close()

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"x-accel-buffering": "no"})

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/index.html", page),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
            Route("/api/graphs", graphs),
            Route("/api/graph", graph),
            Route("/api/threads", threads),
            Route("/api/history", history),
            Route("/api/version", version),
            Route("/api/runs", runs_of_thread),
            Route("/api/live", live),
            Route("/api/events", events),
        ]
    )
    return _Guard(app, tokens, loopback)
