"""``RemoteGraph`` (``langgraph.pregel.remote``): a graph run by a LangGraph Server, called over HTTP.

The engine has the class, so that code telling a remote graph from a local
one (langgraph-supervisor's ``isinstance(agent, RemoteGraph)``) imports and
runs; making one is refused: graphwire's own remote graphs are its gRPC
clients (``clients/python``), not LangGraph Server's HTTP API.
"""

from __future__ import annotations

from typing import Any

from engine._internal._unsupported import WHERE_IT_DIFFERS

__all__ = ["RemoteGraph"]


class RemoteGraph:
    """A LangGraph Server deployment's graph (refused when made: NotImplementedError)."""

    def __init__(self, assistant_id: str, /, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"RemoteGraph({assistant_id!r}) (LangGraph Server's HTTP API) is not supported; graphwire's remote graphs are "
            f"its gRPC clients; see {WHERE_IT_DIFFERS}"
        )
