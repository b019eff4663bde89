"""The store's tables in a SQLite file brought to the current version, at open: its version kept
apart in ``store_migrations`` (the file may be the checkpointer's), as
:func:`engine._sql.sqlite.migrate` migrates every part.
"""

from __future__ import annotations

import functools

from engine._sql import sqlite as sql
from engine._sql.files import read_migrations, read_schema
from engine.errors import StoreError

__all__ = ["MIGRATIONS_TABLE", "TABLES", "fresh_schema", "migrations"]

MIGRATIONS_TABLE = "store_migrations"
_CREATE = sql.create_table(MIGRATIONS_TABLE)


@functools.cache
def migrations() -> tuple[tuple[int, str], ...]:
    """``(number, sql)`` of every migration file, in order."""
    return read_migrations("engine.store.sqlite.migrations", "SQLite store")


@functools.cache
def fresh_schema() -> str:
    return read_schema("engine.store.sqlite")


# Looked up at call time, so a test can swap the module's migrations.
TABLES = sql.Tables(
    bookkeeping=MIGRATIONS_TABLE,
    migrations=lambda: migrations(),
    fresh_schema=lambda: fresh_schema(),
    error=StoreError,
    newer="the store's tables are at version {current}, newer than this graphwire knows ({latest}); upgrade graphwire",
    failed="migrating the SQLite store's tables failed: {exc}",
    langgraph=("store_migrations", "v", sql.LANGGRAPH_FILE.format(what="store", tables="store, store_migrations")),
)

