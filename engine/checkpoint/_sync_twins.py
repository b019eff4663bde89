"""A saver class whose own sync methods are newer than its async ones: the engine's calls reach them.

LangGraph users often write a checkpointer with only ``get_tuple``, ``list``,
``put`` and ``put_writes`` (what LangGraph's ``invoke`` calls), or subclass a
saver and override one of those. The engine's loop calls the async methods,
under ``invoke`` too, so such an override would never run. When a class is
defined, :func:`install_twins` (called by
:meth:`~engine.checkpoint.base.BaseCheckpointSaver.__init_subclass__`) gives
each sync method it defines without the async one (``aget_tuple``,
``alist``, ``aput``, ``aput_writes``, ``adelete_thread``) an async method that
calls it, on the calling thread (LangGraph's ``invoke`` reads on the caller's
thread too; a server's run waits while it runs, so a saver for a server
should have its async methods).

A sync method that calls its parent's (``super().put(...)``) reaches, through
the parent's derived sync face, the async method made here again: while its
twin runs, that method hands the call to the parent class's async method, so
the parent's own implementation does the work (and a class with none raises
the NotImplementedError the base always raised). The sync method itself is
marked as running whoever calls it (the engine through its twin, LangGraph's
loop or a program directly), so its body runs once a call: a direct call
used to run it a second time, through the async method it reached.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from types import FunctionType
from typing import Any

__all__ = ["inside", "install_twins", "keep_signatures", "missing"]

#: async contract method -> its sync twin
_TWINS = {"aget_tuple": "get_tuple", "alist": "list", "aput": "put", "aput_writes": "put_writes", "adelete_thread": "delete_thread"}

# (saver id, sync method) while that twin runs: its async method then defers to the parent class's.
_inside: contextvars.ContextVar[frozenset[tuple[int, str]]] = contextvars.ContextVar("graphwire_sync_twin", default=frozenset())


def missing(saver: object, method: str) -> str:
    return f"{type(saver).__name__} does not implement {method} (a BaseCheckpointSaver method)"


def install_twins(cls: type) -> None:
    """Give ``cls`` an async method for each sync twin it defines without its async method."""
    for amethod, sync in _TWINS.items():
        if sync in cls.__dict__ and amethod not in cls.__dict__:
            made = _alist(cls) if amethod == "alist" else _async(cls, amethod, sync)
            made.__name__ = made.__qualname__ = amethod
            made.__doc__ = f"Calls this class's own ``{sync}`` (engine.checkpoint._sync_twins)."
            setattr(cls, amethod, made)
            if sync != "list":  # (a generator's body runs at each item: _items marks those)
                setattr(cls, sync, _marked(cls.__dict__[sync], sync))
    keep_signatures(cls)


def inside(saver: object, sync: str) -> bool:
    """Whether ``saver``'s own ``sync`` method (one with a twin) is running: a parent's sync face
    reached from there is its ``super()`` call, to be done by the parent itself."""
    return (id(saver), sync) in _inside.get()


def _marked(fn: Callable[..., Any], sync: str) -> Callable[..., Any]:
    """``fn``, a class's own sync method, marked as running while it runs (its twin's parent call)."""
    if not callable(fn) or getattr(fn, "__graphwire_marked__", False):
        return fn

    @functools.wraps(fn)
    def marked(self: Any, *args: Any, **kwargs: Any) -> Any:
        if (id(self), sync) in _inside.get():
            return fn(self, *args, **kwargs)
        return _calling(self, sync, lambda: fn(self, *args, **kwargs))

    marked.__graphwire_marked__ = True  # type: ignore[attr-defined]
    return marked


#: what LangGraph's loop asks the signature of on every run (``put_writes_accepts_task_path``)
_INSPECTED = ("put_writes", "aput_writes")


def keep_signatures(cls: type) -> None:
    """Keep, on the write methods of ``cls`` and of the classes it derives from, the signature
    :func:`inspect.signature` finds for them (``__signature__``, which it then returns as it is):
    LangGraph's loop asks every run whether ``put_writes`` takes ``task_path``, and building
    a signature from the code each time cost about 20 µs a run."""
    for klass in cls.__mro__:
        if klass.__module__.partition(".")[0] == "langgraph":
            continue  # LangGraph's own base class (adopted beneath ours) is left as it is
        for name in _INSPECTED:
            fn = klass.__dict__.get(name)
            if isinstance(fn, FunctionType) and "__signature__" not in fn.__dict__:
                try:
                    fn.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
                except (TypeError, ValueError):  # (none found: asked again each time, as before)
                    pass


def _calling(saver: Any, sync: str, call: Callable[[], Any]) -> Any:
    token = _inside.set(_inside.get() | {(id(saver), sync)})
    try:
        return call()
    finally:
        _inside.reset(token)


def _async(cls: type, amethod: str, sync: str) -> Callable[..., Any]:
    if amethod == "aput_writes":
        with_path = _takes(cls.__dict__[sync], "task_path")  # decided once, with the class

        async def aput_writes(self: Any, config: Any, writes: Any, task_id: str, task_path: str = "") -> Any:
            if (id(self), sync) in _inside.get():
                return await getattr(super(cls, self), amethod)(config, writes, task_id, task_path)
            twin = getattr(self, sync)
            args = (config, writes, task_id, task_path) if with_path else (config, writes, task_id)
            return _calling(self, sync, lambda: twin(*args))

        return aput_writes

    async def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if (id(self), sync) in _inside.get():
            return await getattr(super(cls, self), amethod)(*args, **kwargs)
        if amethod == "adelete_thread" and kwargs.get("lease") is None:
            kwargs.pop("lease", None)  # a delete_thread written for LangGraph takes the thread id alone
        twin = getattr(self, sync)
        return _calling(self, sync, lambda: twin(*args, **kwargs))

    return method


def _alist(cls: type) -> Callable[..., AsyncIterator[Any]]:
    def alist(self: Any, config: Any, *, filter: Any = None, before: Any = None, limit: Any = None) -> AsyncIterator[Any]:
        if (id(self), "list") in _inside.get():
            parent: AsyncIterator[Any] = getattr(super(cls, self), "alist")(config, filter=filter, before=before, limit=limit)
            return parent
        return _items(self, _calling(self, "list", lambda: self.list(config, filter=filter, before=before, limit=limit)))

    return alist


async def _items(saver: Any, items: Iterator[Any]) -> AsyncIterator[Any]:
    """A sync ``list``'s items, each taken while its twin runs (a generator's body runs at each step)."""
    items = iter(items)
    while True:
        item = _calling(saver, "list", lambda: next(items, _END))
        if item is _END:
            return
        yield item


_END = object()


def _takes(fn: Callable[..., Any], name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
