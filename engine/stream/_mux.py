"""The v3 stream's event multiplexer (``langgraph.stream._mux``): its names; the engine does not run it."""

from __future__ import annotations

from typing import Any, Callable

from engine.stream._types import V3_REFUSED, StreamTransformer

__all__ = ["StreamMux", "TransformerFactory"]

#: What ``compile(transformers=)`` takes: a callable of the namespace (a transformer class) making one.
TransformerFactory = Callable[["tuple[str, ...]"], StreamTransformer]


class StreamMux:
    """Feeds a v3 stream's events through its transformers (refused: see :data:`V3_REFUSED`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(V3_REFUSED)
