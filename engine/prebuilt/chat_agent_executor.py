"""``langgraph.prebuilt.chat_agent_executor``'s names."""

from __future__ import annotations

from engine.prebuilt._agent_parts import (
    PROMPT_RUNNABLE_NAME,
    AgentState,
    AgentStatePydantic,
    AgentStateWithStructuredResponse,
    AgentStateWithStructuredResponsePydantic,
    Prompt,
    StateSchema,
    StateSchemaType,
    StructuredResponse,
    StructuredResponseSchema,
)
from engine.prebuilt._agent_parts import should_bind_tools as _should_bind_tools
from engine.prebuilt._react import create_react_agent, create_tool_calling_executor

__all__ = [
    "create_react_agent",
    "create_tool_calling_executor",
    "AgentState",
    "AgentStatePydantic",
    "AgentStateWithStructuredResponse",
    "AgentStateWithStructuredResponsePydantic",
    "StructuredResponse",
    "StructuredResponseSchema",
    "StateSchema",
    "StateSchemaType",
    "Prompt",
    "PROMPT_RUNNABLE_NAME",
    "_should_bind_tools",  # langgraph-supervisor imports it
]
