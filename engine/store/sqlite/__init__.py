"""The SQLite store (stdlib sqlite3; usually the checkpointer's own file).

Named queries are in :mod:`._queries`, numbered migrations in ``migrations/``
and the current schema in ``schema.sql``.
"""

from __future__ import annotations

from engine.store.sqlite._store import SqliteStore
from engine.store.sqlite.aio import AsyncSqliteStore

__all__ = ["AsyncSqliteStore", "SqliteStore"]
