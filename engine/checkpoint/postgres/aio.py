"""``AsyncPostgresSaver``, at LangGraph's import path (``langgraph.checkpoint.postgres.aio``).

The engine's :class:`~engine.checkpoint.postgres.PostgresSaver` is async at
heart (its statements awaited from any event loop, see ``_conns.py``), so the async saver
is the same saver opened LangGraph's async way: ``async with
AsyncPostgresSaver.from_conn_string(DB_URI) as saver: await saver.setup()``.
``AsyncShallowPostgresSaver`` is left out, as ``ShallowPostgresSaver`` is
(``durability="exit"`` keeps one version per call).
"""

from __future__ import annotations

from typing import Any

from engine.checkpoint._opening import aopened
from engine.checkpoint.postgres._saver import PostgresSaver

__all__ = ["AsyncPostgresSaver"]


class AsyncPostgresSaver(PostgresSaver):
    """A :class:`PostgresSaver` opened with ``async with AsyncPostgresSaver.from_conn_string(dsn)``."""

    @classmethod
    def from_conn_string(cls, conn_string: str, *, pipeline: bool = False, serde: Any = None) -> Any:  # type: ignore[override]
        """``async with AsyncPostgresSaver.from_conn_string(dsn) as saver:`` (its connections closed after the block).

        ``pipeline`` (psycopg's pipeline mode) is not supported: NotImplementedError unless False.
        """
        return aopened(cls, conn_string, pipeline=pipeline, serde=serde)

    async def setup(self) -> None:  # type: ignore[override]
        """Create or migrate the schema without blocking the event loop (idempotent)."""
        await self.asetup()
