"""Deriving the sync face from async code, mechanically.

The engine's loop and the checkpointer contract are written once, as
coroutines. A sync call runs the coroutine on an event loop owned by the
calling thread (created on first use and kept: creating a loop costs ~80 µs,
reusing one ~6 µs). When the calling thread already runs an event loop (a sync
API called from async code), the coroutine runs on a short-lived worker
thread instead, because one thread cannot run two loops at once; it runs in a
copy of the caller's context, so context variables (the running task's
config, the server's calling tenant) are seen there as they were here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from typing import Any, AsyncIterator, Coroutine, Iterator, TypeVar

T = TypeVar("T")

_local = threading.local()


def _thread_loop() -> asyncio.AbstractEventLoop:
    loop = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        _local.loop = loop
    return loop


def _in_running_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from sync code and return its result."""
    if not _in_running_loop():
        return _thread_loop().run_until_complete(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        context = contextvars.copy_context()
        return pool.submit(context.run, lambda: _thread_loop().run_until_complete(coro)).result()


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
                yield loop.run_until_complete(agen.__anext__())
            except StopAsyncIteration:
                return
    finally:
        if not loop.is_running():
            loop.run_until_complete(_aclose(agen))


async def _aclose(agen: AsyncIterator[Any]) -> None:
    aclose = getattr(agen, "aclose", None)
    if aclose is not None:
        await aclose()
