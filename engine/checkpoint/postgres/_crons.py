"""Crons on PostgreSQL: the ``crons`` table (migration 0011).

A :class:`~engine.checkpoint._crons.CronStore` on a :class:`PostgresSaver`'s
connections and schema, as its assistants (:mod:`._assistants`). The claim of
the crons due locks their rows (``FOR UPDATE SKIP LOCKED``) and moves each
one's ``next_run_date`` in the same transaction, so replicas claiming at once
never claim one firing twice.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from psycopg import Connection, sql
from psycopg.types.json import Jsonb

from engine.checkpoint._crons import CRON_SORT_KEYS, CronRecord, CronSearch, advanced, updated
from engine.checkpoint.postgres._runs import Run
from engine.checkpoint.postgres._tables import SchemaTables

__all__ = ["PostgresCrons"]

FIELDS = (
    "cron_id", "tenant", "assistant_id", "thread_id", "user_id", "schedule", "timezone", "next_run_date", "end_time", "enabled",
    "on_run_completed", "payload", "metadata", "created_at", "updated_at",
)  # fmt: skip
_COLUMNS = ", ".join(FIELDS)
INSERT = f"INSERT INTO {{crons}} ({_COLUMNS}) VALUES ({', '.join(f'%({n})s' for n in FIELDS)})"
REPLACE = f"UPDATE {{crons}} SET ({', '.join(FIELDS[1:])}) = ({', '.join(f'%({n})s' for n in FIELDS[1:])}) WHERE cron_id = %(cron_id)s"
SELECT_LOCKED = f"SELECT {_COLUMNS} FROM {{crons}} WHERE cron_id = %(cron_id)s AND tenant = %(tenant)s FOR UPDATE"
READ = f"SELECT {_COLUMNS} FROM {{crons}} WHERE cron_id = %(cron_id)s AND tenant = %(tenant)s"
DELETE = "DELETE FROM {crons} WHERE cron_id = %(cron_id)s AND tenant = %(tenant)s"
DUE = f"""
SELECT {_COLUMNS} FROM {{crons}} WHERE enabled AND next_run_date <= %(now)s
ORDER BY next_run_date, cron_id LIMIT %(limit)s FOR UPDATE SKIP LOCKED
"""
ADVANCE = "UPDATE {crons} SET next_run_date = %(next)s WHERE cron_id = %(cron_id)s"
_FILTER = """
tenant = %(tenant)s AND (%(assistant_id)s::text IS NULL OR assistant_id = %(assistant_id)s)
AND (%(thread_id)s::text IS NULL OR thread_id = %(thread_id)s) AND (%(enabled)s::boolean IS NULL OR enabled = %(enabled)s)
AND metadata @> %(metadata)s
"""
SEARCH = f"SELECT {_COLUMNS} FROM {{crons}} WHERE {_FILTER} ORDER BY {{order}} LIMIT %(limit)s OFFSET %(offset)s"
COUNT = f"SELECT count(*) FROM {{crons}} WHERE {_FILTER}"


def _params(r: CronRecord) -> dict[str, Any]:
    return {n: Jsonb(getattr(r, n)) if n in ("payload", "metadata") else getattr(r, n) for n in FIELDS}


def _record(row: Sequence[Any]) -> CronRecord:
    return CronRecord(**dict(zip(FIELDS, row)))


def _search_params(search: CronSearch) -> dict[str, Any]:
    return {
        "tenant": search.tenant, "assistant_id": search.assistant_id, "thread_id": search.thread_id, "enabled": search.enabled,
        "metadata": Jsonb(dict(search.metadata or {})), "limit": search.limit, "offset": search.offset,
    }  # fmt: skip


class PostgresCrons(SchemaTables):
    """Crons in a PostgreSQL saver's schema (``run``: the saver's runner; ``queries``: its rendered queries)."""

    def __init__(self, run: Run, queries: Any) -> None:
        self._run = run
        names = {"crons": sql.SQL(queries.tables["crons"])}
        statements = {
            "INSERT": INSERT, "REPLACE": REPLACE, "SELECT_LOCKED": SELECT_LOCKED, "READ": READ, "DELETE": DELETE, "DUE": DUE,
            "ADVANCE": ADVANCE, "COUNT": COUNT,
        }  # fmt: skip
        self._sql = {k: sql.SQL(v).format(**names).as_string(None) for k, v in statements.items()}  # type: ignore[arg-type]
        self._search = {
            (by, desc): sql.SQL(SEARCH).format(**names, order=sql.SQL(f"{by} {'DESC' if desc else 'ASC'} NULLS LAST, cron_id")).as_string(None)  # type: ignore[arg-type]
            for by in CRON_SORT_KEYS for desc in (False, True)
        }  # fmt: skip

    async def acreate(self, record: CronRecord) -> CronRecord:
        await self._tx("creating a cron", lambda conn: conn.execute(self._sql["INSERT"], _params(record)))
        return record

    async def aget(self, tenant: str, cron_id: str) -> CronRecord | None:
        params = {"cron_id": cron_id, "tenant": tenant}
        row = await self._run("reading a cron", lambda conn: conn.execute(self._sql["READ"], params).fetchone())
        return None if row is None else _record(row)

    async def aupdate(self, tenant: str, cron_id: str, changes: Mapping[str, Any], now: datetime) -> CronRecord | None:
        def update(conn: Connection[Any]) -> CronRecord | None:
            row = conn.execute(self._sql["SELECT_LOCKED"], {"cron_id": cron_id, "tenant": tenant}).fetchone()
            if row is None:
                return None
            new = updated(_record(row), changes, now)
            conn.execute(self._sql["REPLACE"], _params(new))
            return new

        return await self._tx("updating a cron", update)  # type: ignore[no-any-return]

    async def adelete(self, tenant: str, cron_id: str) -> bool:
        params = {"cron_id": cron_id, "tenant": tenant}
        gone = await self._tx("deleting a cron", lambda conn: conn.execute(self._sql["DELETE"], params).rowcount)
        return bool(gone)

    async def asearch(self, search: CronSearch) -> list[CronRecord]:
        statement = self._search[(search.sort_by, search.descending)]
        rows = await self._run("searching crons", lambda conn: conn.execute(statement, _search_params(search)).fetchall())
        return [_record(r) for r in rows]

    async def acount(self, search: CronSearch) -> int:
        row = await self._run("counting crons", lambda conn: conn.execute(self._sql["COUNT"], _search_params(search)).fetchone())
        return int(row[0])

    async def aclaim_due(self, now: datetime, *, limit: int = 100) -> list[CronRecord]:
        def claim(conn: Connection[Any]) -> list[CronRecord]:
            due = [_record(r) for r in conn.execute(self._sql["DUE"], {"now": now, "limit": limit}).fetchall()]
            for r in due:
                conn.execute(self._sql["ADVANCE"], {"next": advanced(r, now), "cron_id": r.cron_id})
            return due

        return await self._tx("claiming the crons due", claim)  # type: ignore[no-any-return]
