"""The cache contract, at LangGraph's import path (``langgraph.cache.base``).

A cache maps a full key, ``(namespace, key)``, to a value with an optional
time to live in seconds. The loop stores a cached node's writes under the
namespace ``("__pregel_ns_writes", <the node function's module.qualname>,
<node name>)`` and a key hashed from the node's input, so that a later task
of that node with the same input, within the ttl, gets the writes back
instead of running. Values go through the engine's allowlisted serializer
(:class:`~engine.serde.Serializer`), never pickle, so a cache holds only
what a checkpoint could.

The contract is async at heart: ``aget``/``aset``/``aclear`` are what a cache
implements; ``get``/``set``/``clear`` are derived from them. Every cache reads
the time through ``_now`` (seconds since the epoch), which a test replaces
with a clock it moves by hand. ``aclose``/``close`` release what a cache
holds open (nothing, for the in-memory one); LangGraph's caches have no
such method.

Implementations: :class:`~engine.cache.memory.InMemoryCache`,
:class:`~engine.cache.sqlite.SqliteCache` (LangGraph's path) and
:class:`~engine.cache.postgres.PostgresCache` (graphwire's own); all pass
the spec suite in ``tests/cache``.
"""

from __future__ import annotations

import abc
import time
from typing import Any, Generic, Mapping, Sequence, TypeVar

from engine._internal._sync import run_sync
from engine.serde import Serializer

__all__ = ["BaseCache", "FullKey", "Namespace"]

ValueT = TypeVar("ValueT")
Namespace = tuple[str, ...]
FullKey = tuple[Namespace, str]


class BaseCache(abc.ABC, Generic[ValueT]):
    """A cache of values under ``(namespace, key)``, each with an optional ttl in seconds."""

    def __init__(self, *, serde: Serializer | None = None) -> None:
        self.serde = serde or Serializer()

    @abc.abstractmethod
    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        """The values of those ``keys`` that are cached and not expired."""

    @abc.abstractmethod
    async def aset(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        """Cache each value under its key for its ttl (None: no expiry)."""

    @abc.abstractmethod
    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Delete what is cached under ``namespaces`` (None: everything)."""

    async def aclose(self) -> None:
        """Release the cache's connections (the cached values stay where they are stored)."""

    def close(self) -> None:
        run_sync(self.aclose())

    def _now(self) -> float:
        return time.time()

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        return run_sync(self.aget(keys))

    def set(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        run_sync(self.aset(pairs))

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        run_sync(self.aclear(namespaces))

    def _dump(self, value: Any) -> tuple[str, bytes]:
        return self.serde.dumps_typed(value)

    def _load(self, stored: tuple[str, bytes]) -> Any:
        return self.serde.loads_typed(stored)
