"""``ToolCallTransformer``: ``run.tool_calls`` of a v3 run, one :class:`ToolCallStream` per tool call.

It reads stream mode "tools" (:mod:`engine._langchain.tools`) at its own scope:
``tool-started`` makes a stream (pushed to ``run.tool_calls``),
``tool-output-delta`` feeds it, ``tool-finished`` (its output: a ToolMessage's
content) or ``tool-error`` ends it; the run's end ends those still open. The
events stay in the main log as they are (a remote reader rebuilds the calls
from them); the streams are live objects, so the projection is not forwarded.
Not a built-in: a graph opts in with ``compile(transformers=[ToolCallTransformer])``
(as LangChain's ``create_agent`` does).
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, ClassVar

from engine.prebuilt._tool_call_stream import ToolCallStream
from engine.stream._types import ProtocolEvent, StreamTransformer
from engine.stream.stream_channel import StreamChannel

__all__ = ["ToolCallTransformer"]


def _output(value: Any) -> Any:
    """A finished call's output: a ToolMessage's content (or a serialized one's), else the value itself."""
    if isinstance(value, dict) and value.get("type") == "constructor" and isinstance(value.get("id"), list) and value["id"][-1] == "ToolMessage":
        kwargs = value.get("kwargs")
        return kwargs.get("content") if isinstance(kwargs, dict) else value
    try:
        from langchain_core.messages import ToolMessage
    except ImportError:  # pragma: no cover - without langchain-core no tool reports
        return value
    return value.content if isinstance(value, ToolMessage) else value


class ToolCallTransformer(StreamTransformer):
    """Makes ``run.tool_calls``: a :class:`ToolCallStream` for each tool call at its scope."""

    _native: ClassVar[bool] = True
    required_stream_modes: ClassVar[tuple[str, ...]] = ("tools",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[ToolCallStream] = StreamChannel()  # no name: live objects, not forwarded
        self._active: dict[str, ToolCallStream] = {}
        self._is_async = False
        self._pump_fn: Callable[[], bool] | None = None
        self._apump_fn: Callable[[], Awaitable[bool]] | None = None

    def init(self) -> dict[str, Any]:
        return {"tool_calls": self._log}

    def _bind_pump(self, fn: Callable[[], bool]) -> None:
        self._pump_fn, self._is_async = fn, False

    def _bind_apump(self, fn: Callable[[], Awaitable[bool]]) -> None:
        self._apump_fn, self._is_async = fn, True

    def _start(self, call_id: str, name: str, args: dict[str, Any] | None) -> ToolCallStream:
        stream = ToolCallStream(call_id, name, args)
        stream._bind(is_async=self._is_async)
        stream._output_deltas._arequest_more = self._apump_fn  # reading its deltas drives the run
        stream._output_deltas._request_more = self._pump_fn
        self._active[call_id] = stream
        self._log.push(stream)
        return stream

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] != "tools" or tuple(event["params"]["namespace"]) != self.scope:
            return True  # a subgraph's calls: its handle's own transformer has them
        data = event["params"]["data"]
        call_id = data.get("tool_call_id")
        if call_id is None:
            return True
        kind = data.get("event")
        if kind == "tool-started":
            self._start(call_id, data.get("tool_name", ""), data.get("input"))
        elif kind == "tool-output-delta":
            if (stream := self._active.get(call_id)) is not None:
                stream._push_delta(data.get("delta"))
        elif kind == "tool-finished":
            if (stream := self._active.pop(call_id, None)) is not None:
                stream._finish(_output(data.get("output")))
        elif kind == "tool-error":
            if (stream := self._active.pop(call_id, None)) is not None:
                stream._fail(data.get("message", ""))
        return True

    def finalize(self) -> None:
        """Calls still open when the run ends finish with no output."""
        for stream in self._active.values():
            if not stream.completed:
                stream._finish(None)
        self._active.clear()

    def fail(self, err: BaseException) -> None:
        """Calls still open when the run fails fail with its message."""
        for stream in self._active.values():
            if not stream.completed:
                stream._fail(str(err))
        self._active.clear()
