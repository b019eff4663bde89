"""Crons on SQLite: the ``crons`` table (migration 0010).

A :class:`~engine.checkpoint._crons.CronStore` on a :class:`SqliteSaver`'s
connection, lock and worker thread, as its assistants (:mod:`._assistants`).
The claim of the crons due is one ``BEGIN IMMEDIATE`` transaction: the file's
writers wait for it, so two processes never claim one firing.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Mapping, Sequence

from engine.checkpoint._crons import CronRecord, CronSearch, advanced, page, updated
from engine.checkpoint._assistants import contains
from engine.checkpoint.sqlite._runs import text_of
from engine.checkpoint.sqlite._tables import FileTables

__all__ = ["SqliteCrons"]

FIELDS = (
    "cron_id", "tenant", "assistant_id", "thread_id", "user_id", "schedule", "timezone", "next_run_date", "end_time", "enabled",
    "on_run_completed", "payload", "metadata", "created_at", "updated_at",
)  # fmt: skip
_COLUMNS = ", ".join(FIELDS)
_TIMES = ("next_run_date", "end_time", "created_at", "updated_at")
INSERT = f"INSERT INTO crons ({_COLUMNS}) VALUES ({', '.join('?' for _ in FIELDS)})"
REPLACE = f"UPDATE crons SET ({', '.join(FIELDS[1:])}) = ({', '.join('?' for _ in FIELDS[1:])}) WHERE cron_id = ?"
SELECT = f"SELECT {_COLUMNS} FROM crons WHERE cron_id = ? AND tenant = ?"
DUE = f"SELECT {_COLUMNS} FROM crons WHERE enabled = 1 AND next_run_date <= ? ORDER BY next_run_date, cron_id LIMIT ?"
ADVANCE = "UPDATE crons SET next_run_date = ? WHERE cron_id = ?"


def row_of(r: CronRecord) -> tuple[Any, ...]:
    out = []
    for name in FIELDS:
        v = getattr(r, name)
        out.append(text_of(v) if name in _TIMES else json.dumps(v) if name in ("payload", "metadata") else int(v) if name == "enabled" else v)
    return tuple(out)


def record_of(row: Sequence[Any]) -> CronRecord:
    v = dict(zip(FIELDS, row))
    for name in ("payload", "metadata"):
        v[name] = json.loads(v[name])
    for name in _TIMES:
        v[name] = None if v[name] is None else datetime.fromisoformat(v[name])
    v["enabled"] = bool(v["enabled"])
    return CronRecord(**v)


class SqliteCrons(FileTables):
    """Crons in a SQLite saver's file, on its ``work`` and ``transaction``."""

    async def acreate(self, record: CronRecord) -> CronRecord:
        await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute(INSERT, row_of(record)))
        return record

    async def aget(self, tenant: str, cron_id: str) -> CronRecord | None:
        row = await self._in("BEGIN", lambda cur: cur.execute(SELECT, (cron_id, tenant)).fetchone())
        return None if row is None else record_of(row)

    async def aupdate(self, tenant: str, cron_id: str, changes: Mapping[str, Any], now: datetime) -> CronRecord | None:
        def update(cur: Any) -> CronRecord | None:
            row = cur.execute(SELECT, (cron_id, tenant)).fetchone()
            if row is None:
                return None
            new = updated(record_of(row), changes, now)
            cur.execute(REPLACE, (*row_of(new)[1:], cron_id))
            return new

        return await self._in("BEGIN IMMEDIATE", update)  # type: ignore[no-any-return]

    async def adelete(self, tenant: str, cron_id: str) -> bool:
        gone = await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute("DELETE FROM crons WHERE cron_id = ? AND tenant = ?", (cron_id, tenant)).rowcount)
        return bool(gone)

    async def _matching(self, search: CronSearch) -> list[CronRecord]:
        clauses: list[str] = ["tenant = ?"]
        params: list[Any] = [search.tenant]
        for name in ("assistant_id", "thread_id"):
            if getattr(search, name) is not None:
                clauses.append(f"{name} = ?")
                params.append(getattr(search, name))
        if search.enabled is not None:
            clauses.append("enabled = ?")
            params.append(int(search.enabled))
        rows = await self._in("BEGIN", lambda cur: cur.execute(f"SELECT {_COLUMNS} FROM crons WHERE {' AND '.join(clauses)}", params).fetchall())
        out = [record_of(r) for r in rows]
        return [r for r in out if not search.metadata or contains(r.metadata, dict(search.metadata))]

    async def asearch(self, search: CronSearch) -> list[CronRecord]:
        return page(await self._matching(search), search)

    async def acount(self, search: CronSearch) -> int:
        return len(await self._matching(search))

    async def aclaim_due(self, now: datetime, *, limit: int = 100) -> list[CronRecord]:
        def claim(cur: Any) -> list[CronRecord]:
            due = [record_of(r) for r in cur.execute(DUE, (text_of(now), limit)).fetchall()]
            for r in due:
                cur.execute(ADVANCE, (text_of(advanced(r, now)), r.cron_id))
            return due

        return await self._in("BEGIN IMMEDIATE", claim)  # type: ignore[no-any-return]
