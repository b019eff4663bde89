"""The SQLite cache (stdlib sqlite3), at LangGraph's import path (``langgraph.cache.sqlite``).

Named queries are in :mod:`._queries`, numbered migrations in ``migrations/``
and the current schema in ``schema.sql``.
"""

from __future__ import annotations

from engine.cache.sqlite._cache import SqliteCache

__all__ = ["SqliteCache"]
