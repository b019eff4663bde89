"""The SQLite store: items in the checkpointer's file (or any SQLite file).

Its tables (``store_items``, ``store_vectors``) live beside the saver's in
the same file, with a version of their own (:mod:`._migrate`), brought up to
date when the store opens. Like :class:`~engine.checkpoint.SqliteSaver` it
keeps one connection guarded by a lock and calls sqlite3 directly from its
coroutines (each statement is microseconds of local work); the file is in
WAL mode, so the saver's connection and this one never block each other's
reads.

Semantic search ranks in Python: every vector under the searched prefix is
read and compared with the query (cosine, as the in-memory store does). That
is exact and needs no extension; it reads O(items under the prefix) per
query, fine for per-user memories, slow for a corpus of millions.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from typing import Any

from engine._sql import sqlite as sql
from engine._sql.files import MigrationTexts
from engine.errors import StoreError
from engine.store._sql import SqlStore
from engine.store.base import IndexConfig, TTLConfig
from engine.store.sqlite import _queries
from engine.store.sqlite._migrate import TABLES

__all__ = ["SqliteStore"]


class _Tx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    async def rows(self, sql: str, params: Sequence[Any]) -> AsyncGenerator[Sequence[Any], None]:
        cursor = self._conn.execute(sql, params)
        try:
            while batch := cursor.fetchmany(64):
                for row in batch:
                    yield row
        finally:
            cursor.close()

    async def execute(self, sql: str, params: Sequence[Any]) -> int:
        return self._conn.execute(sql, params).rowcount

    async def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> None:
        self._conn.executemany(sql, params)


class SqliteStore(SqlStore):
    """Store items in a SQLite file.

    Args:
        path_or_conn: a file path (``":memory:"`` and ``file:`` URIs work; the
            checkpointer's file is the usual choice), or an open connection,
            which is switched to autocommit and not closed by :meth:`aclose`.
        index: semantic search (``{"embed": fn, "dims": n, "fields": [...]}``).
        ttl: expiry settings (:class:`~engine.store.base.TTLConfig`).
    """

    _q = _queries
    MIGRATIONS = MigrationTexts(TABLES.migrations)  # LangGraph's name; read-only here

    def __init__(
        self,
        path_or_conn: str | os.PathLike[str] | sqlite3.Connection,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
    ) -> None:
        super().__init__(index=index, ttl=ttl)
        if isinstance(path_or_conn, sqlite3.Connection):
            conn, self._owns_conn = path_or_conn, False
        else:
            conn, self._owns_conn = sql.connect(path_or_conn), True
        self._conn = conn
        self._lock = threading.Lock()
        try:
            sql.prepare(conn, TABLES)
        except BaseException:
            if self._owns_conn:
                conn.close()
            raise

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None) -> Iterator[Any]:
        """LangGraph's opening: ``with SqliteStore.from_conn_string(path) as store:``, closed after the block."""
        store = cls(conn_string, index=index, ttl=ttl)
        try:
            yield store
        finally:
            store.close()

    def setup(self) -> None:
        """Nothing to do: the tables are made when the store opens (kept for LangGraph's programs)."""

    def _ts(self, when: datetime) -> str:
        return when.isoformat(timespec="microseconds")

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[_Tx]:
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite store: {exc}") from exc
            try:
                yield _Tx(self._conn)
            except BaseException as exc:
                self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(f"SQLite store: {exc}") from exc
                raise
            else:
                try:
                    self._conn.execute("COMMIT")
                except sqlite3.Error as exc:
                    self._conn.execute("ROLLBACK")
                    raise StoreError(f"SQLite store: {exc}") from exc

    async def aclose(self) -> None:
        if self._owns_conn:
            with self._lock:
                self._conn.close()
