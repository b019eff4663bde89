"""One tool call as a wrapper sees it, and the payload a ``Send`` carries to a ToolNode.

A ``ToolNode(wrap_tool_call=...)`` hands every call to the wrapper as a
:class:`ToolCallRequest` together with an ``execute`` function: the wrapper
may change the request (``request.override(...)``), run it once, several
times (retries) or not at all (a cached or refused answer), and returns the
call's ``ToolMessage`` or ``Command``. LangChain 1.x's agent middleware
(``wrap_tool_call``) is built on exactly this, so the names and the
``override`` semantics are LangGraph's (observed on langgraph-prebuilt 1.1.3).
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.tools import BaseTool
from typing_extensions import TypedDict

from engine.prebuilt._injected import ToolRuntime
from engine.types import Command

__all__ = ["ToolCallRequest", "ToolCallWrapper", "AsyncToolCallWrapper", "ToolCallWithContext", "TOOL_CALL_WITH_CONTEXT"]

TOOL_CALL_WITH_CONTEXT = "tool_call_with_context"


@dataclass
class ToolCallRequest:
    """A tool call on its way to its tool, as a ``wrap_tool_call`` wrapper receives it.

    Attributes:
        tool_call: the call as the model made it (name, args, id).
        tool: the tool the node would run, or None for a name the node does
            not know (a wrapper may still answer it; running it answers with
            the "not a valid tool" error).
        state: the graph state the call was made in (a dict, a list of
            messages, or the state object).
        runtime: the call's :class:`ToolRuntime`.
    """

    tool_call: ToolCall
    tool: BaseTool | None
    state: Any
    runtime: ToolRuntime[Any, Any]

    def __setattr__(self, name: str, value: Any) -> None:
        # A request is shared with the caller's retries: changing it in place is
        # deprecated (as LangGraph's), override() makes a new one.
        if hasattr(self, name) and name in self.__dataclass_fields__:
            warnings.warn(
                f"Setting attribute '{name}' on ToolCallRequest is deprecated. "
                "Use the override() method instead to create a new instance with modified values.",
                DeprecationWarning,
                stacklevel=2,
            )
        object.__setattr__(self, name, value)

    def override(self, **overrides: Any) -> ToolCallRequest:
        """A new request with ``overrides`` (``tool_call``, ``tool``, ``state``); this one is unchanged.

        A new ``state`` is also the runtime's, so the tool sees it through
        ``InjectedState`` and ``ToolRuntime`` alike.
        """
        request = replace(self, **overrides)
        if "state" in overrides and isinstance(request.runtime, ToolRuntime):
            request = replace(request, runtime=replace(request.runtime, state=request.state))
        return request


ToolCallWrapper = Callable[[ToolCallRequest, Callable[[ToolCallRequest], "ToolMessage | Command"]], "ToolMessage | Command"]
"""``wrap_tool_call(request, execute) -> ToolMessage | Command``; ``execute`` may be called any number of times."""

AsyncToolCallWrapper = Callable[
    [ToolCallRequest, Callable[[ToolCallRequest], Awaitable["ToolMessage | Command"]]], Awaitable["ToolMessage | Command"]
]
"""The async twin of :data:`ToolCallWrapper` (``awrap_tool_call``)."""

# One tool call and the state it was made in, as create_react_agent sends it to
# its tools node (one task per call). Written in the functional form: the
# "__type" key would be name-mangled in a class body.
ToolCallWithContext = TypedDict(
    "ToolCallWithContext",
    {"tool_call": ToolCall, "__type": Literal["tool_call_with_context"], "state": Any},
)
