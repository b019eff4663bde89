"""LangGraph's default node cache key: the node's input, frozen (dicts and lists as sorted tuples) and pickled.

Pickle only *writes* here, to turn the input into bytes to hash: nothing is
ever unpickled, so no stored bytes can run code.
"""

from __future__ import annotations

import pickle
from typing import Any

__all__ = ["default_cache_key"]


def _freeze(obj: Any, depth: int = 10) -> Any:
    if depth <= 0 or isinstance(obj, (str, bytes, int, float, bool, type(None))):
        return obj
    if isinstance(obj, dict):
        return tuple(sorted(((k, _freeze(v, depth - 1)) for k, v in obj.items()), key=lambda kv: repr(kv[0])))
    if isinstance(obj, (list, tuple)):
        return tuple(_freeze(x, depth - 1) for x in obj)
    if isinstance(obj, (set, frozenset)):
        return tuple(sorted((_freeze(x, depth - 1) for x in obj), key=repr))
    return obj


def default_cache_key(*args: Any, **kwargs: Any) -> bytes:
    """Bytes that identify the arguments (equal inputs, equal bytes)."""
    return pickle.dumps((_freeze(args), _freeze(kwargs)), protocol=5, fix_imports=False)
