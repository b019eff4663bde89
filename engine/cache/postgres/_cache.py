"""The PostgreSQL cache: node caches in the checkpointer's database (psycopg 3).

Its table (``cache_entries``) lives in the same schema as the saver's, with a
version of its own (``cache_migrations``), migrated at :meth:`PostgresCache.setup`
under an advisory lock, as the saver's and the store's are (replicas starting
together migrate once). Every replica on the database shares the cache: a
node one replica ran is a hit on another. Connections come from one pool per
event loop (:class:`~engine.checkpoint.postgres._pools.LoopPools`, the
saver's). A write is one transaction, its rows upserted in key order (two
replicas writing the same keys never deadlock); a lookup is one statement.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import PoolTimeout

from engine.cache._sql import Row, SqlCache
from engine.cache.postgres import _queries
from engine.checkpoint._migration_files import read_migrations, read_schema
from engine.checkpoint.postgres._migrate import Tables, migrate
from engine.checkpoint.postgres._pools import LoopPools
from engine.checkpoint.postgres._saver import _IDENTIFIER
from engine.errors import CacheError, CheckpointError
from engine.serde import Serializer

__all__ = ["CACHE_TABLES", "PostgresCache"]

CACHE_TABLES = Tables(
    "cache",
    "cache_migrations",
    "cache_entries",
    functools.cache(lambda: read_migrations("engine.cache.postgres.migrations", "PostgreSQL cache")),
    functools.cache(lambda: read_schema("engine.cache.postgres")),
)


class PostgresCache(SqlCache):
    """Cache node writes in PostgreSQL (graphwire's own: LangGraph 1.2 has no such cache).

    Args:
        dsn: the libpq connection string (the checkpointer's, usually).
        schema: the schema of the table (None: the connection's
            ``search_path``); the checkpointer's ``pg_schema``, usually.
        serde: the serializer of cached values.
        min_size / max_size / timeout: each event loop's pool.
    """

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
        if schema is not None and (type(schema) is not str or not _IDENTIFIER.match(schema)):
            raise ValueError(f"schema must be a PostgreSQL identifier, got {schema!r}")
        super().__init__(serde=serde)
        self.schema = schema
        self._dsn = dsn
        self._q = _queries.render(schema)
        self._pools = LoopPools(dsn, min_size=min_size, max_size=max_size, timeout=timeout, name="graphwire-cache")
        self._setup_lock = threading.Lock()
        self._ready = False

    @classmethod
    def from_dsn(cls, dsn: str, **options: Any) -> PostgresCache:
        """A cache on ``dsn`` with its table migrated now (a bad DSN fails here)."""
        cache = cls(dsn, **options)
        cache.setup()
        return cache

    def setup(self) -> None:
        """Create or migrate the cache's table (idempotent; blocks).

        Raises:
            CacheError: the database cannot be reached, or migrating failed.
        """
        with self._setup_lock:
            if self._ready:
                return
            try:
                with psycopg.connect(self._dsn, autocommit=True) as conn:
                    migrate(conn, self.schema, tables=CACHE_TABLES)
            except CheckpointError as exc:
                raise CacheError(str(exc)) from exc
            except psycopg.Error as exc:
                raise CacheError(f"PostgreSQL: cannot open the cache's database: {exc}") from exc
            self._ready = True

    async def asetup(self) -> None:
        if not self._ready:
            await asyncio.to_thread(self.setup)

    @asynccontextmanager
    async def _connection(self, transaction: bool = False) -> AsyncIterator[AsyncConnection[Any]]:
        await self.asetup()
        try:
            async with self._pools.connection() as conn:
                if transaction:
                    async with conn.transaction():
                        yield conn
                else:
                    yield conn
        except PoolTimeout as exc:
            raise CacheError(f"PostgreSQL cache: no connection to the database: {exc}") from exc
        except psycopg.Error as exc:
            raise CacheError(f"PostgreSQL cache: {exc}") from exc

    # -- the five statements -----------------------------------------------------------
    async def _select(self, keys: Sequence[tuple[str, str]]) -> list[Row]:
        async with self._connection() as conn:
            cur = await conn.execute(self._q.SELECT, ([ns for ns, _ in keys], [key for _, key in keys]))
            return list(await cur.fetchall())

    async def _delete_expired(self, keys: Sequence[tuple[str, str]], now: float) -> None:
        async with self._connection(transaction=True) as conn, conn.cursor() as cur:
            await cur.executemany(self._q.DELETE_EXPIRED, [(ns, key, now) for ns, key in keys])

    async def _upsert(self, rows: Sequence[Row], sweep_at: float | None) -> None:
        async with self._connection(transaction=True) as conn:
            async with conn.cursor() as cur:
                await cur.executemany(self._q.UPSERT, rows)
            if sweep_at is not None:
                await conn.execute(self._q.SWEEP, (sweep_at,))

    async def _delete(self, namespaces: Sequence[str] | None) -> None:
        async with self._connection() as conn:
            if namespaces is None:
                await conn.execute(self._q.CLEAR_ALL)
            else:
                await conn.execute(self._q.CLEAR_NS, (list(namespaces),))

    async def _sweep(self, now: float) -> int:
        async with self._connection() as conn:
            cur = await conn.execute(self._q.SWEEP, (now,))
            return cur.rowcount

    async def aclose(self) -> None:
        await self._pools.aclose()
