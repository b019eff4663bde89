"""Node caches in a step: which tasks' writes are cached, and keeping those of tasks that ran.

A task of a node with a ``cache_policy``, on a graph compiled with a cache,
has a full key: the node's namespace (``NodeSpec.cache_ns``) and the sha256
of ``key_func(input)``. Before a step runs, :func:`cached_writes` looks its
tasks up in one ``aget``; a task found there does not run, its cached writes
are its writes (applied and stored as if it had run). A task that ran and
finished (no error, no interrupt) has its writes kept by :func:`keep_writes`
for the policy's ttl.

A call of a ``@task`` function (:mod:`engine.pregel._calls`) is cached the
same way, as LangGraph's: under ``("__pregel_ns_writes", <the function's
module.qualname>)`` and the sha256 of ``key_func(*args, **kwargs)``, with the
task's own policy or else its entrypoint's (``entrypoint(cache_policy=)``).
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

from engine.pregel._algo import Task

__all__ = ["cache_key", "call_cache_key", "call_namespace", "cached_writes", "keep_writes"]

#: the namespace root of cached writes (LangGraph's)
WRITES_NS = "__pregel_ns_writes"


def _digest(raw: str | bytes) -> str:
    return hashlib.sha256(raw.encode() if isinstance(raw, str) else raw).hexdigest()


def identifier(fn: Any) -> str:
    """A function's ``module.qualname`` (``"__dynamic__"`` without a qualname), as LangGraph names cached functions."""
    qualname = getattr(fn, "__qualname__", None)
    return f"{getattr(fn, '__module__', '')}.{qualname}" if qualname else "__dynamic__"


def call_namespace(fn: Any) -> tuple[str, ...]:
    """Where the cached results of calls of the task function ``fn`` live."""
    return (WRITES_NS, identifier(fn))


def call_cache_key(fn: Any, policy: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[str, ...], str]:
    return (call_namespace(fn), _digest(policy.key_func(*args, **kwargs)))


def cache_key(t: Task) -> tuple[tuple[str, ...], str] | None:
    policy = t.node.cache_policy
    if policy is None:
        return None
    return (t.node.cache_ns, _digest(policy.key_func(t.input)))


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
