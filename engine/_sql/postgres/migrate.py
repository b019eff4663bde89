"""Bringing a set of tables in a PostgreSQL schema to its current version: one runner for every part.

The checkpoint saver (with its runs, leases and messages), the store and the
node cache each name their tables with a :class:`Tables`: a bookkeeping table
whose rows are the applied versions, a table only that set has (an install
from before the bookkeeping), its numbered migration files and its fresh
schema. A new schema gets ``schema.sql`` in one go; an older one gets every
numbered file above its version, in order. Both paths must end at the same
catalog, which each part's tests check.

Everything runs in one transaction (PostgreSQL's DDL is transactional) that
first takes an advisory lock named after the set and the schema, then
re-reads the version: two replicas starting at once migrate once, the second
waiting for the first and then finding nothing to do, and a failed migration
leaves the schema as it was. A schema already at the current version costs
one query and takes no lock.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import psycopg
from psycopg import sql

from engine.errors import CheckpointError

__all__ = ["IDENTIFIER", "Tables", "create_table", "migrate"]

#: A schema name graphwire accepts (an unquoted PostgreSQL identifier).
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]{0,62}$")

_CREATE_BOOKKEEPING = """
CREATE TABLE IF NOT EXISTS {table} (
    version integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
)
"""


def create_table(table: str) -> str:
    """The DDL of a bookkeeping table named ``table`` (a name graphwire chose, never input)."""
    return _CREATE_BOOKKEEPING.format(table=table)


def _current(conn: psycopg.Connection, table: sql.Composable) -> int | None:
    """The applied version, or None when the bookkeeping table does not exist yet."""
    exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table.as_string(conn),)).fetchone()
    if not exists or not exists[0]:
        return None
    row = conn.execute(sql.SQL("SELECT coalesce(max(version), 0) FROM {}").format(table)).fetchone()
    return int(row[0]) if row else 0


@dataclass(frozen=True, slots=True)
class Tables:
    """What one set of tables migrates with: its bookkeeping table, a table only it has, and its files."""

    what: str  # "checkpoint", "store": names the tables in messages and the advisory lock
    bookkeeping: str
    marker: str  # a table a schema holds when these tables exist (a pre-bookkeeping install)
    migrations: Callable[[], tuple[tuple[int, str], ...]]
    fresh_schema: Callable[[], str]


def migrate(conn: psycopg.Connection, schema: str | None, *, tables: Tables) -> None:
    """Bring ``schema``'s tables (None: the connection's current schema) to their latest version.

    ``tables``: which set. ``conn`` must be
    in autocommit mode; the work happens in a transaction of its own.

    Raises:
        CheckpointError: the schema is from a newer graphwire, or a migration failed.
    """
    t = tables
    latest = len(t.migrations())
    try:
        if schema is None:
            row = conn.execute("SELECT current_schema()").fetchone()
            if row is None or row[0] is None:
                raise CheckpointError("PostgreSQL has no current schema (search_path is empty); pass schema=")
            schema = str(row[0])
        table = sql.Identifier(schema, t.bookkeeping)
        if _current(conn, table) == latest:
            return  # the common case: no lock, no DDL
        with conn.transaction():
            # Two replicas starting at once: the second waits here, then finds the work done.
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"graphwire.{t.what}.migrate:{schema}",))
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
            conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))
            current = _current(conn, table)
            has_tables = conn.execute("SELECT to_regclass(%s) IS NOT NULL",
                                      (sql.Identifier(schema, t.marker).as_string(conn),)).fetchone()  # fmt: skip
            conn.execute(sql.SQL(_CREATE_BOOKKEEPING).format(table=sql.Identifier(t.bookkeeping)))
            current = current or 0
            if current > latest:
                raise CheckpointError(
                    f"the {t.what} schema {schema!r} is at version {current}, newer than this "
                    f"graphwire knows ({latest}); upgrade graphwire"
                )
            if current == 0 and not (has_tables and has_tables[0]):
                conn.execute(t.fresh_schema())
                applied = list(range(1, latest + 1))
            else:
                applied = []
                for number, text in t.migrations():
                    if number > current:
                        conn.execute(text)
                        applied.append(number)
            for number in applied:
                conn.execute(sql.SQL("INSERT INTO {} (version) VALUES (%s)").format(table), (number,))
    except CheckpointError:
        raise
    except psycopg.Error as exc:
        raise CheckpointError(f"migrating the PostgreSQL {t.what} schema failed: {exc}") from exc
