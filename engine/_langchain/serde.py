"""LangChain's message classes, allowlisted without registration.

Nearly every LangGraph program keeps ``langchain_core.messages`` objects in
its state, so the serializer knows them from the start, as it knows
``Interrupt``: a value of one of these classes is stored as a registered
value named ``langchain:<ClassName>`` (its name in the public module
``langchain_core.messages``, so a class LangChain moves between its private
modules keeps its name).

langchain-core stays optional. Writing a message proves it is imported;
reading a stored message name imports the one fixed module
``langchain_core.messages`` (never a module the bytes name: the name must be
one of :data:`MESSAGE_CLASSES`, a table written here) and rebuilds the
message through its own validation, so hostile fields fail as a corrupt
checkpoint instead of building anything.

A message is stored as its fields that differ from their defaults (and its
extra attributes): a short chat turn is a few dozen bytes, not the ~200 of a
full dump.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from engine.serde._registry import Entry

__all__ = ["MESSAGE_CLASSES", "PREFIX", "entries", "is_message_type", "stored_name"]

PREFIX = "langchain:"

#: Every concrete message class of ``langchain_core.messages`` (chunks included).
#: A test checks this against the installed langchain-core.
MESSAGE_CLASSES = (
    "AIMessage",
    "AIMessageChunk",
    "ChatMessage",
    "ChatMessageChunk",
    "FunctionMessage",
    "FunctionMessageChunk",
    "HumanMessage",
    "HumanMessageChunk",
    "RemoveMessage",
    "SystemMessage",
    "SystemMessageChunk",
    "ToolMessage",
    "ToolMessageChunk",
)
_NAMES = frozenset(PREFIX + n for n in MESSAGE_CLASSES)


def stored_name(name: str) -> bool:
    """Whether ``name`` (read from storage) is one of LangChain's message classes."""
    return name in _NAMES


def is_message_type(cls: type) -> bool:
    """Whether ``cls`` may be a LangChain message class (cheap: no import)."""
    return cls.__module__.startswith("langchain_core.messages")


def is_text(cls: type) -> bool:
    """Whether ``cls`` is LangChain's ``TextAccessor`` (what ``message.text`` returns): a str, stored
    as the str it is, as LangGraph's serializer stores it (and reads it back as a plain str)."""
    return cls.__name__ == "TextAccessor" and cls.__module__ == "langchain_core.messages.base" and issubclass(cls, str)


def entries() -> list[Entry]:
    """Registry entries of every message class; imports ``langchain_core.messages``.

    Raises:
        ImportError: langchain-core is not installed.
    """
    module = sys.modules.get("langchain_core.messages")
    if module is None:
        import langchain_core.messages as module  # the one fixed module, never a stored name
    return [_entry(getattr(module, n)) for n in MESSAGE_CLASSES]


def _entry(cls: Any) -> Entry:
    return Entry(PREFIX + cls.__name__, cls, "pydantic", _dumper(cls), _loader(cls))


def _dumper(cls: Any) -> Callable[[Any], Any]:
    defaults = {
        name: field.get_default(call_default_factory=True)
        for name, field in cls.model_fields.items()
        if name != "type" and not field.is_required()
    }
    required = tuple(name for name, field in cls.model_fields.items() if field.is_required())

    def dump(obj: Any) -> dict[str, Any]:
        values = obj.__dict__
        out = {name: values[name] for name in required}
        for name, default in defaults.items():
            v = values.get(name, default)
            if v is not default and v != default:
                out[name] = v
        extra = obj.__pydantic_extra__
        if extra:
            out.update(extra)
        return out

    return dump


def _loader(cls: Any) -> Callable[[Any], Any]:
    def load(data: Any) -> Any:
        if type(data) is not dict or any(type(k) is not str or k.startswith("_") for k in data):
            raise ValueError("expected a map of field names")
        return cls(**data)  # LangChain's own validation checks every field

    return load
