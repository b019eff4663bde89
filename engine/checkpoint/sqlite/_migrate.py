"""The checkpointer's tables in a SQLite file (checkpoints, writes, runs, leases): their migrations.

The version is the file's own ``PRAGMA user_version``; a new file gets
``schema.sql`` in one go, an older one every numbered file of ``migrations/``
above its version, in order, by :func:`engine._sql.sqlite.migrate` (which
migrates the store's and the cache's tables too). Both paths must end at the
same schema, which a test checks, so a migration that forgets something (or
a schema.sql that drifts) fails in CI rather than in a customer's database.
"""

from __future__ import annotations

import functools

from engine._sql import sqlite as sql
from engine._sql.files import read_migrations, read_schema
from engine.errors import CheckpointError

__all__ = ["TABLES", "fresh_schema", "latest_version", "migrations"]


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


# Looked up at call time, so a test can swap the module's migrations.
TABLES = sql.Tables(
    bookkeeping=None,
    migrations=lambda: migrations(),
    fresh_schema=lambda: fresh_schema(),
    error=CheckpointError,
    newer="the checkpoint database is at schema version {current}, newer than this graphwire knows ({latest}); upgrade graphwire",
    failed="migrating the checkpoint database failed: {exc}",
    langgraph=("writes", "value", sql.LANGGRAPH_FILE.format(what="checkpoint", tables="checkpoints, writes")),
)

