"""The SQLite checkpoint saver (stdlib sqlite3, one file, WAL mode).

Named queries are in :mod:`._queries`, numbered migrations in ``migrations/``
and the current schema in ``schema.sql``.
"""

from __future__ import annotations

from engine.checkpoint.sqlite._saver import SqliteSaver

__all__ = ["SqliteSaver"]
