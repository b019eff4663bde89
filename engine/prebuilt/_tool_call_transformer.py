"""``ToolCallTransformer``: the v3 stream's projection of tool calls (refused when made, as every v3 transformer)."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.stream._types import V3_REFUSED, StreamTransformer

__all__ = ["ToolCallTransformer"]


class ToolCallTransformer(StreamTransformer):
    """LangGraph's transformer of tool-call events for ``stream_events(version="v3")``; LangChain 1.x's
    ``create_agent`` names it in ``compile(transformers=)``. The engine runs no v3 stream: refused."""

    _native: ClassVar[bool] = True  # its projection would be an attribute of the run stream, as LangGraph's
    required_stream_modes: ClassVar[tuple[str, ...]] = ("tools",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        raise NotImplementedError(V3_REFUSED)

    def init(self) -> dict[str, Any]:  # pragma: no cover - never made
        return {}
