"""Bringing a database file to the current schema, at open time.

The schema version lives in SQLite's own header (``PRAGMA user_version``).
A new database gets ``schema.sql`` in one go; an older one gets every
numbered file of ``migrations/`` above its version, in order. Both paths must
end at the same schema, which a test checks, so a migration that forgets
something (or a schema.sql that drifts) fails in CI rather than in a
customer's database.

Everything runs in one ``BEGIN IMMEDIATE`` transaction, the version re-read
inside it: two processes opening the same old file at once migrate it once,
and a failed migration leaves the file as it was (SQLite's DDL and
``user_version`` are transactional).
"""

from __future__ import annotations

import functools
import sqlite3

from engine.checkpoint._migration_files import read_migrations, read_schema
from engine.errors import CheckpointError

__all__ = ["fresh_schema", "latest_version", "migrate", "migrations", "run_script"]


@functools.cache
def migrations() -> tuple[tuple[int, str], ...]:
    """``(number, sql)`` of every migration file, in order."""
    return read_migrations("engine.checkpoint.sqlite.migrations", "SQLite")


@functools.cache
def fresh_schema() -> str:
    """The SQL of the current schema, for a new database."""
    return read_schema("engine.checkpoint.sqlite")


def latest_version() -> int:
    """The schema version this code writes."""
    return len(migrations())


def _user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> None:
    """Bring ``conn``'s database to :func:`latest_version` (no-op when it is there).

    ``conn`` must be in autocommit mode (``isolation_level=None``).

    Raises:
        CheckpointError: the file is from a newer graphwire, or a migration failed.
    """
    latest = latest_version()
    if _user_version(conn) == latest:
        return  # the common case: one pragma read, no lock
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = _user_version(conn)
        if current > latest:
            raise CheckpointError(
                f"the checkpoint database is at schema version {current}, newer than this "
                f"graphwire knows ({latest}); upgrade graphwire"
            )
        has_tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
        if current == 0 and not has_tables:
            run_script(conn, fresh_schema())
        else:
            for number, sql in migrations():
                if number > current:
                    run_script(conn, sql)
        # An int we computed, not input: formatting it in is safe (PRAGMA takes no parameters).
        conn.execute(f"PRAGMA user_version = {int(latest)}")
        conn.execute("COMMIT")
    except BaseException as exc:
        conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise CheckpointError(f"migrating the checkpoint database failed: {exc}") from exc
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
    if statement.strip() and not all(
        not ln.strip() or ln.lstrip().startswith("--") for ln in statement.splitlines()
    ):
        raise CheckpointError(f"incomplete SQL statement at the end of a migration: {statement.strip()[:80]!r}")
