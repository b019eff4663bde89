"""LangChain messages coming in over the wire.

A LangChain message leaves the server as LangChain's own dict form (``type``,
``content``, ``id``, ``name``, ``tool_calls``, ``tool_call_id``,
``additional_kwargs``, ``response_metadata``, ``usage_metadata``, …: its
``model_dump``), the form LangGraph's server and its chat UIs speak. So that
such a message can be sent back in unchanged (a chat UI replaying a thread,
an edit through UpdateState), a dict in that form in a request's input,
update or values is rebuilt as the message class its ``type`` names, every
field kept, before the engine sees it. (``add_messages`` alone would coerce
it as LangGraph does, which moves ``usage_metadata`` into
``additional_kwargs`` and refuses chunks.) ``role``/``content`` dicts are
left to ``add_messages``. Without langchain-core, values pass unchanged.
"""

from __future__ import annotations

from typing import Any

from engine.host import langchain_messages
from server._json import PayloadError

__all__ = ["messages_in"]

# ``type`` value -> class name in langchain_core.messages
_BY_TYPE = {
    "human": "HumanMessage",
    "ai": "AIMessage",
    "system": "SystemMessage",
    "tool": "ToolMessage",
    "function": "FunctionMessage",
    "chat": "ChatMessage",
    "remove": "RemoveMessage",
    **{n: n for n in ("AIMessageChunk", "HumanMessageChunk", "SystemMessageChunk", "ToolMessageChunk",
                      "FunctionMessageChunk", "ChatMessageChunk")},
}  # fmt: skip


def messages_in(value: Any, field: str) -> Any:
    """``value`` with every LangChain-form message dict rebuilt as its class.

    Raises:
        PayloadError: a dict naming a message type whose fields LangChain rejects.
    """
    lc = langchain_messages()
    if lc is None:
        return value
    return _walk(value, lc, field)


def _walk(v: Any, lc: Any, path: str) -> Any:
    if isinstance(v, list):
        return [_walk(x, lc, f"{path}[{i}]") for i, x in enumerate(v)]
    if not isinstance(v, dict):
        return v
    kind = v.get("type")
    if isinstance(kind, str) and kind in _BY_TYPE and ("content" in v or kind == "remove"):
        fields = {k: x for k, x in v.items() if k != "type"}
        try:
            return getattr(lc, _BY_TYPE[kind])(**fields)
        except Exception as e:  # pydantic's ValidationError, a TypeError for a bad keyword…
            first = str(e).splitlines()[:3]
            raise PayloadError(f"{path}: not a valid LangChain {kind!r} message: {' '.join(first)}") from None
    return {k: _walk(x, lc, f"{path}[{k!r}]") for k, x in v.items()}
