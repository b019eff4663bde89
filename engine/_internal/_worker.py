"""One thread that runs blocking calls in order for coroutines: the SQLite files' SQL thread.

``loop.run_in_executor`` on a one-thread ``ThreadPoolExecutor`` does the same
with two futures per call (a ``concurrent.futures.Future``, an asyncio one
chained to it), the executor's bookkeeping and callbacks; on this machine a
call there and back cost ~52 µs of CPU, most of it that Python layer. Here a
call is a tuple on a ``queue.SimpleQueue`` (C) and an asyncio future resolved
with ``call_soon_threadsafe``: ~24 µs. A SQLite saver makes four or five
such calls a run.

Semantics kept from the executor: calls run one at a time, in the order they
were made; a call whose caller was cancelled before it started is skipped
(one already running finishes, its result dropped); the thread starts on
the first call (a saver used only from sync code never starts one); at
interpreter exit, calls already queued run before the process ends, as the
executor's ``atexit`` join does.

:func:`settle_soon` is that hand-back alone, for the engine's other threads
that work for coroutines (its sync nodes' threads, the PostgreSQL savers'
connection workers).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["CallThread", "settle_soon"]

T = TypeVar("T")
log = logging.getLogger("graphwire")

#: the item that stops the thread
_STOP = None


class CallThread:
    """A thread of its own for blocking calls awaited from an event loop (see the module docstring).

    Args:
        name: the thread's name.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._stopped = False

    @property
    def started(self) -> bool:
        """Whether the thread was started (a first call was made)."""
        return self._thread is not None

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` run on the thread; its result or its exception.

        Raises:
            RuntimeError: the thread was stopped (:meth:`stop`).
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._enqueue((loop, future, fn, args))
        return await future

    def submit_wait(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` run on the thread, the calling thread blocked until it returns (no event loop needed).

        Raises:
            RuntimeError: the thread was stopped (:meth:`stop`).
        """
        done: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._enqueue((None, done, fn, args))
        return done.result()

    def post(self, fn: Callable[[], object]) -> None:
        """``fn()`` run on the thread, not waited for (after the calls queued before it); an exception is logged."""
        self._enqueue((None, None, fn, ()))

    def _enqueue(self, item: tuple[Any, ...]) -> None:
        """``item`` to the thread (started on the first; RuntimeError once stopped)."""
        if self._thread is None or self._stopped:
            self._start()
        self._queue.put(item)

    def stop(self) -> None:
        """Let the thread end once the calls already queued have run (it is not waited for)."""
        with self._start_lock:
            self._stopped = True
            if self._thread is not None:
                self._queue.put(_STOP)

    def _start(self) -> None:
        with self._start_lock:
            if self._stopped:
                raise RuntimeError(f"{self._name}: stopped")
            if self._thread is not None:
                return
            thread = threading.Thread(target=_serve, args=(self._queue,), name=self._name, daemon=True)
            thread.start()
            self._thread = thread
            _live[id(self)] = (self._queue, thread)
            weakref.finalize(self, _forget, id(self))


def _serve(calls: queue.SimpleQueue[Any]) -> None:
    get = calls.get
    while True:
        item = get()
        if item is _STOP:
            return
        loop, future, fn, args = item
        if future is None:  # post: nobody waits for it
            try:
                fn()
            except Exception:
                log.warning("%s failed on %s", getattr(fn, "__qualname__", fn), threading.current_thread().name, exc_info=True)
            continue
        if loop is None:  # submit_wait: a concurrent future, its caller blocked on it
            try:
                future.set_result(fn(*args))
            except BaseException as exc:
                future.set_exception(exc)
            continue
        if future.cancelled():  # its caller went away before it started (racy read, as the executor's)
            continue
        error: BaseException | None
        try:
            result, error = fn(*args), None
        except StopIteration as exc:  # a future refuses it (TypeError), and its caller would wait forever
            result, error = None, RuntimeError(f"the call raised StopIteration: {exc!r}")
            error.__cause__ = exc
        except BaseException as exc:
            result, error = None, exc
        settle_soon(loop, future, result, error)
        del item, future, args, result, error


def settle_soon(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """From another thread: give ``future`` (of ``loop``) the outcome of the work done for it, on its
    loop; nothing if the loop is closed (nobody waits any more) or the future is done (its caller left)."""
    try:
        loop.call_soon_threadsafe(_settle, future, result, error)
    except RuntimeError:  # the loop is closed
        pass


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


# The threads are daemons, so one whose owner was never closed does not keep the process
# alive; at exit each is asked to stop and joined, so calls already queued run first.
_live: dict[int, tuple[queue.SimpleQueue[Any], threading.Thread]] = {}


def _forget(key: int) -> None:
    found = _live.pop(key, None)
    if found is not None:
        found[0].put(_STOP)


def _join_all() -> None:
    for calls, thread in list(_live.values()):
        calls.put(_STOP)
        thread.join()


atexit.register(_join_all)
