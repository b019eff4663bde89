"""Stream mode "tools": the LangChain tool calls a task makes, as LangGraph 1.2 streams them.

When a run streams "tools", each task runs with a :class:`ToolsHandler`
among its config's callbacks (put there by :mod:`engine._langchain.stream`
beside the "messages" handler, and, like it, taken out of the config of
tasks nested deeper, which have their own). Every tool the task runs
through LangChain (``tool.invoke``, a ``ToolNode``'s calls) reports:

* ``{"event": "tool-started", "tool_call_id", "tool_name", "input"}`` when
  it starts (``input``: its arguments without the injected ones, as
  LangChain hands them to callbacks; left out when LangChain gives none);
* ``{"event": "tool-output-delta", "tool_call_id", "delta"}`` for each
  ``ToolRuntime.emit_output_delta(delta)`` its body makes;
* ``{"event": "tool-finished", "tool_call_id", "output"}`` with what it
  returned (a ``ToolMessage``, or the ``Command`` it answered with), or
  ``{"event": "tool-error", "tool_call_id", "message"}`` when it raised.
  An interrupt (or a drain) is no error: the tool is paused, and reports
  its start again when it runs again.

A call with no tool call id (a tool invoked on plain arguments) is named by
its LangChain run id. Each payload goes out as a :class:`~engine.events.ToolEvent`
of the task, so it carries the namespace of the graph the tool ran in and
keeps its place among the task's other events ("messages" chunks, custom
events). Tools tagged ``nostream`` report nothing.

``emit_output_delta`` finds its call's writer in a context variable that
the handler sets when the tool starts (the tool's body runs in a copy of
that context, in a worker thread or not) and resets when it ends, so
parallel calls never mix their deltas and a tool run without "tools" mode
(no writer) sends nothing.

Only imported where langchain-core is.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Any, Callable, Iterator, TypeVar
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers._streaming import _StreamingCallbackHandler

from engine.errors import GraphDrained, GraphInterrupt

__all__ = ["ToolsHandler", "emit_output_delta"]

TAG_NOSTREAM = "nostream"  # engine.constants.TAG_NOSTREAM (that module's imports would make a cycle here)
T = TypeVar("T")
Writer = Callable[[Any], None]

#: the running tool call's delta writer (None outside a tool call of a run streaming "tools")
_tool_call_writer: ContextVar[Writer | None] = ContextVar("graphwire_tool_call_writer", default=None)


def emit_output_delta(delta: Any) -> None:
    """Send ``delta`` as a partial output of the running tool call; nothing outside one, or when the run does not stream "tools"."""
    writer = _tool_call_writer.get()
    if writer is not None:
        writer(delta)


class ToolsHandler(BaseCallbackHandler, _StreamingCallbackHandler):
    """Turns one task's tool runs into "tools" mode payloads.

    A streaming handler, as LangGraph's: with "tools" streamed, a chat model
    the task calls streams its tokens (LangChain streams a model whenever a
    streaming handler listens), whatever else is streamed.
    """

    run_inline = True  # in the tool's thread and context, in order: the writer must be set where the body runs

    def __init__(self, emit: Callable[[dict[str, Any]], None]) -> None:
        self.emit = emit
        # run id -> (tool call id, the writer's token): on_tool_end gets no tool_call_id
        self.calls: dict[UUID, tuple[str, Token[Writer | None]]] = {}

    # LangChain's _StreamingCallbackHandler protocol.
    def tap_output_aiter(self, run_id: UUID, output: Any) -> Any:
        return output

    def tap_output_iter(self, run_id: UUID, output: Iterator[T]) -> Iterator[T]:
        return output

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if tags and TAG_NOSTREAM in tags:
            return
        call_id = kwargs.get("tool_call_id") or str(run_id)
        emit = self.emit

        def writer(delta: Any) -> None:
            emit({"event": "tool-output-delta", "tool_call_id": call_id, "delta": delta})

        self.calls[run_id] = (call_id, _tool_call_writer.set(writer))
        payload: dict[str, Any] = {
            "event": "tool-started",
            "tool_call_id": call_id,
            "tool_name": (serialized or {}).get("name") or kwargs.get("name") or "",
        }
        if inputs is not None:
            payload["input"] = inputs
        emit(payload)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        call_id = self._ended(run_id)
        if call_id is not None:
            self.emit({"event": "tool-finished", "tool_call_id": call_id, "output": output})

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        call_id = self._ended(run_id)
        if call_id is not None and not isinstance(error, (GraphInterrupt, GraphDrained)):
            self.emit({"event": "tool-error", "tool_call_id": call_id, "message": str(error)})

    def _ended(self, run_id: UUID) -> str | None:
        """The ended run's tool call id (None: not one this handler reported), its writer unset."""
        found = self.calls.pop(run_id, None)
        if found is None:
            return None
        call_id, token = found
        try:
            _tool_call_writer.reset(token)
        except ValueError:  # ended in another context than it started in: that context is gone anyway
            pass
        return call_id
