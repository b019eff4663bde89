"""The PostgreSQL cache: node caches in the checkpointer's database (psycopg 3).

Its table (``cache_entries``) lives in the same schema as the saver's, with a
version of its own (``cache_migrations``), migrated at :meth:`PostgresCache.setup`
under an advisory lock, as the saver's and the store's are (replicas starting
together migrate once). Every replica on the database shares the cache: a
node one replica ran is a hit on another. Statements run on the cache's own
connections (a pool of its own), used on worker threads
(:class:`~engine._sql.postgres.conns.Connections`, as the saver's). A write is one transaction, its rows upserted in key order (two
replicas writing the same keys never deadlock); a lookup is one statement.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import Sequence
from typing import Any

from psycopg import Connection

from engine.cache._sql import Row, SqlCache
from engine.cache.postgres import _queries
from engine._sql.files import read_migrations, read_schema
from engine._sql.postgres.migrate import Tables
from engine._sql.postgres.part import PostgresPart
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
        # Lookups asked in this turn of each loop (see _select), answered together.
        self._asked: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[Any]] = weakref.WeakKeyDictionary()

    # -- the five statements -----------------------------------------------------------
    async def _select(self, keys: Sequence[tuple[str, str]]) -> list[Row]:
        """The lookups asked in one turn of a loop (a step's tasks, a gather of
        @task calls) go out as one statement, and come back together in the
        order they were asked: the tasks then go on in that order, as on the
        other caches, whichever connection would have answered first."""
        loop = asyncio.get_running_loop()
        asked = self._asked.get(loop)
        if asked is None:
            asked = self._asked[loop] = []
            loop.call_soon(self._lookup, loop)
        future: asyncio.Future[list[Row]] = loop.create_future()
        asked.append((keys, future))
        return await future

    def _lookup(self, loop: asyncio.AbstractEventLoop) -> None:
        asked = self._asked.pop(loop, [])
        wanted = list(dict.fromkeys(k for keys, _ in asked for k in keys))
        params = ([ns for ns, _ in wanted], [key for _, key in wanted])

        def answer(done: asyncio.Future[list[Row]]) -> None:
            for keys, future in asked:
                if future.done():  # its caller left
                    continue
                if done.exception() is not None:
                    future.set_exception(done.exception())  # type: ignore[arg-type]
                else:
                    mine = set(keys)
                    future.set_result([row for row in done.result() if (row[0], row[1]) in mine])

        rows = asyncio.ensure_future(self._db(lambda conn: list(conn.execute(self._q.SELECT, params).fetchall())))
        rows.add_done_callback(answer)

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
