"""The checkpoint saver's tables in PostgreSQL (checkpoints, writes, runs, leases, messages): their migrations.

Versions are rows of ``graphwire_checkpoint_migrations`` in the saver's
schema; :func:`engine._sql.postgres.migrate.migrate` applies them, as it does
the store's and the cache's.
"""

from __future__ import annotations

import functools

from engine._sql.files import read_migrations, read_schema
from engine._sql.postgres.migrate import Tables, create_table

__all__ = ["CHECKPOINT_TABLES", "MIGRATIONS_TABLE", "fresh_schema", "latest_version", "migrations"]

MIGRATIONS_TABLE = "graphwire_checkpoint_migrations"
_CREATE_TABLE = create_table(MIGRATIONS_TABLE)


@functools.cache
def migrations() -> tuple[tuple[int, str], ...]:
    """``(number, sql)`` of every migration file, in order."""
    return read_migrations("engine.checkpoint.postgres.migrations", "PostgreSQL")


@functools.cache
def fresh_schema() -> str:
    """The SQL of the current schema, for a new database."""
    return read_schema("engine.checkpoint.postgres")


def latest_version() -> int:
    """The schema version this code writes."""
    return len(migrations())


# Looked up at call time, so a test can swap the module's migrations.
CHECKPOINT_TABLES = Tables(
    "checkpoint", MIGRATIONS_TABLE, "checkpoints", lambda: migrations(), lambda: fresh_schema(), langgraph="checkpoint_migrations"
)
