"""``AsyncSqliteStore``, at LangGraph's import path (``langgraph.store.sqlite.aio``).

The engine's SQLite store is async at heart (its statements run under a lock
on its own connection, from any event loop), so the async store is the same
store opened LangGraph's async way: ``async with
AsyncSqliteStore.from_conn_string(path) as store: await store.setup()``. It
takes a path or a ``sqlite3`` connection, not an ``aiosqlite`` one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from engine._internal._unsupported import WHERE_IT_DIFFERS, refuse_aiosqlite
from engine.store._async_faces import AsyncTTLFaces
from engine.store.base import IndexConfig, TTLConfig
from engine.store.sqlite._store import SqliteStore

__all__ = ["AsyncSqliteStore"]


class AsyncSqliteStore(AsyncTTLFaces, SqliteStore):  # type: ignore[misc]
    """A :class:`SqliteStore` opened the async way (LangGraph's async SQLite store)."""

    def __init__(self, conn: Any, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None, **options: Any) -> None:
        refuse_aiosqlite("AsyncSqliteStore", conn)
        if options:  # LangGraph's ``deserializer``: values are the engine's JSON
            raise NotImplementedError(f"AsyncSqliteStore does not take {', '.join(sorted(options))}; see {WHERE_IT_DIFFERS}")
        super().__init__(conn, index=index, ttl=ttl)

    @classmethod
    @asynccontextmanager
    async def from_conn_string(  # type: ignore[override]
        cls, conn_string: str, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None
    ) -> AsyncIterator[AsyncSqliteStore]:
        """``async with AsyncSqliteStore.from_conn_string(path) as store:`` (closed after the block)."""
        store = cls(conn_string, index=index, ttl=ttl)
        try:
            yield store
        finally:
            await store.aclose()

    async def setup(self) -> None:  # type: ignore[override]  # LangGraph's async store's setup is awaited
        """Nothing to do: the tables are made when the store opens (kept for LangGraph's programs)."""
