"""LangChain's message classes (and its few other data classes kept in state), allowlisted without registration.

Nearly every LangGraph program keeps ``langchain_core.messages`` objects in
its state, so the serializer knows them from the start, as it knows
``Interrupt``: a value of one of these classes is stored as a registered
value named ``langchain:<ClassName>`` (its name in the public module
``langchain_core.messages``, so a class LangChain moves between its private
modules keeps its name). So are LangChain's retrieved documents and agent
steps (:data:`OTHER_CLASSES`: a RAG graph's ``documents: list`` holds
``Document`` objects), which LangGraph's serializer stores and reads back
too, whether or not the state's schema names them.

langchain-core stays optional. Writing a message proves it is imported;
reading a stored message name imports the fixed modules of these tables
(``langchain_core.messages`` and those of :data:`OTHER_CLASSES`; never a module the
bytes name: the name must be one of :data:`MESSAGE_CLASSES` or :data:`OTHER_CLASSES`, tables written here) and rebuilds the
message through its own validation, so hostile fields fail as a corrupt
checkpoint instead of building anything. (A message's bytes whose validation
gave back exactly their own fields are rebuilt without running it again on
later reads: :mod:`engine.serde._proven`.)

A message is stored as its fields that differ from their defaults (and its
extra attributes): a short chat turn is a few dozen bytes, not the ~200 of a
full dump.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

from engine.serde._registry import Entry

__all__ = ["MESSAGE_CLASSES", "OTHER_CLASSES", "PREFIX", "entries", "is_message_type", "stored_name"]

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
#: LangChain's other data classes a graph's state holds, by their public module (names unlike any message's).
OTHER_CLASSES = {
    "langchain_core.documents": ("Document",),
    "langchain_core.agents": ("AgentAction", "AgentActionMessageLog", "AgentFinish", "AgentStep"),
}
_NAMES = frozenset(PREFIX + n for n in (*MESSAGE_CLASSES, *(n for names in OTHER_CLASSES.values() for n in names)))
_MODULES = ("langchain_core.messages", *OTHER_CLASSES)


def stored_name(name: str) -> bool:
    """Whether ``name`` (read from storage) is one of these LangChain classes."""
    return name in _NAMES


def is_message_type(cls: type) -> bool:
    """Whether ``cls`` may be one of these LangChain classes, a message or another (cheap: no import)."""
    return cls.__module__.startswith(_MODULES)


def is_text(cls: type) -> bool:
    """Whether ``cls`` is LangChain's ``TextAccessor`` (what ``message.text`` returns): a str, stored
    as the str it is, as LangGraph's serializer stores it (and reads it back as a plain str)."""
    return cls.__name__ == "TextAccessor" and cls.__module__ == "langchain_core.messages.base" and issubclass(cls, str)


def entries() -> list[Entry]:
    """Registry entries of every class of these tables; imports their fixed modules.

    Raises:
        ImportError: langchain-core is not installed.
    """
    module = sys.modules.get("langchain_core.messages")
    if module is None:
        import langchain_core.messages as module  # the fixed modules, never a stored name
    out = [_entry(getattr(module, n)) for n in MESSAGE_CLASSES]
    for name, classes in OTHER_CLASSES.items():
        try:
            other = importlib.import_module(name)
        except ImportError:  # a langchain-core without it: its classes are not stored by name
            continue
        out.extend(_entry(getattr(other, n)) for n in classes if isinstance(getattr(other, n, None), type))
    return out


def _entry(cls: Any) -> Entry:
    return Entry(PREFIX + cls.__name__, cls, "pydantic", _dumper(cls), _loader(cls))


def _dumper(cls: Any) -> Callable[[Any], Any]:
    defaults = {name: _default(field) for name, field in cls.model_fields.items() if name != "type" and not field.is_required()}
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


def _default(field: Any) -> Any:
    """A field's default. LangChain's factories (``dict``, ``list``) are called as they are: pydantic's
    ``get_default`` first reads a factory's signature, which parses text with ``ast`` on CPython 3.11,
    and that parse is not safe in two threads at once (SystemError "AST constructor recursion depth
    mismatch"; the classes are first met in whatever thread stores a message)."""
    factory = field.default_factory
    if factory is None:
        return field.default
    try:
        return factory()
    except TypeError:  # a factory of the validated data (none of LangChain's): pydantic's way
        return field.get_default(call_default_factory=True)


def _loader(cls: Any) -> Callable[[Any], Any]:
    def load(data: Any) -> Any:
        if type(data) is not dict or any(type(k) is not str or k.startswith("_") for k in data):
            raise ValueError("expected a map of field names")
        return cls(**data)  # LangChain's own validation checks every field

    return load
