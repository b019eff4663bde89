"""Bringing the store's tables in a SQLite file to the current version, at open.

The file may be the checkpointer's, whose own version is SQLite's
``user_version``; the store keeps its version apart, as rows of
``store_migrations``. A file without the store's tables gets ``schema.sql``;
an older one every numbered file of ``migrations/`` above its version, in
order (a test checks both paths end at the same schema). It all runs in one
``BEGIN IMMEDIATE`` transaction that re-reads the version, so two processes
opening the file at once migrate it once, and a failed migration changes
nothing.
"""

from __future__ import annotations

import functools
import sqlite3

from engine.checkpoint._migration_files import read_migrations, read_schema
from engine.checkpoint.sqlite._migrate import run_script
from engine.errors import StoreError

__all__ = ["MIGRATIONS_TABLE", "fresh_schema", "latest_version", "migrate", "migrations"]

MIGRATIONS_TABLE = "store_migrations"
_CREATE = f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"


@functools.cache
def migrations() -> tuple[tuple[int, str], ...]:
    """``(number, sql)`` of every migration file, in order."""
    return read_migrations("engine.store.sqlite.migrations", "SQLite store")


@functools.cache
def fresh_schema() -> str:
    return read_schema("engine.store.sqlite")


def latest_version() -> int:
    return len(migrations())


def _current(conn: sqlite3.Connection) -> int | None:
    """The applied version; None while the bookkeeping table does not exist."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (MIGRATIONS_TABLE,)).fetchone()
    if exists is None:
        return None
    return int(conn.execute(f"SELECT coalesce(max(version), 0) FROM {MIGRATIONS_TABLE}").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the store's tables to :func:`latest_version` (``conn`` in autocommit mode).

    Raises:
        StoreError: the tables are from a newer graphwire, or a migration failed.
    """
    latest = latest_version()
    if _current(conn) == latest:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = _current(conn) or 0
        if current > latest:
            raise StoreError(
                f"the store's tables are at version {current}, newer than this graphwire knows ({latest}); upgrade graphwire"
            )
        conn.execute(_CREATE)
        if current == 0:
            run_script(conn, fresh_schema())
            applied = range(1, latest + 1)
        else:
            applied = range(current + 1, latest + 1)
            for number, sql in migrations():
                if number > current:
                    run_script(conn, sql)
        conn.executemany(f"INSERT INTO {MIGRATIONS_TABLE} (version) VALUES (?)", [(n,) for n in applied])
        conn.execute("COMMIT")
    except BaseException as exc:
        conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise StoreError(f"migrating the SQLite store's tables failed: {exc}") from exc
        raise
