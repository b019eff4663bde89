"""LangGraph's Agent Server HTTP API, served beside the gRPC API (``graphwire serve --http HOST:PORT``).

The ``langgraph-sdk`` clients (and what is built on them) talk to graphwire
unchanged. The app (:mod:`server.http._app`) is served as the inspector is
(:mod:`server._web`); its routes (one module per group: assistants, threads,
a thread's state and history, the store) call the gRPC servicer's parts, so
behaviour, checks and tenancy are the gRPC API's. See docs/http.md.
"""

from __future__ import annotations

from server.http._app import build_http_app

__all__ = ["build_http_app"]
