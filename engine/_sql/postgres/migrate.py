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
    #: the bookkeeping table LangGraph's own saver or store of this kind keeps (its one column ``v``):
    #: found in a schema without graphwire's tables, the schema is LangGraph's (refused, named)
    langgraph: str = ""


def _current_schema(conn: psycopg.Connection) -> str:
    """The schema unqualified names go to: the first of ``search_path`` that exists, else its first
    name (``options=-csearch_path=NAME`` naming a schema to make), which the migration creates."""
    row = conn.execute("SELECT current_schema()").fetchone()
    if row is not None and row[0] is not None:
        return str(row[0])
    path = conn.execute("SELECT current_setting('search_path')").fetchone()
    first = str(path[0]).split(",")[0].strip() if path and path[0] else ""
    if first.startswith('"') and first.endswith('"') and len(first) > 1:
        first = first[1:-1]
    if not IDENTIFIER.match(first):
        raise CheckpointError("PostgreSQL has no current schema (search_path is empty); pass schema=")
    return first


def _refuse_langgraph(conn: psycopg.Connection, schema: str, t: Tables) -> None:
    """Raise when ``schema``, without graphwire's bookkeeping table of this kind, holds LangGraph's
    (a database a LangGraph deployment used): its tables share names with ours, and its rows are in
    a format graphwire does not read, so migrating would fail halfway, on a name."""
    if not t.langgraph:
        return
    found = conn.execute(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = %s AND table_name = %s AND column_name = 'v'",
        (schema, t.langgraph),
    ).fetchone()
    if found is not None:
        raise CheckpointError(
            f"the PostgreSQL schema {schema!r} holds LangGraph's own {t.what} tables ({t.langgraph} and the rest): "
            f"graphwire keeps its {t.what} data in tables of its own, some of the same names, and does not read "
            "LangGraph's rows; give graphwire a schema of its own (schema=, or options=-csearch_path=NAME in the "
            "connection string) or another database"
        )


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
            schema = _current_schema(conn)
        table = sql.Identifier(schema, t.bookkeeping)
        try:
            current = _current(conn, table)
        except psycopg.errors.UndefinedColumn:  # a table of that name without our column: LangGraph's
            current = None
        if current == latest:
            return  # the common case: no lock, no DDL
        if current is None:
            _refuse_langgraph(conn, schema, t)
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
