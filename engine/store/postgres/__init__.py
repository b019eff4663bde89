"""The PostgreSQL store (psycopg 3; usually in the checkpointer's database and schema).

Named queries are in :mod:`._queries`, numbered migrations in ``migrations/``
and the current tables in ``schema.sql``.
"""

from __future__ import annotations

from engine.store.postgres._store import PostgresStore

__all__ = ["AsyncPostgresStore", "PostgresStore"]


class AsyncPostgresStore(PostgresStore):
    """LangGraph's async store class name: the engine's store is async at heart, so it is the same store."""
