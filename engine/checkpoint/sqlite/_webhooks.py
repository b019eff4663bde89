"""The webhook outbox on SQLite: the ``webhooks`` table (migration 0010).

A :class:`~engine.checkpoint._webhooks.WebhookOutbox` on a
:class:`SqliteSaver`'s connection, lock and worker thread; a claim is one
``BEGIN IMMEDIATE`` transaction, so two processes never claim one row at once.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from engine.checkpoint._webhooks import WebhookRecord
from engine.checkpoint.sqlite._runs import text_of
from engine.checkpoint.sqlite._tables import FileTables

__all__ = ["SqliteWebhooks"]

FIELDS = ("run_id", "tenant", "url", "attempts", "next_attempt_at", "created_at")
INSERT = f"INSERT OR IGNORE INTO webhooks ({', '.join(FIELDS)}) VALUES ({', '.join('?' for _ in FIELDS)})"
DUE = f"SELECT {', '.join(FIELDS)} FROM webhooks WHERE next_attempt_at <= ? ORDER BY next_attempt_at, run_id LIMIT ?"


def _record(row: Any) -> WebhookRecord:
    v = dict(zip(FIELDS, row))
    return WebhookRecord(
        v["run_id"], v["url"], datetime.fromisoformat(v["created_at"]), datetime.fromisoformat(v["next_attempt_at"]), v["tenant"], v["attempts"]
    )


class SqliteWebhooks(FileTables):
    """The webhook outbox in a SQLite saver's file, on its ``work`` and ``transaction``."""

    async def aadd(self, record: WebhookRecord) -> None:
        row = (record.run_id, record.tenant, record.url, record.attempts, text_of(record.next_attempt_at), text_of(record.created_at))
        await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute(INSERT, row))

    async def aclaim_due(self, now: datetime, hold: float, *, limit: int = 100) -> list[WebhookRecord]:
        def claim(cur: Any) -> list[WebhookRecord]:
            due = [_record(r) for r in cur.execute(DUE, (text_of(now), limit)).fetchall()]
            later = text_of(now + timedelta(seconds=hold))
            cur.executemany("UPDATE webhooks SET next_attempt_at = ? WHERE run_id = ?", [(later, r.run_id) for r in due])
            return due

        return await self._in("BEGIN IMMEDIATE", claim)  # type: ignore[no-any-return]

    async def aretry(self, run_id: str, at: datetime, attempts: int) -> None:
        await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute("UPDATE webhooks SET next_attempt_at = ?, attempts = ? WHERE run_id = ?", (text_of(at), attempts, run_id)))

    async def adone(self, run_id: str) -> None:
        await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute("DELETE FROM webhooks WHERE run_id = ?", (run_id,)))
