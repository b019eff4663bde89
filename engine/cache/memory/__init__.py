"""A cache in the process's memory, at LangGraph's import path (``langgraph.cache.memory``)."""

from __future__ import annotations

import threading
from typing import Any, Mapping, Sequence

from engine.cache.base import BaseCache, FullKey, Namespace
from engine.serde import Serializer

__all__ = ["InMemoryCache"]


class InMemoryCache(BaseCache[Any]):
    """Values serialized (so a node that mutates what it got cannot change the cache), with expiry times.

    An expired entry is dropped when it is read. Safe to share between threads.
    """

    def __init__(self, *, serde: Serializer | None = None) -> None:
        super().__init__(serde=serde)
        self._cache: dict[Namespace, dict[str, tuple[tuple[str, bytes], float | None]]] = {}
        self._lock = threading.RLock()

    # Sync at heart, as LangGraph's: the async methods call these (a subclass overriding them sees every call).
    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        now = self._now()
        out: dict[FullKey, Any] = {}
        with self._lock:
            for ns, key in keys:
                entries = self._cache.get(ns)
                if entries is None or key not in entries:
                    continue
                stored, expiry = entries[key]
                if expiry is not None and expiry <= now:
                    del entries[key]
                    continue
                out[(ns, key)] = self._load(stored)
        return out

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        return self.get(keys)

    def set(self, pairs: Mapping[FullKey, tuple[Any, int | None]]) -> None:
        now = self._now()
        dumped = {full: (self._dump(value), None if ttl is None else now + ttl) for full, (value, ttl) in pairs.items()}
        with self._lock:
            for (ns, key), entry in dumped.items():
                self._cache.setdefault(ns, {})[key] = entry

    async def aset(self, pairs: Mapping[FullKey, tuple[Any, int | None]]) -> None:
        self.set(pairs)

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        with self._lock:
            if namespaces is None:
                self._cache.clear()
            else:
                for ns in namespaces:
                    self._cache.pop(ns, None)

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        self.clear(namespaces)
