"""A scripted, deterministic chat model for the reminders agent.

It understands three things: "remind me to X at T" (→ an ``add_reminder``
tool call), "weather in C" (→ a ``forecast`` tool call), and a tool result
(→ a sentence about it). Anything else gets a short echo reply. Tests and the
demo need no network and no API key; a real model plugs in through
``build_graph(model=...)``: any callable ``messages -> assistant message``.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

__all__ = ["PHRASES", "scripted_model"]

#: What the scripted model understands, as the demo tells its users.
PHRASES = '"remind me to <what> at <when>" (I ask before adding it) and "weather in <city>"'

_REMIND = re.compile(r"remind me to (?P<text>.+?) (?:at|on) (?P<at>.+?)[.!?]*$", re.IGNORECASE)
_WEATHER = re.compile(r"weather (?:in|for) (?P<city>[\w .'-]+?)[?.!]*$", re.IGNORECASE)


_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def _get(m: Any, key: str, default: Any = None) -> Any:
    if isinstance(m, dict):
        return m.get(key, default)
    if key == "role" and not hasattr(m, "role"):  # a LangChain message (with the langchain extra)
        return _ROLES.get(getattr(m, "type", None), default)
    return getattr(m, key, default)


def _assistant(content: str, tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": content, "id": f"msg-{uuid.uuid4().hex[:12]}"}
    if tool_calls:
        msg["tool_calls"] = tool_calls
    return msg


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"call-{uuid.uuid4().hex[:12]}", "name": name, "args": args}


def scripted_model(messages: list[Any]) -> dict[str, Any]:
    """The assistant's next message, given the conversation so far."""
    if not messages:
        return _assistant(f"Hello! I understand {PHRASES}.")
    last = messages[-1]
    role = _get(last, "role")
    content = str(_get(last, "content", ""))
    if role == "tool":
        return _assistant(content)
    if role == "user":
        if m := _REMIND.search(content.strip()):
            return _assistant("", [_call("add_reminder", {"text": m["text"].strip(), "at": m["at"].strip()})])
        if m := _WEATHER.search(content.strip()):
            return _assistant("", [_call("forecast", {"city": m["city"].strip()})])
        return _assistant(f"You said: {content}. I understand {PHRASES}.")
    return _assistant("How can I help?")
