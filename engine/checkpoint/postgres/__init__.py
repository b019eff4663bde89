"""The PostgreSQL checkpoint saver (psycopg 3; its connections on worker threads, shared by every event loop).

Named queries are in :mod:`._queries`, numbered migrations in ``migrations/``
and the current schema in ``schema.sql``.
"""

from __future__ import annotations

from psycopg import Connection
from psycopg_pool import ConnectionPool

from engine.checkpoint.postgres._saver import PostgresSaver
from engine.checkpoint.postgres._shallow import ShallowPostgresSaver
from engine.checkpoint.postgres.base import BasePostgresSaver

__all__ = ["BasePostgresSaver", "Conn", "PostgresSaver", "ShallowPostgresSaver"]

#: what a saver takes besides a connection string (LangGraph's name)
Conn = Connection | ConnectionPool

