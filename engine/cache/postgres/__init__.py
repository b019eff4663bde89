"""The PostgreSQL cache (psycopg 3; usually in the checkpointer's database and schema).

Named queries are in :mod:`._queries`, numbered migrations in ``migrations/``
and the current table in ``schema.sql``. LangGraph 1.2 has no PostgreSQL
cache; this module is graphwire's, beside ``engine.checkpoint.postgres``.
"""

from __future__ import annotations

from engine.cache.postgres._cache import PostgresCache

__all__ = ["PostgresCache"]
