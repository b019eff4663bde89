"""The SQLite cache: node caches in a SQLite file, usually the checkpointer's.

Its table (``cache_entries``) lives beside the saver's and the store's, with a
version of its own (:mod:`._migrate`), brought up to date when the cache
opens. As :class:`~engine.checkpoint.SqliteSaver`, it never runs SQL on the
event loop's thread: every statement runs on the cache's one worker thread,
so another process holding the file (a backup, ``graphwire prune``) makes a
lookup wait without stalling the loop. The connection is in autocommit mode;
a write is one ``BEGIN IMMEDIATE`` transaction, a lookup plain reads (WAL:
they never wait for a writer).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from engine.cache._sql import Row, SqlCache
from engine.cache.sqlite import _queries as q
from engine.cache.sqlite._migrate import TABLES
from engine._internal._worker import CallThread
from engine._sql import sqlite as sql
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
        """Run ``fn(*args)`` on the cache's worker thread (never SQL on the loop's)."""
        return await self._worker.call(fn, *args)

    @contextmanager
    def _sql(self) -> Iterator[sqlite3.Connection]:
        if self._conn is None:
            raise CacheError("SQLite cache: used after close()")
        try:
            yield self._conn
        except sqlite3.Error as exc:
            raise CacheError(f"SQLite cache: {exc}") from exc

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
        return await self._work(self._select_sync, keys)

    def _select_sync(self, keys: Sequence[tuple[str, str]]) -> list[Row]:
        with self._sql() as conn:
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
        conn, self._conn = self._conn, None
        if conn is not None:
            self._worker.submit_wait(conn.close)
        self._worker.stop()
