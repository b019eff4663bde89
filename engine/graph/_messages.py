"""``add_messages``: the reducer for a chat's message list, and ``MessagesState``.

With langchain-core installed (the ``langchain`` extra) messages are
LangChain's, as in LangGraph: dicts (``{"role": "user", ...}`` or
``{"type": "human", ...}``), ``(role, text)`` tuples and strings become
message objects, chunks become whole messages, and ``RemoveMessage`` deletes.
Without it, messages stay plain dicts (``{"role", "content", "id",
"tool_calls"}``) or objects with those attributes, and ``RemoveMessage(id)``
is the dict ``{"role": "remove", "id": id}``.

Either way: new messages are appended; a message whose id is already in the
list replaces it in place; removing an id that is not there is a
``ValueError``; ``REMOVE_ALL_MESSAGES`` drops everything before it; messages
without an id get one, so that later updates can name them.
"""

from __future__ import annotations

import functools
import operator
from typing import Annotated, Any, Callable

try:  # what LangGraph's MessagesState is: pydantic builds schemas of it (a tool's InjectedState) on Python < 3.12
    from typing_extensions import TypedDict
except ImportError:  # pragma: no cover - typing_extensions comes with pydantic and langchain-core
    from typing import TypedDict

from engine._internal._ids import message_id
from engine._langchain import messages as langchain_messages

__all__ = ["add_messages", "RemoveMessage", "REMOVE_ALL_MESSAGES", "MessagesState"]

REMOVE_ALL_MESSAGES = "__remove_all__"


def RemoveMessage(id: str, **kwargs: Any) -> Any:
    """A message that, merged by ``add_messages``, deletes the message ``id``."""
    lc = langchain_messages()
    if lc is not None:
        return lc.RemoveMessage(id=id, **kwargs)
    return {"role": "remove", "id": id}


def _get(m: Any, key: str) -> Any:
    return m.get(key) if isinstance(m, dict) else getattr(m, key, None)


def _with_id(m: Any) -> Any:
    if _get(m, "id") is None:
        if isinstance(m, dict):
            return {**m, "id": message_id()}
        try:
            m.id = message_id()
        except (AttributeError, TypeError, ValueError):
            pass
    return m


def _plain(m: Any) -> Any:
    if isinstance(m, str):
        return {"role": "user", "content": m}
    if isinstance(m, tuple) and len(m) == 2:
        return {"role": m[0], "content": m[1]}
    return m


def _as_list(v: Any) -> list[Any]:
    """``v`` as a list of messages; a list is itself (the callers only read it)."""
    if v is None:
        return []
    if type(v) is list:
        return v
    if isinstance(v, (list, tuple)) and not (isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str)):
        return list(v)
    return [v]


@functools.cache
def _whole_classes() -> frozenset[type]:
    """LangChain's message classes that coercion leaves as they are (not chunks)."""
    lc = langchain_messages()
    names = ("AIMessage", "HumanMessage", "SystemMessage", "ToolMessage", "FunctionMessage", "ChatMessage", "RemoveMessage")
    return frozenset(getattr(lc, n) for n in names)


def _is_dict_removal(m: Any) -> bool:
    role: object = _get(m, "role")
    return role == "remove"


def _is_lc_removal(m: Any) -> bool:
    return isinstance(m, langchain_messages().RemoveMessage)


def _coerce(messages: list[Any]) -> tuple[list[Any], Callable[[Any], bool]]:
    """The messages as this installation keeps them, and how to spot a removal."""
    lc = langchain_messages()
    if lc is None:
        return [_with_id(_plain(m)) for m in messages], _is_dict_removal
    whole = _whole_classes()
    # The state's own list is whole messages with ids already: nothing to convert
    # (coercion would return each as it is), which keeps a long chat's steps cheap.
    if whole.issuperset(map(type, messages)):  # in C
        # Whole messages convert to themselves: at most an id to give (a node's new message).
        converted = messages if None not in map(_ID, messages) else [_with_id(m) for m in messages]
    else:
        converted = [_with_id(lc.message_chunk_to_message(m)) for m in lc.convert_to_messages(messages)]
    return converted, _is_lc_removal


def add_messages(left: Any = None, right: Any = None, **kwargs: Any) -> Any:
    """Merge ``right`` into ``left`` by message id (replace same id, append new).

    ``format="langchain-openai"`` (LangGraph's): the merged messages come back
    with their contents in OpenAI's shapes (strings, text and image_url blocks),
    through langchain-core; called with no lists, ``add_messages(format=...)``
    is the reducer that does so, as LangGraph's.
    """
    if kwargs:
        if set(kwargs) != {"format"}:
            raise TypeError(f"add_messages() got unexpected arguments {sorted(kwargs)}")
        fmt = kwargs["format"]
        if fmt not in (None, "langchain-openai"):
            raise ValueError(f"Unrecognized format={fmt!r}. Expected one of 'langchain-openai', None.")
        if left is None and right is None:
            return add_messages if fmt is None else _openai_formatted
        merged = add_messages(left, right)
        return merged if fmt is None else _openai(merged)
    old, _ = _coerce(_as_list(left))
    new, is_remove = _coerce(_as_list(right))
    ident = _ID if langchain_messages() is not None else _dict_id
    for i in range(len(new) - 1, -1, -1):
        if is_remove(new[i]) and ident(new[i]) == REMOVE_ALL_MESSAGES:
            return new[i + 1 :]
    merged = list(old)
    index = dict(zip(map(ident, merged), range(len(merged))))  # the last of equal ids wins, as before
    removed: set[Any] = set()
    for m in new:
        mid = ident(m)
        if is_remove(m):
            if mid not in index:
                raise ValueError(f"Attempting to delete a message with an ID that doesn't exist ('{mid}')")
            removed.add(mid)
            continue
        if mid in index:
            merged[index[mid]] = m
            removed.discard(mid)
        else:
            index[mid] = len(merged)
            merged.append(m)
    if removed:
        merged = [m for m in merged if ident(m) not in removed]
    return merged


def _openai(messages: list[Any]) -> list[Any]:
    """``messages`` with OpenAI-shaped contents, as LangGraph's ``format="langchain-openai"``."""
    lc = langchain_messages()
    converted: list[Any] = lc.convert_to_messages(lc.convert_to_openai_messages(messages))
    return converted


def _openai_formatted(left: Any, right: Any) -> Any:
    """``add_messages(format="langchain-openai")``: merge, then format."""
    return _openai(add_messages(left, right))


_ID = operator.attrgetter("id")  # LangChain messages: every one has an id by now


def _dict_id(m: Any) -> Any:
    return _get(m, "id")


def _messages_state() -> Any:
    lc = langchain_messages()
    item: Any = lc.AnyMessage if lc is not None else Any
    # The functional form: the annotation must be a real type, not this module's string.
    state = TypedDict("MessagesState", {"messages": Annotated[list[item], add_messages]})  # type: ignore[name-match]
    state.__module__ = __name__  # (no docstring: LangGraph's has none, and pydantic would make it the schemas' description)
    return state


MessagesState = _messages_state()
