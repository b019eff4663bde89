"""Deriving the sync face from async code, mechanically.

The engine's loop and the checkpointer contract are written once, as
coroutines. A sync call runs the coroutine on an event loop owned by the
calling thread (created on first use and kept: creating a loop costs ~80 µs,
reusing one ~6 µs; when the thread ends its loop is kept for the next thread
that needs one). When the calling thread already runs an event loop of its
own (a sync API called from async code: a notebook, an async test), that loop
is set aside while the call runs on the thread's loop, right there: the caller
waits for a sync call whatever runs it. When the loop running is the thread's
own (a sync call inside a sync call's coroutine), the coroutine runs on a
short-lived worker thread instead, because one loop cannot run twice at once;
it runs in a copy of the caller's context, so context variables (the running
task's config, the server's calling tenant) are seen there as they were here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import sys
import threading
from typing import Any, AsyncIterator, Callable, Coroutine, Iterator, TypeVar

T = TypeVar("T")


class _Locals(threading.local):
    """A thread's own: its loop, and how many sync nodes run inline up its stack. The class's
    values are a new thread's (read without the AttributeError a missing one costs)."""

    loop: asyncio.AbstractEventLoop | None = None
    off_loop = 0


_local = _Locals()

# Loops of threads that ended, idle, for the next thread that needs one. A thread
# pool made for one call (LangGraph's sync loop makes one per invoke and calls a
# saver's sync face from its workers) would otherwise build a loop per worker per
# call (~80 µs, a socket pair and an epoll handle each) and leave it to the garbage.
_spare: list[asyncio.AbstractEventLoop] = []
_SPARE_MAX = 32


class _Keeper:
    """Held in a thread's locals beside its loop: when the thread ends, its locals go, and
    the loop goes back to the spares (when nothing is left on it; else it is closed)."""

    __slots__ = ("loop",)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def __del__(self) -> None:
        loop = self.loop
        try:
            if loop.is_closed() or loop.is_running():
                return
            if _idle(loop) and len(_spare) < _SPARE_MAX:
                _spare.append(loop)
            else:
                loop.close()
        except Exception:  # at interpreter shutdown, or a loop of another kind: leave it
            pass


def _idle(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether nothing waits on ``loop``: no task, no callback due or scheduled."""
    return not getattr(loop, "_ready", True) and not getattr(loop, "_scheduled", True) and not asyncio.all_tasks(loop)


def _thread_loop() -> asyncio.AbstractEventLoop:
    loop = _local.loop
    if loop is None or loop.is_closed():
        loop = None
        while _spare:
            try:
                loop = _spare.pop()
            except IndexError:  # another thread took the last one
                break
            if not loop.is_closed():
                break
            loop = None
        if loop is None:
            loop = asyncio.new_event_loop()
        _local.loop = loop
        _local.keeper = _Keeper(loop)
    return loop


def _in_running_loop() -> bool:
    if _local.off_loop:
        return True  # a sync node run inline (call_off_loop): this thread's loop is busy up the stack
    return asyncio._get_running_loop() is not None  # get_running_loop() raises when there is none: ~1 µs a call


def on_sync_loop() -> bool:
    """Whether the running loop is this thread's own, driven by a sync call (``invoke``,
    ``get_state``): that call's coroutines are all it runs, so a saver may block on its
    I/O right here, as LangGraph's sync savers do, rather than hop to a worker thread and back."""
    return asyncio._get_running_loop() is _local.loop is not None


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from sync code and return its result."""
    if not _in_running_loop():
        return _drive(_thread_loop(), coro)
    caller = asyncio._get_running_loop()
    if not _local.off_loop and caller is not None and caller is not _local.loop:
        # A sync call from code that runs a loop of its own (a notebook's cell, an async test): that
        # loop waits for the call whatever runs it (as LangGraph's sync run blocks it), so the call
        # runs right here on this thread's loop, the caller's set aside meanwhile, not on a thread of
        # its own with this one blocked on a lock until it ends.
        asyncio._set_running_loop(None)
        try:
            return _drive(_thread_loop(), coro)
        finally:
            asyncio._set_running_loop(caller)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        context = contextvars.copy_context()
        return pool.submit(context.run, lambda: _thread_loop().run_until_complete(coro)).result()


def run_inline(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro``, which never waits, to its end right here, with no event loop.

    For a saver whose coroutines do no I/O (the in-memory one): its sync face
    then costs a coroutine's creation, not a loop's set-up (about 3 µs a call,
    more on a thread's first). Raises RuntimeError, the coroutine closed, if it waits.
    """
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError(f"{getattr(coro, '__qualname__', coro)!r} waited: it cannot run inline")


def _drive(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on ``loop``, starting it right here, as the loop's own step would.

    Many sync calls never wait for anything (a run without a saver, or on the
    in-memory saver, its sync nodes run inline): started in place, with
    ``loop`` as the running loop and in a copy of the caller's context (as a
    task would run it), such a call needs no task and no turn of the loop:
    ~13 µs less an invoke, a tenth of a one-node graph's. At its first real
    wait it goes on as a task of the loop, in that same context, and
    everything after is as before. Only ``asyncio.current_task()`` differs
    before that wait: None rather than a task; so the engine awaits a user's
    coroutine (an async node or router) through :func:`in_a_task`.
    """
    hooks = _asyncgen_hooks(loop)
    if hooks is None:  # a loop that does not say how it tracks async generators
        return loop.run_until_complete(coro)
    context = contextvars.copy_context()
    caller_hooks = sys.get_asyncgen_hooks()
    asyncio._set_running_loop(loop)
    sys.set_asyncgen_hooks(*hooks)  # as the loop does while it runs: it closes what is left unfinished
    try:
        waiting = context.run(coro.send, None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    finally:
        asyncio._set_running_loop(None)
        sys.set_asyncgen_hooks(*caller_hooks)
    rest = loop.create_task(_go_on(coro, waiting), context=context)
    for start in _local.__dict__.pop("at_wait", ()):
        start(loop)  # what the call put off while nothing else could run starts now, beside it
    return loop.run_until_complete(rest)


def at_first_wait(start: Callable[[asyncio.AbstractEventLoop], None]) -> None:
    """Have ``start(loop)`` called when a call started in place (:func:`_drive`) first waits:
    work it would give a task of its own (a version writer's) has no loop to run it before
    then. Code running in a task (``asyncio.current_task()``) starts its tasks itself."""
    _local.__dict__.setdefault("at_wait", []).append(start)


def forget_first_wait(start: Callable[[asyncio.AbstractEventLoop], None]) -> None:
    """Undo :func:`at_first_wait` (the work was done in place meanwhile)."""
    waiting = _local.__dict__.get("at_wait")
    if waiting and start in waiting:
        waiting.remove(start)


def _asyncgen_hooks(loop: asyncio.AbstractEventLoop) -> tuple[Any, Any] | None:
    """The hooks ``loop`` installs for async generators while it runs (asyncio's own loops')."""
    firstiter = getattr(loop, "_asyncgen_firstiter_hook", None)
    finalizer = getattr(loop, "_asyncgen_finalizer_hook", None)
    return None if firstiter is None or finalizer is None else (firstiter, finalizer)


async def _go_on(coro: Coroutine[Any, Any, T], waiting: Any) -> T:
    return await _Rest(coro, waiting)


class _Rest:
    """What is left of a coroutine that :func:`_drive` started, from the future it waits on:
    awaited by a task, it hands the task each future the coroutine waits on and passes in
    what the task sends or throws (a cancellation)."""

    __slots__ = ("coro", "waiting")

    def __init__(self, coro: Coroutine[Any, Any, Any], waiting: Any) -> None:
        self.coro, self.waiting = coro, waiting

    def __await__(self) -> Any:
        coro, waiting = self.coro, self.waiting
        while True:
            try:
                yield waiting
            except BaseException as exc:
                try:
                    waiting = coro.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    waiting = coro.send(None)
                except StopIteration as done:
                    return done.value


async def in_a_task(coro: Coroutine[Any, Any, T]) -> T:
    """Await a user's coroutine where it sees a task of its own when no task runs the call.

    Under :func:`_drive`'s in-place start no task runs the call yet, and user code
    asks for one: ``asyncio.timeout()``, ``asyncio.TaskGroup`` and anyio (httpx)
    raise without it, and cancel the task they find. Such a coroutine goes on a
    task of the loop (in a copy of this context); otherwise it is awaited here.
    """
    if asyncio.current_task() is not None:
        return await coro
    return await asyncio.get_running_loop().create_task(coro)


def call_off_loop(fn: Callable[..., T], *args: Any) -> T:
    """Call a sync node inline on the loop's thread as LangGraph runs one: with no loop running.

    So the node may call ``asyncio.run()`` (an async library from sync code); a sync
    engine call it makes (another graph's ``invoke``) runs on a worker thread, as
    from under a running loop, since this thread's loop is busy up the stack.
    """
    loop = asyncio._get_running_loop()
    asyncio._set_running_loop(None)
    _local.off_loop += 1
    try:
        return fn(*args)
    finally:
        _local.off_loop -= 1
        asyncio._set_running_loop(loop)


def iter_sync(agen: AsyncIterator[T]) -> Iterator[T]:
    """Iterate an async iterator from sync code, one item at a time."""
    if _in_running_loop():
        # Drive the whole iterator on one worker thread so its loop stays the same.
        pool = concurrent.futures.ThreadPoolExecutor(1)
        try:
            while True:
                try:
                    yield pool.submit(lambda: _thread_loop().run_until_complete(agen.__anext__())).result()
                except StopAsyncIteration:
                    return
        finally:  # the loop above ends only by returning, so the code below is for the other case
            pool.submit(lambda: _thread_loop().run_until_complete(_aclose(agen))).result()
            pool.shutdown()
    loop = _thread_loop()
    try:
        while True:
            try:
                yield _drive(loop, agen.__anext__())  # type: ignore[arg-type]
            except StopAsyncIteration:
                return
    finally:
        if not loop.is_running():
            loop.run_until_complete(_aclose(agen))


async def _aclose(agen: AsyncIterator[Any]) -> None:
    aclose = getattr(agen, "aclose", None)
    if aclose is not None:
        await aclose()
