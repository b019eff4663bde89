"""``langgraph.prebuilt.chat_agent_executor``'s names."""

from __future__ import annotations

from engine.prebuilt._react import AgentState, AgentStatePydantic, create_react_agent, create_tool_calling_executor

__all__ = ["AgentState", "AgentStatePydantic", "create_react_agent", "create_tool_calling_executor"]
