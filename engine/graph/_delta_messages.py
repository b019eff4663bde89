"""The batch reducer of a chat's messages for a :class:`~engine.channels.delta.DeltaChannel`
(LangGraph's experimental ``langgraph.graph.message._messages_delta_reducer``), and the ids
its writes get before they are stored.

Unlike ``add_messages`` it folds a whole batch of writes in one pass, and it is
batching-invariant (what a delta channel needs): a write is a list of
message-likes (flattened) or one; a message whose id is in the list replaces
it in place, a ``RemoveMessage`` drops its id (an unknown id is ignored), a
message without an id is appended. It gives no ids and does not handle
``REMOVE_ALL_MESSAGES``, as LangGraph's does not: the ids come from
:func:`with_message_ids`, applied to a delta channel's writes before they are
stored, so replaying them gives the same messages every time.
"""

from __future__ import annotations

from typing import Any

from engine._internal._ids import message_id
from engine.channels.binop import as_overwrite
from engine._langchain import messages as langchain_messages
from engine.types import Overwrite

__all__ = ["messages_delta_reducer", "with_message_ids"]

_ROLES = frozenset({"user", "human", "assistant", "ai", "tool", "system", "function"})
_TYPES = frozenset({"human", "ai", "tool", "system", "function", "remove"})


def _message_dict(item: Any) -> bool:
    return isinstance(item, dict) and (item.get("role") in _ROLES or item.get("type") in _TYPES)


def _convert(items: list[Any]) -> list[Any]:
    lc = langchain_messages()
    if lc is None:
        out = []
        for m in items:
            if isinstance(m, str):
                m = {"role": "user", "content": m}
            elif isinstance(m, tuple) and len(m) == 2:
                m = {"role": m[0], "content": m[1]}
            out.append(m)
        return out
    converted: list[Any] = lc.convert_to_messages(items)
    return converted


def _id(m: Any) -> Any:
    return m.get("id") if isinstance(m, dict) else getattr(m, "id", None)


def _removal(m: Any) -> bool:
    lc = langchain_messages()
    if lc is None:
        return isinstance(m, dict) and m.get("role") == "remove"
    return isinstance(m, lc.RemoveMessage)


def messages_delta_reducer(state: list[Any], writes: list[Any]) -> list[Any]:
    """Fold ``writes`` (each a list of message-likes, or one) into the messages ``state``."""
    flat: list[Any] = []
    for w in writes:
        if isinstance(w, list):
            flat.extend(w)
        else:
            flat.append(w)
    lc = langchain_messages()
    current = state if state and lc is not None and isinstance(state[0], lc.BaseMessage) else _convert(list(state or ()))
    result: list[Any] = list(current)
    index = {mid: i for i, m in enumerate(result) if (mid := _id(m)) is not None}
    for m in _convert(flat):
        mid = _id(m)
        if mid is None:
            result.append(m)
        elif _removal(m):
            if mid in index:
                result[index.pop(mid)] = None
        elif mid in index:
            result[index[mid]] = m
        else:
            index[mid] = len(result)
            result.append(m)
    return [m for m in result if m is not None]


def _stamp(m: Any) -> None:
    if getattr(m, "id", "x") in (None, ""):
        try:
            m.id = message_id()
        except (AttributeError, TypeError, ValueError):
            pass


def _one(item: Any, *, convert: bool) -> Any:
    """``item`` with an id: a message object gets one in place; a message dict (and, when
    ``convert``, a string or a (role, content) pair) becomes a message that has one."""
    lc = langchain_messages()
    if lc is not None and isinstance(item, lc.BaseMessage):
        _stamp(item)
        return item
    if _message_dict(item) or (convert and (isinstance(item, str) or (isinstance(item, tuple) and len(item) == 2))):
        if lc is None:
            plain = _convert([item])[0]
            return plain if plain.get("id") else {**plain, "id": message_id()}
        try:
            (m,) = lc.convert_to_messages([item])
        except Exception:
            return item  # not a message after all: it fails where the reducer reads it
        _stamp(m)
        return m
    return item


def _many(items: Any, *, convert: bool) -> Any:
    mapped = [_one(i, convert=convert) for i in items]
    if all(a is b for a, b in zip(mapped, items)):
        return items
    return mapped if isinstance(items, list) else tuple(mapped)


def with_message_ids(value: Any, *, messages_reducer: bool) -> Any:
    """A delta channel's write with ids given to its messages (itself when nothing changed).

    In a channel whose reducer is :func:`messages_delta_reducer` every
    message-like becomes a message with an id; in another, only message objects
    and message dicts get one (its data may be anything else).
    """
    is_ow, replacement = as_overwrite(value)
    lc = langchain_messages()
    if is_ow:
        if not isinstance(replacement, (list, tuple)):
            return value
        if not messages_reducer:  # another channel's data: its message objects get ids, nothing is converted
            for item in replacement:
                if lc is not None and isinstance(item, lc.BaseMessage):
                    _stamp(item)
            return value
        items = _many(replacement, convert=True)
        return Overwrite(items) if items is not replacement else value
    if isinstance(value, list):
        return _many(value, convert=messages_reducer)
    if not messages_reducer and _message_dict(value):  # a bare message dict stays a dict, with an id
        return value if value.get("id") else {**value, "id": message_id()}
    return _one(value, convert=messages_reducer)
