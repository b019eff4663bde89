"""Chat messages as they cross the wire, with typed helpers.

A graph that keeps LangChain messages (with the server's ``langchain``
extra) sends them in LangChain's own dict form: ``type`` ("human", "ai",
"system", "tool", …), ``content``, ``id``, ``name``, ``tool_calls``,
``tool_call_id``, ``additional_kwargs``, ``response_metadata``,
``usage_metadata``. Such a dict can be sent back in unchanged. A graph of
plain dict messages sends whatever it keeps, usually ``role``/``content``;
input in that form is accepted by both. These helpers read either form.
"""

from __future__ import annotations

from typing import Any, Mapping, TypedDict

__all__ = ["Message", "ToolCall", "message_role", "message_text", "tool_calls", "user_message"]

_ROLES: dict[str, str] = {
    "human": "user",
    "HumanMessageChunk": "user",
    "ai": "assistant",
    "AIMessageChunk": "assistant",
    "system": "system",
    "SystemMessageChunk": "system",
    "tool": "tool",
    "ToolMessageChunk": "tool",
    "function": "function",
    "FunctionMessageChunk": "function",
    "remove": "remove",
}


class ToolCall(TypedDict, total=False):
    """A tool call an assistant message asks for."""

    id: str
    name: str
    args: dict[str, Any]
    type: str


class Message(TypedDict, total=False):
    """A message in LangChain's dict form (every key optional but ``type`` and ``content``)."""

    type: str
    content: Any
    id: str | None
    name: str | None
    tool_calls: list[ToolCall]
    tool_call_id: str
    additional_kwargs: dict[str, Any]
    response_metadata: dict[str, Any]
    usage_metadata: dict[str, Any] | None
    role: str  # the role/content form (input, or a graph of plain dicts)


def message_role(message: Mapping[str, Any]) -> str | None:
    """"user", "assistant", "system", "tool"…, from ``type`` or ``role``; None if neither."""
    role = message.get("role")
    if isinstance(role, str):
        return role
    kind = message.get("type")
    if kind == "chat" or kind == "ChatMessageChunk":
        return message.get("role")
    return _ROLES.get(kind) if isinstance(kind, str) else None


def message_text(message: Mapping[str, Any]) -> str:
    """The message's text: ``content`` itself, or its text blocks joined."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            b if isinstance(b, str) else str(b.get("text", "")) for b in content if isinstance(b, (str, dict))
        )
    return "" if content is None else str(content)


def tool_calls(message: Mapping[str, Any]) -> list[ToolCall]:
    """The tool calls of an assistant message (an empty list for any other)."""
    calls = message.get("tool_calls")
    return list(calls) if isinstance(calls, list) else []


def user_message(content: Any, *, id: str | None = None) -> Message:
    """A user's message to send as input (``{"role": "user", "content": ...}``)."""
    message: Message = {"role": "user", "content": content}
    if id is not None:
        message["id"] = id
    return message
