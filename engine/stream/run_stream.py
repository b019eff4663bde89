"""The run handles of a v3 stream (``langgraph.stream.run_stream``): names only, refused when made."""

from __future__ import annotations

from typing import Any

from engine.stream._types import V3_REFUSED

__all__ = ["AsyncGraphRunStream", "AsyncSubgraphRunStream", "GraphRunStream", "SubgraphRunStream"]


class GraphRunStream:
    """A v3 stream of a run (refused: see :data:`engine.stream._types.V3_REFUSED`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(V3_REFUSED)


class AsyncGraphRunStream(GraphRunStream):
    """The async v3 stream of a run (refused)."""


class SubgraphRunStream(GraphRunStream):
    """A v3 stream of a subgraph's run inside its parent's (refused)."""


class AsyncSubgraphRunStream(AsyncGraphRunStream):
    """The async v3 stream of a subgraph's run (refused)."""
