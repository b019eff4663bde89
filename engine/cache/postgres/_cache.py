"""The PostgreSQL cache: node caches in the checkpointer's database (psycopg 3).

Its table (``cache_entries``) lives in the same schema as the saver's, with a
version of its own (``cache_migrations``), migrated at :meth:`PostgresCache.setup`
under an advisory lock, as the saver's and the store's are (replicas starting
together migrate once). Every replica on the database shares the cache: a
node one replica ran is a hit on another. Statements run on the cache's own
connections, each on a worker thread
(:class:`~engine.checkpoint.postgres._conns.Connections`, as the saver's). A write is one transaction, its rows upserted in key order (two
replicas writing the same keys never deadlock); a lookup is one statement.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from psycopg import Connection

from engine.cache._sql import Row, SqlCache
from engine.cache.postgres import _queries
from engine.checkpoint._migration_files import read_migrations, read_schema
from engine.checkpoint.postgres._migrate import Tables
from engine.checkpoint.postgres._part import PostgresPart
from engine.errors import CacheError
from engine.serde import Serializer

__all__ = ["CACHE_TABLES", "PostgresCache"]

CACHE_TABLES = Tables(
    "cache",
    "cache_migrations",
    "cache_entries",
    functools.cache(lambda: read_migrations("engine.cache.postgres.migrations", "PostgreSQL cache")),
    functools.cache(lambda: read_schema("engine.cache.postgres")),
)


class PostgresCache(PostgresPart, SqlCache):
    """Cache node writes in PostgreSQL (graphwire's own: LangGraph 1.2 has no such cache).

    Args:
        dsn: the libpq connection string (the checkpointer's, usually).
        schema: the schema of the table (None: the connection's
            ``search_path``); the checkpointer's ``pg_schema``, usually.
        serde: the serializer of cached values.
        min_size / max_size / timeout: connections kept / at most, seconds to wait for one.
    """

    _tables = CACHE_TABLES
    _error = CacheError
    _what = "cache"

    def __init__(
        self,
        dsn: str,
        *,
        schema: str | None = None,
        serde: Serializer | None = None,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 5.0,
    ) -> None:
        self._open(dsn, schema, min_size=min_size, max_size=max_size, timeout=timeout)
        super().__init__(serde=serde)
        self._q = _queries.render(schema)

    # -- the five statements -----------------------------------------------------------
    async def _select(self, keys: Sequence[tuple[str, str]]) -> list[Row]:
        params = ([ns for ns, _ in keys], [key for _, key in keys])
        return await self._db(lambda conn: list(conn.execute(self._q.SELECT, params).fetchall()))

    async def _delete_expired(self, keys: Sequence[tuple[str, str]], now: float) -> None:
        def work(conn: Connection[Any]) -> None:
            with conn.transaction(), conn.cursor() as cur:
                cur.executemany(self._q.DELETE_EXPIRED, [(ns, key, now) for ns, key in keys])

        await self._db(work)

    async def _upsert(self, rows: Sequence[Row], sweep_at: float | None) -> None:
        def work(conn: Connection[Any]) -> None:
            with conn.transaction():
                with conn.cursor() as cur:
                    cur.executemany(self._q.UPSERT, rows)
                if sweep_at is not None:
                    conn.execute(self._q.SWEEP, (sweep_at,))

        await self._db(work)

    async def _delete(self, namespaces: Sequence[str] | None) -> None:
        def work(conn: Connection[Any]) -> None:
            if namespaces is None:
                conn.execute(self._q.CLEAR_ALL)
            else:
                conn.execute(self._q.CLEAR_NS, (list(namespaces),))

        await self._db(work)

    async def _sweep(self, now: float) -> int:
        return await self._db(lambda conn: conn.execute(self._q.SWEEP, (now,)).rowcount)
