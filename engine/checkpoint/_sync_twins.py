"""A checkpointer written with LangGraph's sync methods only: the contract's async methods call them.

LangGraph users often write a checkpointer with only ``get_tuple``, ``list``,
``put`` and ``put_writes`` (what LangGraph's ``invoke`` calls). The engine's
loop calls the async methods, under ``invoke`` too, so
:class:`~engine.checkpoint.base.BaseCheckpointSaver`'s async contract methods,
when a subclass defines the sync twin and not the async method, call the sync
one, on the calling thread (LangGraph's ``invoke`` reads on the caller's
thread too; a server run waits while it runs, so a saver for a server should
have its async methods). A subclass that defines neither gets the
NotImplementedError it always got, and so does a sync method that calls the
base's own (``super().get_tuple(...)``): the base has nothing to call then.
"""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["call_twin", "iter_twin", "missing"]

_BASE = "engine.checkpoint.base"
#: async contract method -> its sync twin
_TWINS = {"aget_tuple": "get_tuple", "alist": "list", "aput": "put", "aput_writes": "put_writes", "adelete_thread": "delete_thread"}

# Set while a sync twin runs: if it reaches the base's derived sync method (which runs the async
# one), the async method must not call the twin again.
_inside: contextvars.ContextVar[frozenset[tuple[int, str]]] = contextvars.ContextVar("graphwire_sync_twin", default=frozenset())


def missing(saver: object, method: str) -> str:
    return f"{type(saver).__name__} does not implement {method} (a BaseCheckpointSaver method)"


def _twin(saver: Any, method: str) -> Callable[..., Any]:
    """The subclass's own sync twin of ``method``, or NotImplementedError when it has none."""
    name = _TWINS[method]
    own = getattr(type(saver), name, None)
    # The base's own twin runs the async method: it is no twin (engine.checkpoint.base imports this module).
    if own is None or getattr(own, "__module__", None) == _BASE or (id(saver), name) in _inside.get():
        raise NotImplementedError(missing(saver, method))
    bound: Callable[..., Any] = getattr(saver, name)
    return bound


def call_twin(saver: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """``method``'s sync twin called with ``args``: its answer, or NotImplementedError without one."""
    twin = _twin(saver, method)
    if method == "aput_writes" and len(args) > 3 and "task_path" not in inspect.signature(twin).parameters:
        args = args[:3]  # a put_writes written before LangGraph passed task paths
    if method == "adelete_thread" and kwargs.get("lease") is None:
        kwargs.pop("lease", None)
    token = _inside.set(_inside.get() | {(id(saver), _TWINS[method])})
    try:
        return twin(*args, **kwargs)
    finally:
        _inside.reset(token)


async def iter_twin(saver: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
    """``alist`` from the sync ``list``: its items, taken one at a time."""
    items = iter(call_twin(saver, "alist", *args, **kwargs))
    while True:
        token = _inside.set(_inside.get() | {(id(saver), "list")})
        try:
            item = next(items, _END)
        finally:
            _inside.reset(token)
        if item is _END:
            return
        yield item


_END = object()
