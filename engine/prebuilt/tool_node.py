"""``langgraph.prebuilt.tool_node``'s names."""

from __future__ import annotations

from engine.prebuilt._tool_node import (
    INVALID_TOOL_NAME_ERROR_TEMPLATE,
    TOOL_CALL_ERROR_TEMPLATE,
    InjectedState,
    InjectedStore,
    ToolNode,
    ToolRuntime,
    msg_content_output,
    tools_condition,
)

__all__ = [
    "ToolNode",
    "tools_condition",
    "InjectedState",
    "InjectedStore",
    "ToolRuntime",
    "msg_content_output",
    "INVALID_TOOL_NAME_ERROR_TEMPLATE",
    "TOOL_CALL_ERROR_TEMPLATE",
]
