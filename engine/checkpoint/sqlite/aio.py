"""``AsyncSqliteSaver``, at LangGraph's import path (``langgraph.checkpoint.sqlite.aio``).

The engine's :class:`~engine.checkpoint.sqlite.SqliteSaver` is async at
heart (its SQL runs on a worker thread, never on the event loop), so the
async saver is the same saver opened LangGraph's async way: ``async with
AsyncSqliteSaver.from_conn_string("checkpoints.db") as saver:``, and an
awaitable ``setup()``. Its sync methods work too (LangGraph's refuse to run
on the event loop's thread).
"""

from __future__ import annotations

from typing import Any

from engine._internal._unsupported import refuse_aiosqlite
from engine.checkpoint._opening import aopened
from engine.checkpoint.sqlite._saver import SqliteSaver

__all__ = ["AsyncSqliteSaver"]


class AsyncSqliteSaver(SqliteSaver):
    """A :class:`SqliteSaver` opened with ``async with AsyncSqliteSaver.from_conn_string(path)``.

    It takes a path (or a ``sqlite3.Connection``), not an ``aiosqlite``
    connection: NotImplementedError for one.
    """

    def __init__(self, conn: Any, *, serde: Any = None, **options: Any) -> None:
        refuse_aiosqlite("AsyncSqliteSaver", conn)
        super().__init__(conn, serde=serde, **options)

    @classmethod
    def from_conn_string(cls, conn_string: str, *, serde: Any = None) -> Any:  # type: ignore[override]
        """``async with AsyncSqliteSaver.from_conn_string(path) as saver:`` (closed after the block)."""
        return aopened(cls, conn_string, serde=serde)

    async def setup(self) -> None:  # type: ignore[override]  # LangGraph's async saver's setup is awaited
        """Nothing to do: the schema is migrated when the file opens (kept for LangGraph's programs)."""

