"""The webhook outbox on PostgreSQL: the ``webhooks`` table (migration 0011).

A :class:`~engine.checkpoint._webhooks.WebhookOutbox` on a
:class:`PostgresSaver`'s connections and schema; a claim locks its rows
(``FOR UPDATE SKIP LOCKED``) and moves them on in the same transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from psycopg import Connection, sql

from engine.checkpoint._webhooks import WebhookRecord
from engine.checkpoint.postgres._runs import Run
from engine.checkpoint.postgres._tables import SchemaTables

__all__ = ["PostgresWebhooks"]

FIELDS = ("run_id", "tenant", "url", "attempts", "next_attempt_at", "created_at")
INSERT = f"INSERT INTO {{webhooks}} ({', '.join(FIELDS)}) VALUES ({', '.join(f'%({n})s' for n in FIELDS)}) ON CONFLICT DO NOTHING"
DUE = f"""
SELECT {', '.join(FIELDS)} FROM {{webhooks}} WHERE next_attempt_at <= %(now)s
ORDER BY next_attempt_at, run_id LIMIT %(limit)s FOR UPDATE SKIP LOCKED
"""
HOLD = "UPDATE {webhooks} SET next_attempt_at = %(later)s WHERE run_id = ANY(%(ids)s)"
RETRY = "UPDATE {webhooks} SET next_attempt_at = %(at)s, attempts = %(attempts)s WHERE run_id = %(run_id)s"
DONE = "DELETE FROM {webhooks} WHERE run_id = %(run_id)s"


class PostgresWebhooks(SchemaTables):
    """The webhook outbox in a PostgreSQL saver's schema (``run``: the saver's runner; ``queries``: its rendered queries)."""

    def __init__(self, run: Run, queries: Any) -> None:
        self._run = run
        names = {"webhooks": sql.SQL(queries.tables["webhooks"])}
        self._sql = {
            k: sql.SQL(v).format(**names).as_string(None)  # type: ignore[arg-type]
            for k, v in {"INSERT": INSERT, "DUE": DUE, "HOLD": HOLD, "RETRY": RETRY, "DONE": DONE}.items()
        }

    async def aadd(self, record: WebhookRecord) -> None:
        params = {n: getattr(record, n) for n in FIELDS}
        await self._tx("keeping a webhook", lambda conn: conn.execute(self._sql["INSERT"], params))

    async def aclaim_due(self, now: datetime, hold: float, *, limit: int = 100) -> list[WebhookRecord]:
        def claim(conn: Connection[Any]) -> list[WebhookRecord]:
            rows = conn.execute(self._sql["DUE"], {"now": now, "limit": limit}).fetchall()
            due = [WebhookRecord(r[0], r[2], r[5], r[4], r[1], r[3]) for r in rows]
            if due:
                conn.execute(self._sql["HOLD"], {"later": now + timedelta(seconds=hold), "ids": [r.run_id for r in due]})
            return due

        return await self._tx("claiming webhooks", claim)  # type: ignore[no-any-return]

    async def aretry(self, run_id: str, at: datetime, attempts: int) -> None:
        params = {"at": at, "attempts": attempts, "run_id": run_id}
        await self._tx("rescheduling a webhook", lambda conn: conn.execute(self._sql["RETRY"], params))

    async def adone(self, run_id: str) -> None:
        await self._tx("removing a webhook", lambda conn: conn.execute(self._sql["DONE"], {"run_id": run_id}))
