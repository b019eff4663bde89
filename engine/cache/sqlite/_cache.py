"""The SQLite cache: node caches in a SQLite file, usually the checkpointer's.

Its table (``cache_entries``) lives beside the saver's and the store's, with a
version of its own (:mod:`._migrate`), brought up to date when the cache
opens. The connection is in autocommit mode; a write is one ``BEGIN
IMMEDIATE`` transaction, a lookup plain reads (WAL: they never wait for a
writer).

Where its SQL runs, as for :class:`~engine.checkpoint.SqliteSaver` (whose
module says why): a lookup from an event loop runs **in place** on the loop's
thread when the connection is free, with no busy wait: a read the file refuses
at once (another process holding it in a way even a WAL reader must wait for)
goes to the cache's **worker thread**, as every write does (a write's commit may
checkpoint the WAL, with an ``fsync``, and waits for other writers up to
``busy_timeout``). Under a sync call (``invoke``) every statement runs on the
calling thread, whose loop is the call's own.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from engine.cache._sql import Row, SqlCache
from engine.cache.sqlite import _queries as q
from engine.cache.sqlite._migrate import TABLES
from engine._internal._sync import on_sync_loop
from engine._internal._worker import CallThread
from engine._sql import sqlite as sql
from engine._sql.sqlite import BUSY_TIMEOUT_MS, Busy
from engine.errors import CacheError
from engine.serde import Serializer

__all__ = ["SqliteCache"]

T = TypeVar("T")


class SqliteCache(SqlCache):
    """Cache node writes in a SQLite file (LangGraph's ``SqliteCache(path=...)``).

    Args:
        path: the file (``":memory:"`` and ``file:`` URIs work); the
            checkpointer's file is the usual choice.
        serde: the serializer of cached values (default: a plain
            :class:`~engine.serde.Serializer`; ``compile`` allowlists the
            state schema's types on it).

    Raises:
        CacheError: the file cannot be opened, or its cache table is from a
            newer graphwire.
    """

    def __init__(self, *, path: str | os.PathLike[str], serde: Serializer | None = None) -> None:
        super().__init__(serde=serde)
        where = os.fspath(path)
        self._worker = CallThread("graphwire-sqlite-cache")
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # the connection's one user at a time: the worker, a lookup in place, a sync call
        self._busy_ms = BUSY_TIMEOUT_MS  # the connection's busy timeout now: 0 while a lookup runs in place
        try:
            self._conn = self._worker.submit_wait(self._open, where)
        except BaseException:
            self._worker.stop()
            raise

    @staticmethod
    def _open(path: str) -> sqlite3.Connection:
        try:
            conn = sql.connect(path)
        except sqlite3.Error as exc:
            raise CacheError(f"SQLite cache: cannot open {path!r}: {exc}") from exc
        try:
            sql.prepare(conn, TABLES)
        except BaseException as exc:
            conn.close()
            if isinstance(exc, sqlite3.Error):
                raise CacheError(f"SQLite cache: cannot open {path!r}: {exc}") from exc
            raise
        return conn

    # -- plumbing ----------------------------------------------------------------
    async def _work(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the cache's worker thread, or in place under a sync call."""
        if on_sync_loop():
            return fn(*args)
        return await self._worker.call(fn, *args)

    @contextmanager
    def _sql(self, *, waits: bool = True) -> Iterator[sqlite3.Connection]:
        """The connection, held (``waits``: for as long as it takes, and the file for ``busy_timeout``;
        else not at all: :class:`Busy` when either is held)."""
        if not self._lock.acquire(blocking=waits):
            raise Busy
        try:
            conn = self._conn
            if conn is None:
                raise CacheError("SQLite cache: used after close()")
            try:
                self._busy_ms = sql.wait_mode(conn, self._busy_ms, waits)
                yield conn
            except sqlite3.Error as exc:
                if not waits and sql.file_held(exc):
                    raise Busy from exc
                raise CacheError(f"SQLite cache: {exc}") from exc
        finally:
            self._lock.release()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._sql() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    # -- the five statements -----------------------------------------------------------
    async def _select(self, keys: Sequence[tuple[str, str]]) -> list[Row]:
        if on_sync_loop():
            return self._select_sync(keys)
        try:
            return self._select_sync(keys, waits=False)  # in place (see the module's doc)
        except Busy:  # nothing was changed: the worker waits
            return await self._worker.call(self._select_sync, keys)

    def _select_sync(self, keys: Sequence[tuple[str, str]], *, waits: bool = True) -> list[Row]:
        with self._sql(waits=waits) as conn:
            return [row for k in keys for row in conn.execute(q.SELECT, k).fetchall()]

    async def _delete_expired(self, keys: Sequence[tuple[str, str]], now: float) -> None:
        await self._work(self._delete_expired_sync, keys, now)

    def _delete_expired_sync(self, keys: Sequence[tuple[str, str]], now: float) -> None:
        with self._transaction() as conn:
            conn.executemany(q.DELETE_EXPIRED, [(ns, key, now) for ns, key in keys])

    async def _upsert(self, rows: Sequence[Row], sweep_at: float | None) -> None:
        await self._work(self._upsert_sync, rows, sweep_at)

    def _upsert_sync(self, rows: Sequence[Row], sweep_at: float | None) -> None:
        with self._transaction() as conn:
            conn.executemany(q.UPSERT, rows)
            if sweep_at is not None:
                conn.execute(q.SWEEP, (sweep_at,))

    async def _delete(self, namespaces: Sequence[str] | None) -> None:
        await self._work(self._delete_sync, namespaces)

    def _delete_sync(self, namespaces: Sequence[str] | None) -> None:
        with self._transaction() as conn:
            if namespaces is None:
                conn.execute(q.CLEAR_ALL)
            else:
                conn.executemany(q.CLEAR_NS, [(ns,) for ns in namespaces])

    async def _sweep(self, now: float) -> int:
        return await self._work(self._sweep_sync, now)

    def _sweep_sync(self, now: float) -> int:
        with self._transaction() as conn:
            return conn.execute(q.SWEEP, (now,)).rowcount

    async def aclose(self) -> None:
        self._close()

    def close(self) -> None:
        self._close()

    def _close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            self._worker.submit_wait(conn.close)
        self._worker.stop()

