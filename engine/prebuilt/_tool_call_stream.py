"""``ToolCallStream``: one tool call of a v3 run (``langgraph.prebuilt._tool_call_stream``).

An item of ``run.tool_calls`` (:class:`~engine.prebuilt.ToolCallTransformer`),
made when the tool starts: its id, name and input at once; its partial outputs
(``ToolRuntime.emit_output_delta``) as they come, by iterating it (or
``output_deltas``); ``output`` or ``error`` once it ends (``completed``).
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Iterator

from engine.stream.stream_channel import StreamChannel

__all__ = ["ToolCallStream"]


class ToolCallStream:
    """A tool call as it runs: ``tool_call_id``, ``tool_name``, ``input``, its deltas, then ``output`` or ``error``."""

    def __init__(self, tool_call_id: str, tool_name: str, input: dict[str, Any] | None = None) -> None:
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self.input = input
        self._output_deltas: StreamChannel[Any] = StreamChannel()
        self.output: Any = None
        self.error: str | None = None
        self.completed = False

    @property
    def output_deltas(self) -> StreamChannel[Any]:
        """The call's partial outputs in order (read on the run's lane; closed when the call ends)."""
        return self._output_deltas

    def _bind(self, *, is_async: bool) -> None:
        self._output_deltas._bind(is_async=is_async)

    def _push_delta(self, delta: Any) -> None:
        self._output_deltas.push(delta)

    def _finish(self, output: Any) -> None:
        self.output, self.completed = output, True
        self._output_deltas.close()

    def _fail(self, message: str) -> None:
        self.error, self.completed = message, True
        self._output_deltas.close()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._output_deltas)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._output_deltas.__aiter__()

    def __repr__(self) -> str:
        status = "running" if not self.completed else "completed" if self.error is None else "failed"
        return f"ToolCallStream(tool_call_id={self.tool_call_id!r}, tool_name={self.tool_name!r}, status={status})"
