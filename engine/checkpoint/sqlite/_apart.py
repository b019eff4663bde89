"""Migrating a part that shares a SQLite file and keeps its version apart (the store, the cache).

The file may be the checkpointer's, whose own version is SQLite's
``user_version``; such a part keeps its version as rows of a bookkeeping
table of its own (``store_migrations``, ``cache_migrations``). A file without
the part's tables gets its ``schema.sql``; an older one every numbered file of
its ``migrations/`` above its version, in order (tests check both paths end at
the same schema). It all runs in one ``BEGIN IMMEDIATE`` transaction that
re-reads the version, so two processes opening the file at once migrate it
once, and a failed migration changes nothing. (PostgreSQL's twin is
:class:`engine.checkpoint.postgres._migrate.Tables`.)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from engine.checkpoint.sqlite._migrate import run_script

__all__ = ["create_table", "migrate_apart"]


def create_table(table: str) -> str:
    """The bookkeeping table's DDL."""
    return f"CREATE TABLE IF NOT EXISTS {table} (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"


def _current(conn: sqlite3.Connection, table: str) -> int | None:
    """The applied version; None while the bookkeeping table does not exist."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
    if exists is None:
        return None
    return int(conn.execute(f"SELECT coalesce(max(version), 0) FROM {table}").fetchone()[0])


def migrate_apart(
    conn: sqlite3.Connection,
    *,
    table: str,
    migrations: Sequence[tuple[int, str]],
    fresh_schema: Callable[[], str],
    error: type[Exception],
    newer: str,
    failed: str,
) -> None:
    """Bring a part's tables to the newest of ``migrations`` (``conn`` in autocommit mode).

    ``newer`` (formatted with ``current`` and ``latest``) and ``failed`` (with
    ``exc``) are the messages of the ``error`` raised when the tables are from
    a newer graphwire, or when a migration failed.
    """
    latest = len(migrations)
    if _current(conn, table) == latest:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = _current(conn, table) or 0
        if current > latest:
            raise error(newer.format(current=current, latest=latest))
        conn.execute(create_table(table))
        if current == 0:
            run_script(conn, fresh_schema())
            applied = range(1, latest + 1)
        else:
            applied = range(current + 1, latest + 1)
            for number, sql in migrations:
                if number > current:
                    run_script(conn, sql)
        conn.executemany(f"INSERT INTO {table} (version) VALUES (?)", [(n,) for n in applied])
        conn.execute("COMMIT")
    except BaseException as exc:
        conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise error(failed.format(exc=exc)) from exc
        raise
