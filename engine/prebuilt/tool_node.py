"""``langgraph.prebuilt.tool_node``'s names."""

from __future__ import annotations

from engine.prebuilt._injected import InjectedState, InjectedStore, ToolRuntime
from engine.prebuilt._tool_call import AsyncToolCallWrapper, ToolCallRequest, ToolCallWithContext, ToolCallWrapper
from engine.prebuilt._tool_errors import (
    INVALID_TOOL_NAME_ERROR_TEMPLATE,
    TOOL_CALL_ERROR_TEMPLATE,
    TOOL_EXECUTION_ERROR_TEMPLATE,
    TOOL_INVOCATION_ERROR_TEMPLATE,
    ToolInvocationError,
)
from engine.prebuilt._tool_node import ToolNode, tools_condition
from engine.prebuilt._tool_output import msg_content_output

__all__ = [
    "ToolNode",
    "tools_condition",
    "InjectedState",
    "InjectedStore",
    "ToolRuntime",
    "ToolCallRequest",
    "ToolCallWrapper",
    "AsyncToolCallWrapper",
    "ToolCallWithContext",
    "ToolInvocationError",
    "msg_content_output",
    "INVALID_TOOL_NAME_ERROR_TEMPLATE",
    "TOOL_CALL_ERROR_TEMPLATE",
    "TOOL_EXECUTION_ERROR_TEMPLATE",
    "TOOL_INVOCATION_ERROR_TEMPLATE",
]
