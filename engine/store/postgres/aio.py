"""``AsyncPostgresStore``, at LangGraph's import path (``langgraph.store.postgres.aio``).

The engine's store is async at heart (its statements awaited from any event
loop), so the async store is the same store opened LangGraph's async way:
``async with AsyncPostgresStore.from_conn_string(DB_URI) as store: await
store.setup()``, or given an ``AsyncConnection`` / ``AsyncConnectionPool``
(whose database it then uses through connections of its own: see
:mod:`engine._sql.postgres.given`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from psycopg_pool import AsyncConnectionPool

from engine._sql.postgres.given import aopened
from engine.store._async_faces import AsyncTTLFaces
from engine.store.base import IndexConfig, TTLConfig
from engine.store.postgres._store import PostgresStore, pool_options

__all__ = ["AsyncPostgresStore"]


class AsyncPostgresStore(AsyncTTLFaces, PostgresStore):  # type: ignore[misc]
    """A :class:`PostgresStore` opened and set up the async way (LangGraph's async store)."""

    @classmethod
    @asynccontextmanager
    async def from_conn_string(  # type: ignore[override]
        cls,
        conn_string: str,
        *,
        pipeline: bool = False,
        pool_config: dict[str, Any] | None = None,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
    ) -> AsyncIterator[AsyncPostgresStore]:
        """LangGraph's opening: on an ``AsyncConnectionPool`` made from ``pool_config`` when given,
        else on one ``AsyncConnection`` (in a pipeline if ``pipeline``); closed after the block."""
        if pool_config is not None:
            async with AsyncConnectionPool(conn_string, **pool_options(pool_config)) as pool:
                store = cls(pool, index=index, ttl=ttl)
                try:
                    yield store
                finally:
                    await store.aclose()
            return
        async with aopened(lambda conn: cls(conn, index=index, ttl=ttl), conn_string, pipeline=pipeline) as store:
            yield store

    async def setup(self) -> None:  # type: ignore[override]
        """Create or migrate the store's tables without blocking the event loop (idempotent)."""
        await self.asetup()
