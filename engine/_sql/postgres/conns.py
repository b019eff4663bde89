"""One saver's PostgreSQL connections: a psycopg_pool ``ConnectionPool`` of blocking
connections, used on worker threads of the saver's, shared by every event loop and thread.

Why not an asyncio pool: an ``AsyncConnectionPool`` belongs to the loop it
was opened on, and a saver is used from several loops (the server's, and the
sync face, which runs each call on a loop of the calling thread's), so it
needed a pool per loop, and a pool per long-lived thread that ever called
the sync face (ToolNode's workers), which nothing closed. And psycopg's
async statements cost about three times the CPU of its blocking ones (the
blocking wait is C code that releases the GIL; the async one is Python
generators driven by the loop's selector).

So a saver runs its statements here: :meth:`Connections.run` hands a
function of a connection to a worker thread, which takes a connection from
the pool for it, and awaits the result on the calling loop, whichever it is.
Under a sync call (``invoke``, ``get_state``: the running loop is the calling
thread's own, :func:`engine._internal._sync.on_sync_loop`, and that call's
coroutines are all it runs) the function runs right there instead, on a
connection of the same pool, as LangGraph's sync PostgresSaver runs on its
caller's thread: the hand-off to a worker and back (a thread wake-up each
way, the loop's self-pipe) cost ~100 µs of CPU a statement, two or more an
invoke. The server's loops, and any other async caller, keep to the workers.
What the pool does is its own: connections opened in the background
(``min_size`` kept, up to ``max_size``), those beyond ``min_size`` closed after
a while unused, one the server dropped replaced, one returned inside a
transaction (its job failed half-way) rolled back, reconnecting with backoff
while the server is away. The hand-off to the threads is ours, not a
``ThreadPoolExecutor``'s: measured, the executor's futures (a Condition each,
an idle semaphore, ``wrap_future``'s chaining) cost ~25 µs more CPU a
statement with 8 callers (~65 µs against ~40 for a ``select 1``), 4-7 % more
server CPU a gRPC run. Workers start on demand, up to ``max_size``, and those
beyond ``min_size`` end after a while idle. A call waits for a worker and a
connection at most ``timeout`` seconds in all (:class:`NoConnection`); a job
whose caller gave up before a worker took it never runs. Nothing here
belongs to an event loop, so a loop that ends (``asyncio.run`` returning, a
thread's) leaves nothing behind, and :meth:`Connections.close` closes every
connection the saver opened.
"""

from __future__ import annotations

import asyncio
import math
import queue
import threading
import time
import traceback
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, ClassVar, Generic, TypeVar, cast

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from engine._internal._sync import on_sync_loop
from engine._internal._worker import settle_soon
from engine._sql.postgres.given import Borrowed, Fresh

__all__ = ["Connections", "NoConnection", "Reserved", "kept_cursor", "kept_raw_cursor"]

T = TypeVar("T")

_IDLE_SECONDS = 300.0  # a connection (a worker) beyond min_size is closed (ends) after this long unused
_CLOSE_TIMEOUT = 5.0
_CLOSED = "the PostgreSQL connections are closed"


class NoConnection(Exception):
    """No connection came within ``timeout`` seconds, or the connections are closed."""


class _Job(Generic[T]):
    """One function of a connection, and where its outcome goes (a future of the caller's loop)."""

    __slots__ = ("fn", "loop", "future", "deadline", "state", "lock")

    def __init__(self, fn: Callable[[Any], T], loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        self.fn = fn
        self.loop = loop
        self.future: asyncio.Future[T] = loop.create_future()
        self.deadline = deadline  # when its wait for a connection ends
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
        settle_soon(self.loop, self.future, result, exc)  # (nothing if its loop is closed, or its caller left)


class _Connection(psycopg.Connection[Any]):
    """A pool's connections; each :class:`Connections` has a subclass of its own, which
    remembers why its last attempt to connect failed (the pool only logs it)."""

    failure: ClassVar[str | None] = None
    kept: psycopg.Cursor[Any] | None = None  # see kept_cursor
    kept_raw: psycopg.RawCursor[Any] | None = None  # see kept_raw_cursor

    @classmethod
    def connect(cls, conninfo: str = "", **kwargs: Any) -> Any:
        try:
            conn = super().connect(conninfo, **kwargs)
        except BaseException as exc:
            # A failed attempt's half-open libpq connection is a local of psycopg's
            # frames in this traceback (and its context's), in a cycle only the
            # garbage collector would break; the pool logs the exception, and a
            # handler that keeps records keeps it: until then the socket, and the
            # server's session, would stay open.
            cause: BaseException | None = exc
            while cause is not None:
                traceback.clear_frames(cause.__traceback__)
                cause = cause.__context__
            cls.failure = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise
        cls.failure = None
        return conn


def kept_cursor(conn: psycopg.Connection[Any]) -> psycopg.Cursor[Any]:
    """A binary cursor kept with ``conn`` (one of a pool's) for the saver's hot statements.

    A new cursor looks up a loader for every column of its first result
    (~35 µs of CPU a statement, more than a get's own work); a kept one has
    them. It keeps its last result until its next statement: a caller that
    fetched a large one closes it (the next call makes another).
    """
    if not isinstance(conn, _Connection):
        return conn.cursor(binary=True)
    cur = conn.kept
    if cur is None or cur.closed:
        cur = conn.kept = conn.cursor(binary=True)
    return cur


def kept_raw_cursor(conn: psycopg.Connection[Any]) -> psycopg.RawCursor[Any]:
    """As :func:`kept_cursor`, a raw one: for statements written with ``$1``, ``$2``, ... (see
    :func:`~engine._sql.postgres.text.positional`), their values a list."""
    if not isinstance(conn, _Connection):
        return _raw(conn)
    cur = conn.kept_raw
    if cur is None or cur.closed:
        cur = conn.kept_raw = _raw(conn)
    return cur


def _raw(conn: psycopg.Connection[Any]) -> psycopg.RawCursor[Any]:
    cur: psycopg.RawCursor[Any] = psycopg.RawCursor(conn)
    cur.format = psycopg.pq.Format.BINARY  # (results in binary, as kept_cursor's)
    return cur


class Connections:
    """A pool of blocking connections used on worker threads, for coroutines on any event loop.

    Args:
        conninfo: the libpq connection string.
        min_size / max_size: connections kept / at most (and worker threads at most).
        timeout: seconds a call waits for a worker and a connection before :class:`NoConnection`.
        name: the threads' names, and ``application_name`` unless the DSN sets one.
        idle_in_transaction: seconds a connection may sit idle inside a
            transaction before the server ends its session (None: the server's setting).
        borrowed: the caller's connection or pool to use instead of a pool of
            our own (:mod:`._given`): its sessions' settings are left as they are.
        keep_idle: False: close each connection when its call is done (see :mod:`._given`).
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
        borrowed: Borrowed | None = None,
        keep_idle: bool = True,
    ) -> None:
        if max_size < 1 or min_size < 0 or min_size > max_size:
            raise ValueError(f"need 0 <= min_size <= max_size and max_size >= 1, got {min_size} and {max_size}")
        kwargs: dict[str, Any] = {"autocommit": True}
        given = conninfo_to_dict(conninfo)
        if "application_name" not in given:
            kwargs["application_name"] = name  # what pg_stat_activity shows, unless the DSN says
        if "connect_timeout" not in given:  # a server that never answers fails a connect, not hangs it
            kwargs["connect_timeout"] = max(2, math.ceil(timeout))  # libpq's least is 2 s
        self._max_size, self._timeout = max_size, timeout
        # Every statement the saver runs is written to be index lookups whatever
        # the parameters (see _queries.py), so a generic plan is as good as a custom
        # one, and reusing it saves planning the recursive read (~0.5 ms) on every
        # get. JIT compilation, which the recursive read's row estimates can
        # trigger, costs ~10 ms to save nothing. A transaction left open by a
        # stalled process (SIGSTOP, a long GC pause) ends with its session after
        # idle_in_transaction seconds, so the row locks it holds (a thread's lease
        # row) do not outlive it.
        settings = "SET plan_cache_mode = force_generic_plan; SET jit = off"
        if idle_in_transaction is not None:
            settings += f"; SET idle_in_transaction_session_timeout = {max(1, round(idle_in_transaction * 1000))}"
        self._settings = settings
        self._connection_class: type[_Connection] = type("Connection", (_Connection,), {})
        handed: Borrowed | Fresh | None = borrowed
        if handed is None and not keep_idle:
            handed = Fresh(conninfo, kwargs)
        self._pool: ConnectionPool[_Connection] | Borrowed | Fresh = handed or ConnectionPool(
            conninfo, connection_class=self._connection_class, kwargs=kwargs, min_size=min_size,
            max_size=max_size, open=False, configure=self._configure, name=name, timeout=timeout,
            max_idle=_IDLE_SECONDS,
        )  # fmt: skip
        self._name, self._min_size = name, min_size
        self._jobs: queue.SimpleQueue[_Job[Any] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._returned = threading.Condition(self._lock)
        self._threads: set[threading.Thread] = set()
        self._idle = 0  # workers waiting for a job, less the jobs already handed to them
        self._out: set[psycopg.Connection[Any]] = set()  # taken from the pool, not given back yet
        self._opened = False  # the pool opens on the first call (it connects in the background)
        self._closed = False

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        try:
            conn.execute(self._settings)
        except BaseException:
            conn.close()  # the pool drops the connection: its session goes now, not with the garbage
            raise

    async def run(self, fn: Callable[[psycopg.Connection[Any]], T], *, retry_broken: int = 0) -> T:
        """``fn(connection)`` on a worker (under a sync call, right here); its result or exception.

        ``retry_broken``: how many times to run ``fn`` again, on another
        connection, when it failed because the server dropped the one it had
        (a restart; a session ended for idling in a transaction). Only for
        work that may run twice.
        """
        in_place = on_sync_loop()
        for attempt in range(retry_broken + 1):
            try:
                if in_place:
                    return self._in_place(fn)
                return await self._submit(fn).future
            except psycopg.Error as exc:
                if not getattr(exc, "_graphwire_broken", False) or attempt == retry_broken:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _in_place(self, fn: Callable[[psycopg.Connection[Any]], T]) -> T:
        """``fn`` on a connection of the pool, on this thread: a sync call's (see the module's doc)."""
        if not self._opened:
            self._open()
        conn = self._take(time.monotonic() + self._timeout)
        try:
            return fn(conn)
        except psycopg.Error as exc:
            if conn.broken or conn.closed:
                exc._graphwire_broken = True  # type: ignore[attr-defined]
            raise
        finally:
            self._give_back(conn)

    @asynccontextmanager
    async def reserved(self, *, transaction: bool = False) -> AsyncIterator[Reserved]:
        """One connection (and its worker) for the block's calls, in one transaction if asked
        (committed when the block ends normally, rolled back when it raises)."""
        inbox: queue.SimpleQueue[_Job[Any] | str] = queue.SimpleQueue()

        def hold(conn: psycopg.Connection[Any]) -> None:
            if transaction:
                conn.execute("BEGIN")
            while True:
                try:
                    item = inbox.get(timeout=1.0)
                except queue.Empty:  # the block is still busy, unless its loop went away unfinished
                    if self._closed:
                        raise NoConnection(_CLOSED) from None
                    continue
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
        end = "ROLLBACK"
        try:
            yield Reserved(inbox, held.future)
            end = "COMMIT"
        finally:
            inbox.put(end)
            await asyncio.shield(held.future)

    def _submit(self, fn: Callable[[psycopg.Connection[Any]], T]) -> _Job[T]:
        if not self._opened:
            self._open()
        loop = asyncio.get_running_loop()
        job = _Job(fn, loop, time.monotonic() + self._timeout)
        with self._lock:
            if self._closed:
                raise NoConnection(_CLOSED)
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

    def _work(self) -> None:
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
                    result, exc = self._do(job)
                    fatal = isinstance(exc, (KeyboardInterrupt, SystemExit))
                    if not fatal:
                        with self._lock:
                            self._idle += 1
                    # Settled last, the connection back in the pool and this worker
                    # counted idle: a caller that submits again at once finds both.
                    job.settle(result, exc)
                    if fatal:
                        raise exc  # type: ignore[misc]
                    job = result = exc = None  # kept until the next job otherwise (an error's frames)
                    continue
                with self._lock:
                    self._idle += 1
        finally:
            with self._lock:
                self._threads.discard(me)

    def _do(self, job: _Job[Any]) -> tuple[Any, BaseException | None]:
        """Run ``job`` on a connection of the pool, given back after: (result, None) or (None, exception)."""
        try:
            conn = self._take(job.deadline)
        except NoConnection as exc:
            return None, exc
        try:
            return job.fn(conn), None
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            if isinstance(exc, psycopg.Error) and (conn.broken or conn.closed):
                exc._graphwire_broken = True  # type: ignore[attr-defined]
            return None, exc
        finally:
            self._give_back(conn)

    def _open(self) -> None:
        with self._lock:
            if self._closed:
                raise NoConnection(_CLOSED)
            if not self._opened:
                self._pool.open()
                self._opened = True

    def _take(self, deadline: float) -> psycopg.Connection[Any]:
        try:
            conn = self._pool.getconn(max(deadline - time.monotonic(), 0.001))
        except PoolTimeout:
            failure = self._connection_class.failure
            why = f"the last attempt to connect failed: {failure}" if failure else f"all {self._max_size} stayed busy"
            raise NoConnection(f"no connection within {self._timeout:g}s ({why})") from None
        except PoolClosed:
            raise NoConnection(_CLOSED) from None
        with self._lock:
            self._out.add(conn)
        return conn

    def _give_back(self, conn: psycopg.Connection[Any]) -> None:
        with self._lock:
            self._out.discard(conn)
            if self._closed and not self._out:
                self._returned.notify_all()
        self._pool.putconn(cast(_Connection, conn))  # the pool rolls back a transaction left open, drops a broken one

    def close(self) -> None:
        """Stop every worker and close every connection (blocks, a few seconds at most)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            threads = list(self._threads)
        for _ in threads:
            self._jobs.put(None)
        self._pool.close(_CLOSE_TIMEOUT)  # closes the idle ones; those in use close when given back
        with self._lock:
            self._returned.wait_for(lambda: not self._out, _CLOSE_TIMEOUT)
            left = list(self._out)
        for conn in left if isinstance(self._pool, ConnectionPool) else ():  # a worker still stuck in a statement: its socket goes now
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
        self._held = held  # fails when no connection came, or the block's connection failed

    async def run(self, fn: Callable[[psycopg.Connection[Any]], T]) -> T:
        """``fn(connection)`` on the block's connection."""
        if self._held.done():
            self._held.result()  # its failure (no connection, or the connection broke)
            raise NoConnection("the reserved connection is no longer held")
        job = _Job(fn, asyncio.get_running_loop(), 0.0)
        self._inbox.put(job)
        try:
            done, _ = await asyncio.wait((job.future, self._held), return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            job.drop()  # not run if the connection's worker has not taken it yet
            raise
        if job.future in done:
            return job.future.result()
        job.drop()
        self._held.result()  # raises its failure
        raise NoConnection("the reserved connection is no longer held")
