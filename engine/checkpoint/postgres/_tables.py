"""What the PostgreSQL saver's record stores (assistants, crons, webhooks, delayed runs) share: one
transaction per call on the saver's runner."""

from __future__ import annotations

from typing import Any

from psycopg import Connection

from engine.checkpoint.postgres._runs import Run

__all__ = ["SchemaTables"]


class SchemaTables:
    """Tables in a PostgreSQL saver's schema, reached on its runner ``_run`` (set by the subclass)."""

    _run: Run

    async def _tx(self, what: str, fn: Any) -> Any:
        """``fn(connection)`` in one transaction (``what``: the work, as a failure names it)."""

        def work(conn: Connection[Any]) -> Any:
            with conn.transaction():
                return fn(conn)

        return await self._run(what, work)
