"""Delayed runs on SQLite: the ``delayed_runs`` table (migration 0011).

A :class:`~engine.checkpoint._delayed.DelayedRuns` on a :class:`SqliteSaver`'s
connection, lock and worker thread; a claim is one ``BEGIN IMMEDIATE``
transaction, so two processes never claim one row at once.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from engine.checkpoint._delayed import DelayedRun
from engine.checkpoint.sqlite._runs import text_of
from engine.checkpoint.sqlite._tables import FileTables

__all__ = ["SqliteDelayed"]

FIELDS = ("run_id", "tenant", "thread_id", "body", "status", "message", "not_before", "created_at")
_COLUMNS = ", ".join(FIELDS)
INSERT = f"INSERT OR IGNORE INTO delayed_runs ({_COLUMNS}) VALUES ({', '.join('?' for _ in FIELDS)})"
DUE = f"SELECT {_COLUMNS} FROM delayed_runs WHERE status = 'pending' AND not_before <= ? ORDER BY not_before, run_id LIMIT ?"


def _record(row: Any) -> DelayedRun:
    v = dict(zip(FIELDS, row))
    return DelayedRun(
        v["run_id"], v["tenant"], v["thread_id"], v["body"], datetime.fromisoformat(v["not_before"]),
        datetime.fromisoformat(v["created_at"]), v["status"], v["message"],
    )  # fmt: skip


class SqliteDelayed(FileTables):
    """The delayed runs in a SQLite saver's file, on its ``work`` and ``transaction``."""

    async def aadd(self, record: DelayedRun) -> None:
        r = record
        row = (r.run_id, r.tenant, r.thread_id, r.body, r.status, r.message, text_of(r.not_before), text_of(r.created_at))
        await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute(INSERT, row))

    async def aget(self, run_id: str) -> DelayedRun | None:
        row = await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute(f"SELECT {_COLUMNS} FROM delayed_runs WHERE run_id = ?", (run_id,)).fetchone())
        return _record(row) if row is not None else None

    async def alist(self, tenant: str, thread_id: str) -> list[DelayedRun]:
        query = f"SELECT {_COLUMNS} FROM delayed_runs WHERE tenant = ? AND thread_id = ? ORDER BY created_at DESC, run_id DESC"
        return [_record(r) for r in await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute(query, (tenant, thread_id)).fetchall())]

    async def aclaim_due(self, now: datetime, hold: float, *, limit: int = 100) -> list[DelayedRun]:
        def claim(cur: Any) -> list[DelayedRun]:
            due = [_record(r) for r in cur.execute(DUE, (text_of(now), limit)).fetchall()]
            later = text_of(now + timedelta(seconds=hold))
            cur.executemany("UPDATE delayed_runs SET not_before = ? WHERE run_id = ?", [(later, r.run_id) for r in due])
            return due

        return await self._in("BEGIN IMMEDIATE", claim)  # type: ignore[no-any-return]

    async def aend(self, run_id: str, status: str, message: str = "") -> bool:
        query = "UPDATE delayed_runs SET status = ?, message = ? WHERE run_id = ? AND status = 'pending'"
        return bool(await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute(query, (status, message, run_id)).rowcount))

    async def adone(self, run_id: str) -> None:
        await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute("DELETE FROM delayed_runs WHERE run_id = ?", (run_id,)))
