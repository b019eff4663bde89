"""One psycopg ``AsyncConnectionPool`` per event loop that uses the saver.

An asyncio pool belongs to the loop it was opened on: its connections' sockets
and its worker tasks live there, and using it from another loop fails. A
saver, though, is used from several loops: the server's loop, and the sync
face (``put``, ``get_tuple``…), which runs each call on an event loop owned by
the calling thread, or, when that thread is already inside a running loop, on
a short-lived worker thread with a loop of its own (see
:mod:`engine._internal._sync`).

So pools are opened lazily, one per loop, on first use from that loop. The
common cases cost nothing extra: a server has one loop, hence one pool; a
script calling the sync face from its main thread has one loop too. A sync
call made from *inside* a running loop gets a fresh worker thread and loop
each time, so it also opens a pool (a connection) each time: correct, and as
slow as that path already is.

Pools must close before their loop ends: psycopg_pool's worker tasks swallow
a cancellation that arrives while they run a job (growing the pool, say), so
``asyncio.run`` ending with a pool open could wait forever for them. Each pool
therefore has a *guardian* task on its loop that does nothing until it is
cancelled, and then closes the pool, which stops the workers. ``asyncio.run``
cancels every task when its coroutine returns, so a loop's pool is closed
with it even when nobody called ``aclose`` (its workers are cancelled in the
same sweep, so the idle connections the close took out of the pool may stay
open; they are tracked, and closed with the rest). Pools of loops that are
gone (``asyncio.run`` returned, a sync call's worker thread ended) and their
connections are closed when the next pool opens and by
:meth:`LoopPools.aclose`, so they never pile up.

A pool opens connections in its worker tasks, so when a loop stops, one may
be half-open: the server has started the session, the worker has not yet
read its reply. ``asyncio.run`` cancels that attempt. psycopg then keeps the
half-open libpq connection in the frames of the cancellation's traceback,
and psycopg_pool logs that exception ("error connecting in ..."), so for as
long as a log handler keeps the record (pytest's does, for a whole test; an
application's can too), the socket stays open and the server keeps a
session that no pool or ``close()`` knows of. Pools therefore connect
through :class:`CleanConnection`, whose failed or abandoned attempts drop their
half-open connection at once, and a connection whose set-up fails is closed
before the error leaves :func:`configure`.
"""

from __future__ import annotations

import asyncio
import threading
import traceback
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Self

from psycopg import AsyncConnection
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool

__all__ = ["CleanConnection", "LoopPools"]

_CLOSE_TIMEOUT = 5.0


class CleanConnection(AsyncConnection[Any]):
    """An ``AsyncConnection`` whose failed or cancelled connect leaves no session open."""

    @classmethod
    async def connect(cls, conninfo: str = "", **kwargs: Any) -> Self:
        try:
            return await super().connect(conninfo, **kwargs)
        except BaseException as exc:
            # The attempt's half-open libpq connection is a local of psycopg's
            # frames in this traceback; whoever keeps the exception (a log
            # record) would keep the socket, and the server's session, open.
            traceback.clear_frames(exc.__traceback__)
            raise


@dataclass(slots=True)
class _Entry:
    loop: asyncio.AbstractEventLoop
    thread: threading.Thread
    pool: AsyncConnectionPool[CleanConnection]
    conns: weakref.WeakSet[CleanConnection] = field(default_factory=weakref.WeakSet)
    guardian: asyncio.Task[None] | None = None

    def dead(self) -> bool:
        return self.loop.is_closed() or not self.thread.is_alive()


class LoopPools:
    """Lazily opened connection pools, one per event loop.

    Args:
        conninfo: the libpq connection string.
        min_size / max_size: each pool's size bounds.
        timeout: seconds to wait for a connection before failing.
        name: a prefix for the pools' names (psycopg_pool logs them).
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
        self._conninfo = conninfo
        self._kwargs: dict[str, Any] = {"autocommit": True}
        if "application_name" not in conninfo_to_dict(conninfo):
            self._kwargs["application_name"] = name  # what pg_stat_activity shows, unless the DSN says
        self._min_size = min_size
        self._max_size = max_size
        self._timeout = timeout
        self._name = name
        self._settings = "SET plan_cache_mode = force_generic_plan; SET jit = off"
        if idle_in_transaction is not None:
            self._settings += f"; SET idle_in_transaction_session_timeout = {max(1, round(idle_in_transaction * 1000))}"
        self._lock = threading.Lock()
        self._by_loop: dict[int, _Entry] = {}
        self._opening: dict[int, asyncio.Future[_Entry]] = {}
        self._closed = False

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[CleanConnection]:
        """A pooled connection of the running loop's pool (autocommit on)."""
        entry = await self._entry()
        async with entry.pool.connection() as conn:
            yield conn

    async def _entry(self) -> _Entry:
        loop = asyncio.get_running_loop()
        key = id(loop)
        entry = self._by_loop.get(key)
        if entry is not None and entry.loop is loop:
            return entry
        if self._closed:
            raise RuntimeError("the PostgreSQL saver is closed")
        opening = self._opening.get(key)
        if opening is not None and opening.get_loop() is loop:
            return await asyncio.shield(opening)
        fut: asyncio.Future[_Entry] = loop.create_future()
        self._opening[key] = fut
        try:
            entry = await self._open(loop)
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # retrieved: no "never retrieved" warning when nobody else waited
            raise
        finally:
            self._opening.pop(key, None)
        fut.set_result(entry)
        return entry

    async def _open(self, loop: asyncio.AbstractEventLoop) -> _Entry:
        self._sweep()
        conns: weakref.WeakSet[CleanConnection] = weakref.WeakSet()

        async def configure(conn: CleanConnection) -> None:
            conns.add(conn)
            # Every statement the saver runs is written to be index lookups
            # whatever the parameters (see _queries.py), so a generic plan is as
            # good as a custom one, and reusing it saves planning the recursive
            # read (~0.5 ms) on every get. JIT compilation, which the recursive
            # read's row estimates can trigger, costs ~10 ms to save nothing.
            # A transaction left open by a stalled process (SIGSTOP, a long GC
            # pause) ends with its session after idle_in_transaction seconds, so
            # the row locks it holds (a thread's lease row) do not outlive it.
            try:
                await conn.execute(self._settings)
            except BaseException:
                await conn.close()  # the pool drops it unclosed, and logs the error that refers to it
                raise

        pool = AsyncConnectionPool(
            self._conninfo,
            connection_class=CleanConnection,
            min_size=self._min_size,
            max_size=self._max_size,
            timeout=self._timeout,
            open=False,
            name=f"{self._name}-{len(self._by_loop)}",
            kwargs=self._kwargs,
            configure=configure,
        )
        await pool.open()
        entry = _Entry(loop, threading.current_thread(), pool, conns)
        entry.guardian = loop.create_task(_guard(pool), name=f"{pool.name}-guardian")
        with self._lock:
            self._by_loop[id(loop)] = entry
        return entry

    def _sweep(self) -> None:
        """Close the pools of loops that are gone."""
        with self._lock:
            dead = [(k, e) for k, e in self._by_loop.items() if e.dead()]
            for k, _ in dead:
                del self._by_loop[k]
        for _, entry in dead:
            _close_elsewhere(entry)

    async def aclose(self) -> None:
        """Close every pool: this loop's here, the others on their loops (or by force)."""
        self._closed = True
        with self._lock:
            entries = list(self._by_loop.values())
            self._by_loop.clear()
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:  # pragma: no cover - always called from a coroutine
            here = None
        for entry in entries:
            if entry.loop is here:
                await entry.pool.close(timeout=_CLOSE_TIMEOUT)
                if entry.guardian is not None:
                    entry.guardian.cancel()
            else:
                _close_elsewhere(entry)


async def _guard(pool: AsyncConnectionPool) -> None:
    """Wait until cancelled (the loop shuts down, or the saver closes), then close ``pool``.

    A guard collected with a loop nobody closed (a worker thread's, once the thread is
    gone) cannot await anything: its pool's connections close as the pool is collected.
    """
    try:
        await asyncio.get_running_loop().create_future()
    except GeneratorExit:
        raise
    except BaseException:
        await pool.close(timeout=_CLOSE_TIMEOUT)
        raise


async def _stop(guardian: asyncio.Task[None] | None) -> None:
    if guardian is not None:
        guardian.cancel()
        await asyncio.gather(guardian, return_exceptions=True)


def _close_elsewhere(entry: _Entry) -> None:
    """Close a pool that belongs to another event loop, from this thread.

    * its loop runs (in another thread): ask that loop to close it;
    * its loop is idle and its thread ended: run the loop here, briefly, on a
      helper thread (a loop may run on any thread, one at a time), to close
      it cleanly and close the loop;
    * otherwise (the loop is closed, or idle in a thread that may run it
      again): close the connections' sockets now, without the loop.
    """
    loop = entry.loop
    if not loop.is_closed() and loop.is_running():
        asyncio.run_coroutine_threadsafe(_stop(entry.guardian), loop)
        return
    if not loop.is_closed() and not entry.thread.is_alive():

        def run() -> None:
            try:
                loop.run_until_complete(_stop(entry.guardian))
                loop.close()
            except Exception:  # noqa: BLE001, S110 - best effort: the sockets are closed below anyway
                pass

        helper = threading.Thread(target=run, name="graphwire-pg-pool-close", daemon=True)
        helper.start()
        helper.join(_CLOSE_TIMEOUT + 1)
    for conn in list(entry.conns):
        try:
            if not conn.closed:
                conn.pgconn.finish()
        except Exception:  # noqa: BLE001, S110 - already gone
            pass
