"""One saver's PostgreSQL connections: blocking psycopg connections, each owned
by a worker thread of its own, shared by every event loop and thread.

Why not an asyncio pool: an ``AsyncConnectionPool`` belongs to the loop it
was opened on, and a saver is used from several loops (the server's, and the
sync face, which runs each call on a loop of the calling thread's), so it
needed a pool per loop, and a pool per long-lived thread that ever called
the sync face (ToolNode's workers), which nothing closed. And psycopg's
async statements cost about three times the CPU of its blocking ones (the
blocking wait is C code that releases the GIL; the async one is Python
generators driven by the loop's selector).

So a saver runs its statements here: :meth:`Connections.run` hands a
function of a connection to a worker thread and awaits its result on the
calling loop, whichever it is. Workers start on demand, up to ``max_size``
(one connection each, opened on a worker's first job and again after the
server dropped it), and those beyond ``min_size`` end after a while idle. A
call that finds every worker busy waits for one at most ``timeout`` seconds
(:class:`NoConnection`). A job left in a transaction (it failed half-way)
is rolled back before the worker takes the next. Nothing here belongs to an
event loop, so a loop that ends (``asyncio.run`` returning, a thread's)
leaves nothing behind, and :meth:`Connections.close` closes every
connection the saver ever opened.
"""

from __future__ import annotations

import asyncio
import logging
import math
import queue
import threading
import traceback
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Generic, TypeVar

import psycopg
from psycopg import pq
from psycopg.conninfo import conninfo_to_dict

__all__ = ["Connections", "NoConnection", "Reserved"]

T = TypeVar("T")

log = logging.getLogger("graphwire.checkpoint")

_IDLE_SECONDS = 300.0  # a worker beyond min_size ends after this long without a job
_CLOSE_TIMEOUT = 5.0


class NoConnection(Exception):
    """Every connection stayed busy for ``timeout`` seconds, or the connections are closed."""


class _Job(Generic[T]):
    """One function of a connection, and where its outcome goes (a future of the caller's loop)."""

    __slots__ = ("fn", "loop", "future", "state", "lock")

    def __init__(self, fn: Callable[[psycopg.Connection[Any]], T], loop: asyncio.AbstractEventLoop) -> None:
        self.fn = fn
        self.loop = loop
        self.future: asyncio.Future[T] = loop.create_future()
        self.state = "queued"  # -> "running" (a worker took it) | "dropped" (timed out or abandoned)
        self.lock = threading.Lock()

    def take(self) -> bool:
        """A worker starts it (False: it was dropped while it waited)."""
        with self.lock:
            if self.state != "queued" or self.future.cancelled():
                return False
            self.state = "running"
            return True

    def drop(self) -> bool:
        """Its caller gives up waiting for a worker (False: one already took it)."""
        with self.lock:
            if self.state != "queued":
                return False
            self.state = "dropped"
            return True

    def settle(self, result: Any, exc: BaseException | None) -> None:
        try:
            self.loop.call_soon_threadsafe(_settle, self.future, result, exc)
        except RuntimeError:  # its loop is closed: nobody waits any more
            pass


def _settle(future: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if future.done():  # cancelled: its caller left
        return
    if exc is None:
        future.set_result(result)
    else:
        future.set_exception(exc)


class Connections:
    """Blocking connections on worker threads, for coroutines on any event loop.

    Args:
        conninfo: the libpq connection string.
        min_size / max_size: workers (hence connections) kept / at most.
        timeout: seconds a call waits for a free worker before :class:`NoConnection`.
        name: the threads' names, and ``application_name`` unless the DSN sets one.
        idle_in_transaction: seconds a connection may sit idle inside a
            transaction before the server ends its session (None: the server's setting).
    """

    def __init__(
        self,
        conninfo: str,
        *,
        min_size: int,
        max_size: int,
        timeout: float,
        name: str,
        idle_in_transaction: float | None = None,
    ) -> None:
        if max_size < 1 or min_size < 0 or min_size > max_size:
            raise ValueError(f"need 0 <= min_size <= max_size and max_size >= 1, got {min_size} and {max_size}")
        self._conninfo = conninfo
        self._kwargs: dict[str, Any] = {"autocommit": True}
        given = conninfo_to_dict(conninfo)
        if "application_name" not in given:
            self._kwargs["application_name"] = name  # what pg_stat_activity shows, unless the DSN says
        if "connect_timeout" not in given:  # a server that never answers fails a call, not hangs it
            self._kwargs["connect_timeout"] = max(2, math.ceil(timeout))  # libpq's least is 2 s
        self._min_size, self._max_size, self._timeout = min_size, max_size, timeout
        self._name = name
        # Every statement the saver runs is written to be index lookups whatever
        # the parameters (see _queries.py), so a generic plan is as good as a custom
        # one, and reusing it saves planning the recursive read (~0.5 ms) on every
        # get. JIT compilation, which the recursive read's row estimates can
        # trigger, costs ~10 ms to save nothing. A transaction left open by a
        # stalled process (SIGSTOP, a long GC pause) ends with its session after
        # idle_in_transaction seconds, so the row locks it holds (a thread's lease
        # row) do not outlive it.
        self._settings = "SET plan_cache_mode = force_generic_plan; SET jit = off"
        if idle_in_transaction is not None:
            self._settings += f"; SET idle_in_transaction_session_timeout = {max(1, round(idle_in_transaction * 1000))}"
        self._jobs: queue.SimpleQueue[_Job[Any] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: set[threading.Thread] = set()
        self._idle = 0  # workers waiting for a job, less the jobs already handed to them
        self._open: set[psycopg.Connection[Any]] = set()
        self._closed = False

    async def run(self, fn: Callable[[psycopg.Connection[Any]], T], *, retry_broken: int = 0) -> T:
        """``fn(connection)`` on a worker; its result or exception.

        ``retry_broken``: how many times to run ``fn`` again, on a new
        connection, when it failed because the server dropped the one it had
        (a restart; a session ended for idling in a transaction). Only for
        work that may run twice.
        """
        for attempt in range(retry_broken + 1):
            job = self._submit(fn)
            try:
                return await job.future
            except psycopg.Error as exc:
                if not getattr(exc, "_graphwire_broken", False) or attempt == retry_broken:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    @asynccontextmanager
    async def reserved(self, *, transaction: bool = False) -> AsyncIterator[Reserved]:
        """One connection (its worker) for the block's calls, in one transaction if asked
        (committed when the block ends normally, rolled back when it raises)."""
        inbox: queue.SimpleQueue[_Job[Any] | str] = queue.SimpleQueue()

        def hold(conn: psycopg.Connection[Any]) -> None:
            if transaction:
                conn.execute("BEGIN")
            while True:
                item = inbox.get()
                if isinstance(item, str):  # the block ended: "COMMIT" or "ROLLBACK"
                    if transaction:
                        conn.execute(item)
                    return
                if item.take():
                    try:
                        result = item.fn(conn)
                    except BaseException as exc:  # noqa: BLE001 - handed to the caller
                        item.settle(None, exc)
                    else:
                        item.settle(result, None)

        held = self._submit(hold)
        reserved = Reserved(inbox, held.future)
        end = "ROLLBACK"
        try:
            yield reserved
            end = "COMMIT"
        finally:
            inbox.put(end)
            await asyncio.shield(held.future)

    def _submit(self, fn: Callable[[psycopg.Connection[Any]], T]) -> _Job[T]:
        loop = asyncio.get_running_loop()
        job = _Job(fn, loop)
        with self._lock:
            if self._closed:
                raise NoConnection("the PostgreSQL connections are closed")
            if self._idle:
                self._idle -= 1
                waits = False
            elif len(self._threads) < self._max_size:
                thread = threading.Thread(target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True)
                self._threads.add(thread)
                thread.start()
                waits = False
            else:
                waits = True
            self._jobs.put(job)
        if waits:
            loop.call_later(self._timeout, self._expire, job)
        return job

    def _expire(self, job: _Job[Any]) -> None:
        if job.drop() and not job.future.done():
            job.future.set_exception(
                NoConnection(f"all {self._max_size} connections stayed busy for {self._timeout:g}s")
            )

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            conn = psycopg.connect(self._conninfo, **self._kwargs)
        except BaseException as exc:
            # A failed attempt's half-open libpq connection is a local of psycopg's
            # frames in this traceback, in a cycle only the garbage collector would
            # break: until then the socket, and the server's session, stay open.
            cause: BaseException | None = exc
            while cause is not None:
                traceback.clear_frames(cause.__traceback__)
                cause = cause.__context__
            raise
        try:
            conn.execute(self._settings)
        except BaseException:
            conn.close()
            raise
        with self._lock:
            self._open.add(conn)
        return conn

    def _drop(self, conn: psycopg.Connection[Any] | None) -> None:
        if conn is None:
            return
        with self._lock:
            self._open.discard(conn)
        try:
            conn.close()
        except Exception:  # noqa: BLE001, S110 - already gone
            pass

    def _work(self) -> None:
        conn: psycopg.Connection[Any] | None = None
        me = threading.current_thread()
        try:
            while True:
                try:
                    job = self._jobs.get(timeout=_IDLE_SECONDS)
                except queue.Empty:
                    with self._lock:
                        if len(self._threads) > self._min_size and self._idle > 0:
                            self._idle -= 1
                            self._threads.discard(me)
                            return
                    continue
                if job is None:  # closing
                    return
                if job.take():
                    conn = self._do(job, conn)
                with self._lock:
                    self._idle += 1
        finally:
            with self._lock:
                self._threads.discard(me)
            self._drop(conn)

    def _do(self, job: _Job[Any], conn: psycopg.Connection[Any] | None) -> psycopg.Connection[Any] | None:
        """Run one job; the connection to keep for the next (None: open a new one)."""
        try:
            if conn is None or conn.closed:
                conn = self._connect()
            result = job.fn(conn)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            if conn is not None and (conn.broken or conn.closed):
                exc._graphwire_broken = True  # type: ignore[attr-defined]
                self._drop(conn)
                conn = None
            job.settle(None, exc)
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
        else:
            job.settle(result, None)
        if conn is not None and conn.info.transaction_status != pq.TransactionStatus.IDLE:
            conn = self._reset(conn)
        return conn

    def _reset(self, conn: psycopg.Connection[Any]) -> psycopg.Connection[Any] | None:
        """A connection a job left inside a transaction (it failed half-way): rolled back, or dropped."""
        try:
            if conn.info.transaction_status in (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR):
                conn.execute("ROLLBACK")
                return conn
        except psycopg.Error as exc:
            log.debug("dropping a connection that could not roll back: %s", exc)
        self._drop(conn)
        return None

    def close(self) -> None:
        """Stop every worker and close every connection (blocks, a few seconds at most)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            threads = list(self._threads)
        for _ in threads:
            self._jobs.put(None)
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(_CLOSE_TIMEOUT)
        with self._lock:
            left = list(self._open)
        for conn in left:  # a worker still stuck in a statement: its socket goes now
            try:
                conn.pgconn.finish()
            except Exception:  # noqa: BLE001, S110 - already gone
                pass

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)


class Reserved:
    """The calls of one :meth:`Connections.reserved` block, all on its one connection."""

    def __init__(self, inbox: queue.SimpleQueue[Any], held: asyncio.Future[Any]) -> None:
        self._inbox = inbox
        self._held = held  # fails when no connection came, or the connection failed between calls

    async def run(self, fn: Callable[[psycopg.Connection[Any]], T]) -> T:
        """``fn(connection)`` on the block's connection."""
        if self._held.done():
            self._held.result()  # its failure (no connection, or the connection broke)
            raise NoConnection("the reserved connection is no longer held")
        job = _Job(fn, asyncio.get_running_loop())
        self._inbox.put(job)
        done, _ = await asyncio.wait((job.future, self._held), return_when=asyncio.FIRST_COMPLETED)
        if job.future in done:
            return job.future.result()
        job.drop()
        self._held.result()  # raises its failure
        raise NoConnection("the reserved connection is no longer held")
