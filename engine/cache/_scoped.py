"""A cache seen through a scope: every namespace it is given lives under a root label.

How the server keeps tenants' cached writes apart: a node of tenant A whose
input equals one of tenant B's must not get B's writes (the node may have
read B's memories or context to make them). ``ScopedCache(cache, "tenant.a")``
reads and writes ``("tenant.a", *namespace)`` of ``cache``; what it returns
is keyed by the namespaces it was given. A node's namespace starts with
``"__pregel_ns_writes"``, so an unscoped graph's entries never meet a
scope's.

Clearing everything is the one call a scope cannot pass on (the cache
contract clears named namespaces, not prefixes): ``aclear(None)`` on a scope
raises ValueError; name the namespaces (``graph.clear_cache()`` does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.cache.base import BaseCache, FullKey, Namespace

__all__ = ["ScopedCache"]


class ScopedCache(BaseCache[Any]):
    """``cache`` with every namespace under ``root``."""

    def __init__(self, cache: BaseCache[Any], root: str) -> None:
        if not isinstance(root, str) or not root:
            raise ValueError(f"a cache scope's root is a non-empty label, not {root!r}")
        super().__init__(serde=cache.serde)
        self.cache = cache
        self.root = root

    def _in(self, ns: Namespace) -> Namespace:
        return (self.root, *ns)

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        inside = {(self._in(ns), key): (ns, key) for ns, key in keys}
        found = await self.cache.aget(list(inside))
        return {inside[full]: value for full, value in found.items()}

    async def aset(self, pairs: Mapping[FullKey, tuple[Any, int | None]]) -> None:
        await self.cache.aset({(self._in(ns), key): entry for (ns, key), entry in pairs.items()})

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        if namespaces is None:
            raise ValueError("a scoped cache clears named namespaces only: pass them (graph.clear_cache() does)")
        await self.cache.aclear([self._in(ns) for ns in namespaces])
