"""The one table from a gRPC status to an HTTP one, and the error bodies LangGraph's server sends.

A route calls the gRPC servicer's part (:func:`server.http._common.call`); what
it raises gets its gRPC status from :func:`server._errors.status_for`, as a
gRPC call's does, and that status its HTTP code from :data:`HTTP_STATUS`. The
body is LangGraph's: ``{"detail": message}``. A request body FastAPI refuses
(a wrong type, a missing field, an unknown one) is 422 naming each field.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from server._errors import status_for

__all__ = ["HTTP_STATUS", "NOT_CANCELLABLE", "HttpError", "answered", "http_error", "install", "not_served"]

log = logging.getLogger("graphwire.http")

HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.INVALID_ARGUMENT: 422,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 413,
    grpc.StatusCode.UNAVAILABLE: 503,
}
"""Every other status (INTERNAL, DATA_LOSS, UNKNOWN...) is 500."""


#: What LangGraph's platform serves and graphwire does not, by path prefix; the runs' and crons'
#: while their route modules are absent (server.http._app.ROUTES).
_NOT_YET = {
    "/runs": ("server.http._runs", "runs are not served by this server's HTTP API yet (use the gRPC API's Invoke)"),
    "/crons": ("server.http._crons", "crons are not served by graphwire's HTTP API yet"),
}
_NOT_SERVED = {
    "/a2a": "graphwire does not serve the A2A protocol",
    "/mcp": "graphwire does not serve MCP",
    "/ui": "graphwire does not serve LangGraph Studio's UI (its inspector page is `graphwire serve --inspector`)",
    "/studio": "graphwire does not serve LangGraph Studio's UI (its inspector page is `graphwire serve --inspector`)",
    "/langsmith": "graphwire has no LangSmith integration",
}


def not_served(path: str, served: tuple[str, ...] = ()) -> str:
    """The 404 message for ``path``, which no route serves; ``served``: the route modules included."""
    known = {**_NOT_SERVED, **{p: why for p, (module, why) in _NOT_YET.items() if module not in served}}
    if path.startswith("/threads/") and ("/runs" in path or path.endswith("/stream")):
        why: str | None = known.get("/runs")
    else:
        why = next((w for p, w in known.items() if path == p or path.startswith(p + "/")), None)
    if why is not None:
        return f"{path}: {why} (docs/http.md lists the routes served)"
    return f"{path}: no such route in graphwire's HTTP API (docs/http.md lists the routes served, /openapi.json too)"


#: what cancelling a run that has ended answers (404), as LangGraph's server words it
NOT_CANCELLABLE = (
    "No matching runs to cancel. Please verify the thread ID and run IDs are correct, "
    "and the runs haven't been deleted or completed."
)


class HttpError(Exception):
    """A failure with its HTTP status and message decided (``{"detail": message}`` is sent)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def http_error(exc: BaseException) -> HttpError:
    """``exc`` (raised by a servicer's part) as its HTTP status, through the gRPC table."""
    code, message = status_for(exc)
    if code == grpc.StatusCode.INTERNAL:
        log.error("HTTP API: internal error", exc_info=exc)  # the traceback stays in the server log
    return HttpError(HTTP_STATUS.get(code, 500), message)


def answered(
    route: Callable[..., Awaitable[Response]], *, invalid: tuple[type[Exception], ...] = ()
) -> Callable[..., Awaitable[Response]]:
    """``route`` with its failures answered with their HTTP status (LangGraph's ``{"detail": ...}``):
    the core's through the gRPC table (:func:`http_error`); ``invalid``'s as 422."""

    @functools.wraps(route)
    async def answering(*args: Any, **kwargs: Any) -> Response:
        try:
            return await route(*args, **kwargs)
        except HttpError:
            raise
        except invalid as exc:
            raise HttpError(422, str(exc)) from exc
        except Exception as exc:
            raise http_error(exc) from exc

    return answering


def _field(loc: Any) -> str:
    return ".".join(str(part) for part in loc) or "body"


def invalid_message(errors: list[Any]) -> str:
    """FastAPI's validation errors as one readable line, each naming its field."""
    parts = []
    for e in errors:
        kind = e.get("type", "")
        if kind == "extra_forbidden":
            parts.append(f"{_field(e.get('loc', ()))}: unknown field (graphwire refuses options it does not apply)")
        elif kind == "missing":
            parts.append(f"{_field(e.get('loc', ()))}: required")
        else:
            parts.append(f"{_field(e.get('loc', ()))}: {e.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


async def _on_http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HttpError)
    return JSONResponse({"detail": exc.message}, status_code=exc.status)


async def _on_invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return JSONResponse({"detail": invalid_message(list(exc.errors()))}, status_code=422)


async def _on_starlette(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404 and exc.detail == "Not Found":  # no route matched: say what is not served
        return JSONResponse({"detail": not_served(request.url.path, request.app.state.route_modules)}, status_code=404)
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)


async def _on_other(request: Request, exc: Exception) -> JSONResponse:
    err = http_error(exc)
    return JSONResponse({"detail": err.message}, status_code=err.status)


def install(app: Any) -> None:
    """The error handlers of ``app`` (a FastAPI app)."""
    app.add_exception_handler(HttpError, _on_http_error)
    app.add_exception_handler(RequestValidationError, _on_invalid)
    app.add_exception_handler(HTTPException, _on_starlette)
    app.add_exception_handler(Exception, _on_other)
