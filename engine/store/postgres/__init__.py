"""The PostgreSQL store (psycopg 3; usually in the checkpointer's database and schema).

Named queries are in :mod:`._queries`, numbered migrations in ``migrations/``
and the current tables in ``schema.sql``.
"""

from __future__ import annotations

from engine.store.postgres._store import PostgresStore
from engine.store.postgres.aio import AsyncPostgresStore
from engine.store.postgres.base import PoolConfig

__all__ = ["AsyncPostgresStore", "PoolConfig", "PostgresStore"]
