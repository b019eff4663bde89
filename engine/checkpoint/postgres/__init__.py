"""The PostgreSQL checkpoint saver (psycopg 3; its connections on worker threads, shared by every event loop).

Named queries are in :mod:`._queries`, numbered migrations in ``migrations/``
and the current schema in ``schema.sql``.
"""

from __future__ import annotations

from engine.checkpoint.postgres._saver import PostgresSaver

__all__ = ["PostgresSaver"]
