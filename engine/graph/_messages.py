"""``add_messages``: the reducer for a chat's message list.

Messages are plain dicts (``{"role", "content", "id", "tool_calls"}``) or
objects with those attributes. New messages are appended; a message whose id
is already in the list replaces it in place; ``{"role": "remove", "id": X}``
(or :func:`RemoveMessage`) deletes X. Messages without an id get one, so that
later updates can name them.
"""

from __future__ import annotations

import uuid
from typing import Any

__all__ = ["add_messages", "RemoveMessage", "REMOVE_ALL_MESSAGES"]

REMOVE_ALL_MESSAGES = "__remove_all__"


def RemoveMessage(id: str) -> dict[str, Any]:
    """A message that, merged by ``add_messages``, deletes the message ``id``."""
    return {"role": "remove", "id": id}


def _get(m: Any, key: str) -> Any:
    return m.get(key) if isinstance(m, dict) else getattr(m, key, None)


def _normalize(m: Any) -> Any:
    if isinstance(m, str):
        m = {"role": "user", "content": m}
    elif isinstance(m, tuple) and len(m) == 2:
        m = {"role": m[0], "content": m[1]}
    if _get(m, "id") is None:
        if isinstance(m, dict):
            m = {**m, "id": str(uuid.uuid4())}
        else:
            try:
                m.id = str(uuid.uuid4())
            except AttributeError:
                pass
    return m


def _as_list(v: Any) -> list[Any]:
    if v is None:
        return []
    if isinstance(v, (list, tuple)) and not (isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str)):
        return list(v)
    return [v]


def add_messages(left: Any, right: Any) -> list[Any]:
    """Merge ``right`` into ``left`` by message id (replace same id, append new)."""
    old = [_normalize(m) for m in _as_list(left)]
    new = [_normalize(m) for m in _as_list(right)]
    if any(_get(m, "role") == "remove" and _get(m, "id") == REMOVE_ALL_MESSAGES for m in new):
        idx = max(i for i, m in enumerate(new) if _get(m, "id") == REMOVE_ALL_MESSAGES)
        return new[idx + 1 :]
    merged = list(old)
    index = {_get(m, "id"): i for i, m in enumerate(merged)}
    removed: set[Any] = set()
    for m in new:
        mid = _get(m, "id")
        if _get(m, "role") == "remove":
            if mid not in index:
                raise ValueError(f"cannot remove message {mid!r}: no message has that id")
            removed.add(mid)
            continue
        if mid in index:
            merged[index[mid]] = m
            removed.discard(mid)
        else:
            index[mid] = len(merged)
            merged.append(m)
    if removed:
        merged = [m for m in merged if _get(m, "id") not in removed]
    return merged
