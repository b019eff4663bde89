"""``AsyncPostgresSaver``, at LangGraph's import path (``langgraph.checkpoint.postgres.aio``).

The engine's :class:`~engine.checkpoint.postgres.PostgresSaver` is async at
heart (its statements awaited from any event loop, see ``_conns.py``), so the async saver
is the same saver opened LangGraph's async way: ``async with
AsyncPostgresSaver.from_conn_string(DB_URI) as saver: await saver.setup()``.
``AsyncShallowPostgresSaver`` is LangGraph's deprecated one that keeps a thread's
newest version only (:mod:`._shallow`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from engine._sql.postgres.given import aopened

from engine.checkpoint.postgres._saver import PostgresSaver
from engine.checkpoint.postgres._shallow import KeepsNewest

__all__ = ["AsyncPostgresSaver", "AsyncShallowPostgresSaver", "Conn"]

#: what an async saver takes besides a connection string (LangGraph's name)
Conn = AsyncConnection | AsyncConnectionPool


class AsyncPostgresSaver(PostgresSaver):
    """A :class:`PostgresSaver` opened with ``async with AsyncPostgresSaver.from_conn_string(dsn)``,
    or given LangGraph's ``AsyncConnection`` / ``AsyncConnectionPool`` (see ``_given.py``)."""

    @classmethod
    @asynccontextmanager
    async def from_conn_string(cls, conn_string: str, *, pipeline: bool = False, serde: Any = None) -> AsyncIterator[AsyncPostgresSaver]:  # type: ignore[override]
        """LangGraph's opening: a saver whose ``conn`` is an ``AsyncConnection`` to ``conn_string``
        (in a pipeline if ``pipeline``), for the ``async with`` block; closed after it.

        The statements run on the saver's own blocking connections to the
        same database (``_given.py`` says why), closed after the block too.
        """
        async with aopened(lambda conn: cls(conn, serde=serde), conn_string, pipeline=pipeline) as saver:
            yield saver

    async def setup(self) -> None:  # type: ignore[override]
        """Create or migrate the schema without blocking the event loop (idempotent)."""
        await self.asetup()


class AsyncShallowPostgresSaver(KeepsNewest, AsyncPostgresSaver):
    """An :class:`AsyncPostgresSaver` that keeps each thread's newest version only (deprecated; :mod:`._shallow`)."""
