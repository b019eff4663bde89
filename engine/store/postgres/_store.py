"""The PostgreSQL store: items in the checkpointer's database (psycopg 3).

Its tables (``store_items``, ``store_vectors``) live in the same schema as
the saver's, with a version of their own (``store_migrations``), migrated
at :meth:`PostgresStore.setup` under an advisory lock, as the saver's are
(replicas starting together migrate once). Connections come from one pool
per event loop (:class:`~engine.checkpoint.postgres._pools.LoopPools`, the
saver's). A batch is one transaction; reads stream through a server-side
cursor, so a search that stops early reads no further.

Semantic search needs the ``vector`` extension (pgvector): a store given
``index=`` checks for it at setup and, without it, fails with a message
saying so.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import psycopg
from psycopg import AsyncConnection

from engine.checkpoint._migration_files import read_migrations, read_schema
from engine.checkpoint.postgres._migrate import Tables
from engine.checkpoint.postgres._part import PostgresPart
from engine.errors import StoreError
from engine.store._sql import SqlStore
from engine.store.base import IndexConfig, TTLConfig
from engine.store.postgres import _queries

__all__ = ["STORE_TABLES", "PostgresStore"]

STORE_TABLES = Tables(
    "store",
    "store_migrations",
    "store_items",
    functools.cache(lambda: read_migrations("engine.store.postgres.migrations", "PostgreSQL store")),
    functools.cache(lambda: read_schema("engine.store.postgres")),
)

_NO_VECTOR = (
    "semantic search on PostgreSQL needs the 'vector' extension (pgvector), which this database "
    "does not offer (pg_available_extensions has no 'vector'): install pgvector on the database "
    "server, or use the store without index= (or the SQLite or in-memory store, which rank in Python)"
)
_cursor_names = itertools.count()


class _Tx:
    def __init__(self, conn: AsyncConnection[Any]) -> None:
        self._conn = conn

    async def rows(self, sql: str, params: Sequence[Any]) -> AsyncIterator[Sequence[Any]]:
        async with self._conn.cursor(name=f"graphwire_store_{next(_cursor_names)}") as cur:
            await cur.execute(sql, params)
            while batch := await cur.fetchmany(100):
                for row in batch:
                    yield row

    async def execute(self, sql: str, params: Sequence[Any]) -> int:
        cur = await self._conn.execute(sql, params)
        return cur.rowcount

    async def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> None:
        async with self._conn.cursor() as cur:
            await cur.executemany(sql, params)


class PostgresStore(PostgresPart, SqlStore):
    """Store items in PostgreSQL.

    Args:
        dsn: the libpq connection string (the checkpointer's, usually).
        schema: the schema of the tables (None: the connection's
            ``search_path``); the checkpointer's ``pg_schema``, usually.
        index: semantic search config; needs the ``vector`` extension.
        ttl: expiry settings (:class:`~engine.store.base.TTLConfig`).
        min_size / max_size / timeout: each event loop's pool.
    """

    _tables = STORE_TABLES
    _error = StoreError
    _what = "store"

    def __init__(
        self,
        dsn: str,
        *,
        schema: str | None = None,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 5.0,
    ) -> None:
        self._open(dsn, schema, min_size=min_size, max_size=max_size, timeout=timeout)
        super().__init__(index=index, ttl=ttl)
        self._q = _queries.render(schema)

    def _check(self, conn: psycopg.Connection[Any]) -> None:
        """Semantic search needs the ``vector`` extension: StoreError without it."""
        if self.index_config is not None:
            row = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
            if row is None:
                raise StoreError(_NO_VECTOR)
            raise NotImplementedError(
                "semantic search on PostgreSQL through pgvector is not built yet "
                "(README, \"Where it differs\"); use the SQLite or in-memory store for it"
            )

    def _ts(self, when: datetime) -> datetime:
        return when

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[_Tx]:
        async with self._connection(transaction=True) as conn:
            yield _Tx(conn)

