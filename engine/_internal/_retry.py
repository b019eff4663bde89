"""Which exceptions a node is retried on by default (``RetryPolicy.retry_on``), as LangGraph decides.

A programming error (a ValueError, a KeyError, a TypeError...) fails the same
way on every attempt, so it is not retried; a network failure (ConnectionError,
an HTTP 5xx from httpx or requests) and any other exception are.
"""

from __future__ import annotations

import sys

__all__ = ["default_retry_on"]

_NEVER = (
    ValueError, TypeError, ArithmeticError, ImportError, LookupError, NameError, SyntaxError,
    RuntimeError, ReferenceError, StopIteration, StopAsyncIteration, OSError,
)  # fmt: skip


def _server_error(status: int) -> bool:
    return 500 <= status < 600


def default_retry_on(exc: Exception) -> bool:
    """Whether ``exc`` is worth another attempt (the default of ``RetryPolicy.retry_on``)."""
    if isinstance(exc, ConnectionError):
        return True
    httpx = sys.modules.get("httpx")  # only raised by a module already imported
    if httpx is not None and isinstance(exc, httpx.HTTPStatusError):
        return _server_error(exc.response.status_code)
    requests = sys.modules.get("requests")
    if requests is not None and isinstance(exc, requests.HTTPError):
        return _server_error(exc.response.status_code) if exc.response else True
    return not isinstance(exc, _NEVER)
