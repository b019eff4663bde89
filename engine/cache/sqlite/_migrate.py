"""The cache's table in a SQLite file brought to the current version, at open: its version kept
apart in ``cache_migrations`` (the file may be the checkpointer's), as
:func:`engine._sql.sqlite.migrate` migrates every part.
"""

from __future__ import annotations

import functools

from engine._sql import sqlite as sql
from engine._sql.files import read_migrations, read_schema
from engine.errors import CacheError

__all__ = ["MIGRATIONS_TABLE", "TABLES", "fresh_schema", "migrations"]

MIGRATIONS_TABLE = "cache_migrations"
_CREATE = sql.create_table(MIGRATIONS_TABLE)


@functools.cache
def migrations() -> tuple[tuple[int, str], ...]:
    """``(number, sql)`` of every migration file, in order."""
    return read_migrations("engine.cache.sqlite.migrations", "SQLite cache")


@functools.cache
def fresh_schema() -> str:
    return read_schema("engine.cache.sqlite")


# Looked up at call time, so a test can swap the module's migrations.
TABLES = sql.Tables(
    bookkeeping=MIGRATIONS_TABLE,
    migrations=lambda: migrations(),
    fresh_schema=lambda: fresh_schema(),
    error=CacheError,
    newer="the cache's table is at version {current}, newer than this graphwire knows ({latest}); upgrade graphwire",
    failed="migrating the SQLite cache's table failed: {exc}",
)

