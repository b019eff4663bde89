"""The PostgreSQL store: items in the checkpointer's database (psycopg 3).

Its tables (``store_items``, ``store_vectors``) live in the same schema as
the saver's, with a version of their own (``store_migrations``), migrated
at :meth:`PostgresStore.setup` under an advisory lock, as the saver's are
(replicas starting together migrate once). Statements run on the store's own
connections (a pool of its own), used on worker threads
(:class:`~engine._sql.postgres.conns.Connections`, as the saver's). A
batch is one transaction on one of them; reads stream through a server-side
cursor, so a search that stops early reads no further.

Semantic search (``index=``) needs no extension: vectors are stored as
float64s (``store_vectors``, as the SQLite store keeps them) and a search
ranks the items under its namespace prefix exactly, by cosine similarity,
in Python, with the SQLite and in-memory stores' code and scores. It reads
the vectors of the whole prefix: exact, not approximate (there is no ANN
index, so LangGraph's ``ann_index_config`` and a ``distance_type`` other
than cosine are refused rather than ignored, as :class:`~engine.store._sql.SqlStore`
refuses them for both SQL stores).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from engine._internal._unsupported import refuse
from engine._sql.files import MigrationTexts, read_migrations, read_schema
from engine._sql.postgres.conns import Reserved
from engine._sql.postgres.given import opened
from engine._sql.postgres.migrate import Tables
from engine._sql.postgres.part import PostgresPart
from engine.errors import StoreError
from engine.store._sql import SqlStore
from engine.store.base import IndexConfig, TTLConfig
from engine.store.postgres import _queries

__all__ = ["STORE_TABLES", "PostgresStore", "pool_options"]

STORE_TABLES = Tables(
    "store",
    "store_migrations",
    "store_items",
    functools.cache(lambda: read_migrations("engine.store.postgres.migrations", "PostgreSQL store")),
    functools.cache(lambda: read_schema("engine.store.postgres")),
    langgraph="store_migrations",  # LangGraph's has the same name (and a column ``v`` where ours has ``version``)
)

_cursor_names = itertools.count()


def pool_options(pool_config: dict[str, Any]) -> dict[str, Any]:
    """A psycopg pool's arguments from LangGraph's ``pool_config`` (its sizes, its connections'
    ``kwargs``), its connections in autocommit mode as LangGraph makes them."""
    options = dict(pool_config)
    kwargs = {"autocommit": True, "prepare_threshold": 0, **(options.pop("kwargs", None) or {})}
    return {"min_size": options.pop("min_size", 1), "max_size": options.pop("max_size", None), "kwargs": kwargs, **options}


class _Tx:
    """A batch's transaction: each call runs on its reserved connection."""

    def __init__(self, conn: Reserved) -> None:
        self._conn = conn

    async def rows(self, sql: str, params: Sequence[Any]) -> AsyncGenerator[Sequence[Any], None]:
        cur: Any = None

        def start(conn: psycopg.Connection[Any]) -> list[Any]:
            nonlocal cur
            # A server-side cursor reads no further than asked; a pipeline (the caller's, given
            # to LangGraph's PostgresStore) has none, and reads the query's rows whole.
            named = not conn.pgconn.pipeline_status
            cur = conn.cursor(name=f"graphwire_store_{next(_cursor_names)}") if named else conn.cursor()
            cur.execute(sql, params)
            return cur.fetchmany(100)

        try:
            batch = await self._conn.run(start)
            while batch:
                for row in batch:
                    yield row
                batch = await self._conn.run(lambda conn: cur.fetchmany(100))
        finally:
            if cur is not None:
                await self._conn.run(lambda conn: cur.close())

    async def execute(self, sql: str, params: Sequence[Any]) -> int:
        return await self._conn.run(lambda conn: conn.execute(sql, params).rowcount)

    async def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> None:
        def work(conn: psycopg.Connection[Any]) -> None:
            with conn.cursor() as cur:
                cur.executemany(sql, params)

        await self._conn.run(work)


class PostgresStore(PostgresPart, SqlStore):
    """Store items in PostgreSQL.

    Args:
        conn: the libpq connection string (the checkpointer's, usually), or
            LangGraph's: a psycopg connection or pool (see
            :mod:`engine._sql.postgres.given`).
        pipe: LangGraph's: a pipeline of the ``Connection`` given.
        schema: the schema of the tables (None: the connection's
            ``search_path``); the checkpointer's ``pg_schema``, usually.
        index: semantic search config (``embed``, ``dims``, ``fields``); exact cosine ranking.
        ttl: expiry settings (:class:`~engine.store.base.TTLConfig`).
        min_size / max_size / timeout: connections kept / at most, seconds to wait for one.
    """

    _tables = STORE_TABLES
    MIGRATIONS = MigrationTexts(STORE_TABLES.migrations)
    _error = StoreError
    _what = "store"

    def __init__(
        self,
        conn: Any,
        *,
        pipe: Any = None,
        schema: str | None = None,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 5.0,
        deserializer: Any = None,
    ) -> None:
        refuse("PostgresStore", deserializer=deserializer)
        super().__init__(index=index, ttl=ttl)  # before opening: an index option it refuses opens nothing
        self._open(conn, schema, min_size=min_size, max_size=max_size, timeout=timeout, pipe=pipe)
        self._q = _queries.render(schema)

    @classmethod
    @contextmanager
    def from_conn_string(
        cls,
        conn_string: str,
        *,
        pipeline: bool = False,
        pool_config: dict[str, Any] | None = None,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
    ) -> Iterator[PostgresStore]:
        """LangGraph's opening: on a ``ConnectionPool`` made from ``pool_config`` when given (it
        overrides ``pipeline``), else on one connection (in a pipeline if ``pipeline``); closed after the block."""
        if pool_config is not None:
            with ConnectionPool(conn_string, **pool_options(pool_config)) as pool:
                store = cls(pool, index=index, ttl=ttl)
                try:
                    yield store
                finally:
                    store.close()
            return
        with opened(lambda conn: cls(conn, index=index, ttl=ttl), conn_string, pipeline=pipeline) as store:
            yield store

    def _ts(self, when: datetime) -> datetime:
        return when

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[_Tx]:
        async with self._reserved() as conn:
            yield _Tx(conn)

