"""Delayed runs on PostgreSQL: the ``delayed_runs`` table (migration 0012).

A :class:`~engine.checkpoint._delayed.DelayedRuns` on a :class:`PostgresSaver`'s
connections and schema; a claim locks its rows (``FOR UPDATE SKIP LOCKED``)
and moves them on in the same transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from psycopg import Connection, sql

from engine.checkpoint._delayed import DelayedRun
from engine.checkpoint.postgres._runs import Run
from engine.checkpoint.postgres._tables import SchemaTables

__all__ = ["PostgresDelayed"]

FIELDS = ("run_id", "tenant", "thread_id", "body", "status", "message", "not_before", "created_at")
_COLUMNS = ", ".join(f"{n}::text" if n == "body" else n for n in FIELDS)
_QUERIES = {
    "INSERT": f"INSERT INTO {{t}} ({', '.join(FIELDS)}) VALUES ({', '.join(f'%({n})s::jsonb' if n == 'body' else f'%({n})s' for n in FIELDS)}) ON CONFLICT DO NOTHING",
    "GET": f"SELECT {_COLUMNS} FROM {{t}} WHERE run_id = %(run_id)s",
    "LIST": f"SELECT {_COLUMNS} FROM {{t}} WHERE tenant = %(tenant)s AND thread_id = %(thread_id)s ORDER BY created_at DESC, run_id DESC",
    "DUE": f"""SELECT {_COLUMNS} FROM {{t}} WHERE status = 'pending' AND not_before <= %(now)s
               ORDER BY not_before, run_id LIMIT %(limit)s FOR UPDATE SKIP LOCKED""",
    "HOLD": "UPDATE {t} SET not_before = %(later)s WHERE run_id = ANY(%(ids)s)",
    "END": "UPDATE {t} SET status = %(status)s, message = %(message)s WHERE run_id = %(run_id)s AND status = 'pending'",
    "DONE": "DELETE FROM {t} WHERE run_id = %(run_id)s",
}


def _record(r: Any) -> DelayedRun:
    return DelayedRun(r[0], r[1], r[2], r[3], r[6], r[7], r[4], r[5])


class PostgresDelayed(SchemaTables):
    """The delayed runs in a PostgreSQL saver's schema (``run``: the saver's runner; ``queries``: its rendered queries)."""

    def __init__(self, run: Run, queries: Any) -> None:
        self._run = run
        table = sql.SQL(queries.tables["delayed_runs"])
        self._sql = {k: sql.SQL(v).format(t=table).as_string(None) for k, v in _QUERIES.items()}  # type: ignore[arg-type]

    async def aadd(self, record: DelayedRun) -> None:
        params = {n: getattr(record, n) for n in FIELDS}
        await self._tx("keeping a delayed run", lambda conn: conn.execute(self._sql["INSERT"], params))

    async def aget(self, run_id: str) -> DelayedRun | None:
        row = await self._tx("reading a delayed run", lambda conn: conn.execute(self._sql["GET"], {"run_id": run_id}).fetchone())
        return _record(row) if row is not None else None

    async def alist(self, tenant: str, thread_id: str) -> list[DelayedRun]:
        params = {"tenant": tenant, "thread_id": thread_id}
        rows = await self._tx("listing delayed runs", lambda conn: conn.execute(self._sql["LIST"], params).fetchall())
        return [_record(r) for r in rows]

    async def aclaim_due(self, now: datetime, hold: float, *, limit: int = 100) -> list[DelayedRun]:
        def claim(conn: Connection[Any]) -> list[DelayedRun]:
            due = [_record(r) for r in conn.execute(self._sql["DUE"], {"now": now, "limit": limit}).fetchall()]
            if due:
                conn.execute(self._sql["HOLD"], {"later": now + timedelta(seconds=hold), "ids": [r.run_id for r in due]})
            return due

        return await self._tx("claiming delayed runs", claim)  # type: ignore[no-any-return]

    async def aend(self, run_id: str, status: str, message: str = "") -> bool:
        params = {"run_id": run_id, "status": status, "message": message}
        return bool(await self._tx("ending a delayed run", lambda conn: conn.execute(self._sql["END"], params).rowcount))

    async def adone(self, run_id: str) -> None:
        await self._tx("removing a delayed run", lambda conn: conn.execute(self._sql["DONE"], {"run_id": run_id}))
