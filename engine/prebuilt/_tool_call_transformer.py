"""``ToolCallTransformer``: the v3 stream's projection of tool calls (refused when made: it reads stream mode "tools")."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.stream._types import StreamTransformer

__all__ = ["ToolCallTransformer"]


class ToolCallTransformer(StreamTransformer):
    """LangGraph's transformer of tool-call events for ``stream_events(version="v3")``; LangChain 1.x's
    ``create_agent`` names it in ``compile(transformers=)``. It reads stream mode "tools", which the engine
    does not stream yet: refused when a v3 run makes it."""

    _native: ClassVar[bool] = True  # its projection would be an attribute of the run stream, as LangGraph's
    required_stream_modes: ClassVar[tuple[str, ...]] = ("tools",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        raise NotImplementedError(
            'ToolCallTransformer (stream_events(version="v3") of a graph compiled with it, such as create_agent\'s) '
            'reads stream_mode="tools", which the engine does not support yet; see graphwire\'s docs, '
            '"Where it differs" (docs/porting.md)'
        )

    def init(self) -> dict[str, Any]:  # pragma: no cover - never made
        return {}
