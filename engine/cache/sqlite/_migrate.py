"""Bringing the cache's table in a SQLite file to the current version, at open.

As the store's (:mod:`engine.store.sqlite._migrate`): the file may be the
checkpointer's, so the cache keeps its version apart, as rows of
``cache_migrations``; a file without the table gets ``schema.sql``, an older
one every numbered migration above its version, all in one ``BEGIN
IMMEDIATE`` transaction that re-reads the version (two processes opening the
file at once migrate it once; a failed migration changes nothing).
"""

from __future__ import annotations

import functools
import sqlite3

from engine.checkpoint._migration_files import read_migrations, read_schema
from engine.checkpoint.sqlite._migrate import run_script
from engine.errors import CacheError

__all__ = ["MIGRATIONS_TABLE", "fresh_schema", "latest_version", "migrate", "migrations"]

MIGRATIONS_TABLE = "cache_migrations"
_CREATE = f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"


@functools.cache
def migrations() -> tuple[tuple[int, str], ...]:
    """``(number, sql)`` of every migration file, in order."""
    return read_migrations("engine.cache.sqlite.migrations", "SQLite cache")


@functools.cache
def fresh_schema() -> str:
    return read_schema("engine.cache.sqlite")


def latest_version() -> int:
    return len(migrations())


def _current(conn: sqlite3.Connection) -> int | None:
    """The applied version; None while the bookkeeping table does not exist."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (MIGRATIONS_TABLE,)).fetchone()
    if exists is None:
        return None
    return int(conn.execute(f"SELECT coalesce(max(version), 0) FROM {MIGRATIONS_TABLE}").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the cache's table to :func:`latest_version` (``conn`` in autocommit mode).

    Raises:
        CacheError: the table is from a newer graphwire, or a migration failed.
    """
    latest = latest_version()
    if _current(conn) == latest:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = _current(conn) or 0
        if current > latest:
            raise CacheError(
                f"the cache's table is at version {current}, newer than this graphwire knows ({latest}); upgrade graphwire"
            )
        conn.execute(_CREATE)
        if current == 0:
            run_script(conn, fresh_schema())
            applied = range(1, latest + 1)
        else:
            applied = range(current + 1, latest + 1)
            for number, text in migrations():
                if number > current:
                    run_script(conn, text)
        conn.executemany(f"INSERT INTO {MIGRATIONS_TABLE} (version) VALUES (?)", [(n,) for n in applied])
        conn.execute("COMMIT")
    except BaseException as exc:
        conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise CacheError(f"migrating the SQLite cache's table failed: {exc}") from exc
        raise
