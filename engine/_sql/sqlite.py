"""SQLite for every part that keeps tables in a file (checkpoints and runs, the store, the node cache).

One way to open a file (:func:`connect`, then :func:`prepare`: WAL, the busy
timeout, the part's tables migrated) and one migration runner for every part
(:func:`migrate`, given the part's :class:`Tables`). Parts may share one file:
the checkpointer's version is SQLite's own ``PRAGMA user_version``; a part
beside it (the store, the cache) keeps its version as rows of a bookkeeping
table of its own (``store_migrations``, ``cache_migrations``).

A file without the part's tables gets its ``schema.sql`` in one go; an older
one gets every numbered file of its ``migrations/`` above its version, in
order (each part's tests check both paths end at the same schema). It all
runs in one ``BEGIN IMMEDIATE`` transaction that re-reads the version, so two
processes opening the file at once migrate it once, and a failed migration
changes nothing (SQLite's DDL and ``user_version`` are transactional). A file
already at the current version costs one read and takes no lock.
(PostgreSQL's twin is :mod:`engine._sql.postgres.migrate`.)
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["BUSY_TIMEOUT_MS", "Busy", "LANGGRAPH_FILE", "Tables", "connect", "create_table", "file_held", "migrate", "prepare", "run_script", "wait_mode"]

#: How long a statement waits for another process's write lock on the file.
BUSY_TIMEOUT_MS = 5_000
#: a part's refusal of a file LangGraph's own saver or store used ({what}: the part, {tables}: LangGraph's tables)
LANGGRAPH_FILE = (
    "this SQLite file holds LangGraph's own {what} tables ({tables}): graphwire keeps its {what} data in tables of its own, "
    "some of the same names, and does not read LangGraph's rows; give graphwire a file of its own"
)


@dataclass(frozen=True, slots=True)
class Tables:
    """What one part's tables migrate with, and how its errors read."""

    bookkeeping: str | None  # its version's table; None: the file's user_version (the checkpointer's own)
    migrations: Callable[[], tuple[tuple[int, str], ...]]
    fresh_schema: Callable[[], str]
    error: type[Exception]
    newer: str  # the error's message when the file is from a newer graphwire: {current}, {latest}
    failed: str  # and when a migration failed: {exc}
    #: (table, column) that LangGraph's own saver or store of this kind leaves in a file (a table of
    #: one of our names, with a column ours lacks), and the error's message when a file has them
    langgraph: tuple[str, str, str] | None = None


def wait_mode(conn: sqlite3.Connection | sqlite3.Cursor, now_ms: int, waits: bool) -> int:
    """Give ``conn`` the busy timeout of a call that waits for the file (:data:`BUSY_TIMEOUT_MS`) or of one
    in place on an event loop, which must not (0), unless it has it (``now_ms``); the timeout it has now.
    (A pragma only when the mode changes: most calls in a row are of one kind.)"""
    want = BUSY_TIMEOUT_MS if waits else 0
    if now_ms != want:
        conn.execute(f"PRAGMA busy_timeout={want}")  # (an int of ours: no input in it)
    return want


class Busy(Exception):
    """A statement meant to run in place on an event loop could not start at once (its connection or
    the file held): nothing was done, and the connection's worker thread runs it, waiting."""


def file_held(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite finding the file (or a table) held by another connection."""
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)


def connect(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A connection to ``path`` (a ``file:`` URI too) in autocommit mode, usable from any one thread at a time."""
    where = os.fspath(path)
    return sqlite3.connect(
        where, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, uri=where.startswith("file:")
    )


def prepare(conn: sqlite3.Connection, tables: Tables) -> None:
    """Set ``conn`` up as every part uses a file (WAL, the busy timeout) and bring ``tables`` to their newest version."""
    conn.isolation_level = None  # the parts issue BEGIN/COMMIT themselves
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    migrate(conn, tables)


def create_table(table: str) -> str:
    """A bookkeeping table's DDL (``table`` is a name graphwire chose, never input)."""
    return f"CREATE TABLE IF NOT EXISTS {table} (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"


def _current(conn: sqlite3.Connection, table: str | None) -> int | None:
    """The applied version; None while a part's bookkeeping table does not exist."""
    if table is None:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
    if exists is None:
        return None
    return int(conn.execute(f"SELECT coalesce(max(version), 0) FROM {table}").fetchone()[0])


def _is_fresh(conn: sqlite3.Connection, t: Tables, current: int) -> bool:
    """Whether the part's tables are to be made whole from ``schema.sql``.

    A part with a bookkeeping table has none of its tables before that table;
    the checkpointer's file at version 0 may be an install from before
    versioning, which takes every migration instead.
    """
    if current != 0:
        return False
    return t.bookkeeping is not None or not conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]


def migrate(conn: sqlite3.Connection, tables: Tables) -> None:
    """Bring ``tables`` to their newest version (no-op when they are there); ``conn`` in autocommit mode.

    Raises:
        tables.error: the file is from a newer graphwire, or a migration failed.
    """
    t = tables
    latest = len(t.migrations())
    try:
        current = _current(conn, t.bookkeeping)
    except sqlite3.OperationalError:  # a bookkeeping table of our name without our column: LangGraph's
        current = None
    if current == latest:
        return  # the common case: one read, no lock
    if not current and t.langgraph is not None:
        table, column, message = t.langgraph
        if any(row[1] == column for row in conn.execute(f"PRAGMA table_info({table})")):  # (our own names)
            raise t.error(message)
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = _current(conn, t.bookkeeping) or 0
        if current > latest:
            raise t.error(t.newer.format(current=current, latest=latest))
        fresh = _is_fresh(conn, t, current)
        if t.bookkeeping is not None:
            conn.execute(create_table(t.bookkeeping))
        if fresh:
            run_script(conn, t.fresh_schema())
        else:
            for number, sql in t.migrations():
                if number > current:
                    run_script(conn, sql)
        if t.bookkeeping is None:
            # An int we computed, not input: formatting it in is safe (PRAGMA takes no parameters).
            conn.execute(f"PRAGMA user_version = {int(latest)}")
        else:
            conn.executemany(f"INSERT INTO {t.bookkeeping} (version) VALUES (?)", [(n,) for n in range(current + 1, latest + 1)])
        conn.execute("COMMIT")
    except BaseException as exc:
        conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise t.error(t.failed.format(exc=exc)) from exc
        raise


def run_script(conn: sqlite3.Connection, sql: str) -> None:
    """Execute a multi-statement script inside the caller's transaction.

    ``executescript`` would COMMIT first, so statements are split with
    :func:`sqlite3.complete_statement` (which understands triggers' inner
    semicolons) and executed one by one.
    """
    statement = ""
    for line in sql.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""
    if statement.strip() and not all(not ln.strip() or ln.lstrip().startswith("--") for ln in statement.splitlines()):
        raise sqlite3.OperationalError(f"incomplete SQL statement at the end of a migration: {statement.strip()[:80]!r}")
