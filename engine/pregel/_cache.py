"""Node caches in a step: which tasks' writes are cached, and keeping those of tasks that ran.

A task of a node with a ``cache_policy``, on a graph compiled with a cache,
has a full key: the node's namespace (``NodeSpec.cache_ns``) and the sha256
of ``key_func(input)``. Before a step runs, :func:`cached_writes` looks its
tasks up in one ``aget``; a task found there does not run, its cached writes
are its writes (applied and stored as if it had run). A task that ran and
finished (no error, no interrupt) has its writes kept by :func:`keep_writes`
for the policy's ttl.
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

from engine.pregel._algo import Task

__all__ = ["cache_key", "cached_writes", "keep_writes"]


def cache_key(t: Task) -> tuple[tuple[str, ...], str] | None:
    policy = t.node.cache_policy
    if policy is None:
        return None
    raw = policy.key_func(t.input)
    return (t.node.cache_ns, hashlib.sha256(raw.encode() if isinstance(raw, str) else raw).hexdigest())


async def cached_writes(cache: Any, tasks: Sequence[Task]) -> dict[str, list[tuple[str, Any]]]:
    """Task id -> the cached writes of those ``tasks`` that have some."""
    keys = {t.id: k for t in tasks if (k := cache_key(t)) is not None}
    if not keys:
        return {}
    found = await cache.aget(list(set(keys.values())))
    return {tid: [tuple(w) for w in found[k]] for tid, k in keys.items() if k in found}  # type: ignore[misc]


async def keep_writes(cache: Any, t: Task) -> None:
    key = cache_key(t)
    if key is not None and t.error is None and not t.interrupts:
        await cache.aset({key: (list(t.writes), t.node.cache_policy.ttl)})  # type: ignore[union-attr]
