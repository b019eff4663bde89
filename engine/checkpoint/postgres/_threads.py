"""Thread records on PostgreSQL: the ``threads`` table (migration 0008).

A :class:`~engine.checkpoint._threads.ThreadStore` on a :class:`PostgresSaver`'s
connections (its retrying runner) and schema, as its run records are
(:mod:`engine.checkpoint.postgres._runs`): the saver carries one
(``saver.threads``). Every write is one statement: an update's metadata merge
is jsonb's ``||`` (a shallow merge of top-level keys), a mark inserts the
record or changes it (``ON CONFLICT``), and an expiry is computed from the row's
own ttl in the same statement, so two replicas marking one thread never lose
a change. A mark's commit does not wait for the WAL flush (``NO_FLUSH``, see
``_queries.py``), as a run record's: it matters only beside the versions of
its run, whose commits flush it.

A metadata filter is jsonb containment (``@>``), served by the GIN index
``threads_metadata``; a page is keyset-paged on ``threads_created`` or
``threads_updated`` (see :mod:`engine.checkpoint._threads`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Sequence

from psycopg import Connection
from psycopg.types.json import Jsonb

from engine._sql.postgres.conns import kept_cursor
from engine.checkpoint._threads import FIELDS, KEEP, ThreadMark, ThreadQuery, ThreadRecord, expiry
from engine.checkpoint.postgres import _queries as q

__all__ = ["PostgresThreads"]

_COLUMNS = ", ".join(FIELDS)
_VALUES = ", ".join(f"%({n})s" for n in FIELDS)
_EXPIRES = "CASE WHEN {ttl} IS NULL THEN NULL ELSE {at} + make_interval(secs => {ttl}) END"
INSERT = f"""
INSERT INTO {{threads}} ({_COLUMNS}) VALUES ({_VALUES})
ON CONFLICT DO NOTHING RETURNING thread_id
"""
SELECT = f"SELECT {_COLUMNS} FROM {{threads}} WHERE thread_id = %(thread_id)s"
_NEW_TTL = "(CASE WHEN %(set_ttl)s::boolean THEN %(ttl)s::integer ELSE ttl_seconds END)"
UPDATE = f"""
UPDATE {{threads}} SET
    metadata = metadata || %(metadata)s::jsonb,
    ttl_seconds = {_NEW_TTL},
    ttl_strategy = CASE WHEN %(set_ttl)s::boolean THEN %(strategy)s::text ELSE ttl_strategy END,
    updated_at = %(at)s,
    expires_at = {_EXPIRES.format(ttl=_NEW_TTL, at="%(at)s::timestamptz")}
WHERE thread_id = %(thread_id)s
RETURNING {_COLUMNS}
"""
MARK = f"""
INSERT INTO {{threads}} AS t ({_COLUMNS}) VALUES ({_VALUES})
ON CONFLICT (thread_id) DO UPDATE SET
    updated_at = excluded.updated_at,
    expires_at = {_EXPIRES.format(ttl="t.ttl_seconds", at="excluded.updated_at")},
    status = coalesce(%(status__)s::text, t.status),
    interrupts = coalesce(%(interrupts__)s::bytea, t.interrupts)
RETURNING {q.NO_FLUSH}
"""
# MARK as a part of a run store's statement (a data-modifying CTE of its record's write, engine.checkpoint.postgres._runs):
# written only ``{when}`` (an SQL condition over the statement's other parts); its parameters prefixed with "t__".
_TYPES = {
    "thread_id": "text", "graph": "text", "caller_thread": "text", "created_at": "timestamptz", "updated_at": "timestamptz",
    "tenant": "text", "metadata": "jsonb", "status": "text", "interrupts": "bytea", "ttl_seconds": "integer",
    "ttl_strategy": "text", "expires_at": "timestamptz",
}  # fmt: skip
MARK_WITH = f"""
INSERT INTO {{threads}} AS t ({_COLUMNS}) SELECT {", ".join(f"%(t__{n})s::{_TYPES[n]}" for n in FIELDS)} WHERE {{when}}
ON CONFLICT (thread_id) DO UPDATE SET
    updated_at = excluded.updated_at,
    expires_at = {_EXPIRES.format(ttl="t.ttl_seconds", at="excluded.updated_at")},
    status = coalesce(%(t__status__)s::text, t.status),
    interrupts = coalesce(%(t__interrupts__)s::bytea, t.interrupts)
"""
EXPIRED = f"""
SELECT {_COLUMNS} FROM {{threads}} WHERE expires_at IS NOT NULL AND expires_at <= %(now)s AND status != 'busy'
ORDER BY expires_at, thread_id LIMIT %(limit)s
"""
SWEPT = "UPDATE {threads} SET expires_at = NULL WHERE thread_id = %(thread_id)s AND updated_at = %(at)s"
DELETE = "DELETE FROM {threads} WHERE thread_id = %(thread_id)s"

#: The saver's runner (see :class:`PostgresThreads`).
Run = Callable[[str, Callable[[Connection[Any]], Any]], Awaitable[Any]]


def _params(record: ThreadRecord) -> dict[str, Any]:
    params = {n: getattr(record, n) for n in FIELDS}
    params["metadata"] = Jsonb(record.metadata)
    return params


def _record(row: Sequence[Any]) -> ThreadRecord:
    values = dict(zip(FIELDS, row))
    values["interrupts"] = bytes(values["interrupts"])
    return ThreadRecord(**values)


def where_of(query: ThreadQuery) -> tuple[str, dict[str, Any]]:
    """The WHERE clause of ``query``'s filter (no page), and its parameters."""
    parts: list[str] = ["tenant = %(tenant)s"]
    params: dict[str, Any] = {"tenant": query.tenant}
    if query.graph is not None:
        parts.append("graph = %(graph)s")
        params["graph"] = query.graph
    if query.statuses:
        parts.append("status = ANY(%(statuses)s::text[])")
        params["statuses"] = list(query.statuses)
    if query.caller_ids:
        parts.append("caller_thread = ANY(%(ids)s::text[])")
        params["ids"] = list(query.caller_ids)
    if query.metadata:
        parts.append("metadata @> %(metadata)s::jsonb")
        params["metadata"] = Jsonb(query.metadata)
    for name, column, op in (
        ("created_after", "created_at", ">"), ("created_before", "created_at", "<"),
        ("updated_after", "updated_at", ">"), ("updated_before", "updated_at", "<"),
    ):  # fmt: skip
        bound = getattr(query, name)
        if bound is not None:
            parts.append(f"{column} {op} %({name})s")
            params[name] = bound
    return " AND ".join(parts), params


class PostgresThreads:
    """Thread records in a PostgreSQL saver's schema.

    Args:
        run: the saver's runner: ``run(what, work)`` runs ``work(conn)`` on one of its connections.
        queries: the saver's queries rendered for its schema (their ``tables``).
    """

    def __init__(self, run: Run, queries: Any) -> None:
        self._run = run
        self._table = queries.tables["threads"]  # already a quoted identifier
        self._sql = {
            k: v.replace("{threads}", self._table)
            for k, v in {"INSERT": INSERT, "SELECT": SELECT, "UPDATE": UPDATE, "MARK": MARK, "EXPIRED": EXPIRED, "SWEPT": SWEPT,
                         "DELETE": DELETE}.items()
        }  # fmt: skip

    async def _exec(self, what: str, statement: str, params: dict[str, Any]) -> tuple[list[Any], int]:
        def work(conn: Connection[Any]) -> tuple[list[Any], int]:
            cur = kept_cursor(conn)
            cur.execute(statement, params)  # type: ignore[arg-type]  # our own composed SQL
            return (cur.fetchall() if cur.description is not None else []), cur.rowcount

        result: tuple[list[Any], int] = await self._run(what, work)
        return result

    async def acreate(self, record: ThreadRecord) -> ThreadRecord | None:
        params = _params(record)
        params["expires_at"] = expiry(record.updated_at, record.ttl_seconds)
        rows, _ = await self._exec("create_thread", self._sql["INSERT"], params)
        if rows:
            return None
        found = await self.aget(record.thread_id)
        if found is None:  # deleted in between: insert again
            return await self.acreate(record)
        return found

    async def aget(self, thread_id: str) -> ThreadRecord | None:
        rows, _ = await self._exec("get_thread", self._sql["SELECT"], {"thread_id": thread_id})
        return _record(rows[0]) if rows else None

    async def aupdate(
        self, thread_id: str, at: datetime, *, metadata: dict[str, Any] | None = None, ttl: Any = KEEP
    ) -> ThreadRecord | None:
        seconds, strategy = (None, None) if ttl is KEEP or ttl is None else ttl
        params = {
            "thread_id": thread_id, "at": at, "metadata": Jsonb(metadata or {}), "set_ttl": ttl is not KEEP, "ttl": seconds,
            "strategy": strategy,
        }  # fmt: skip
        rows, _ = await self._exec("update_thread", self._sql["UPDATE"], params)
        return _record(rows[0]) if rows else None

    async def amark(
        self, record: ThreadRecord, at: datetime, *, status: str | None = None, interrupts: bytes | None = None
    ) -> None:
        await self._exec("mark_thread", *self.marking(ThreadMark(record, at, status, interrupts)))

    def mark_with(self, when: str) -> str:
        """The upsert of a mark as a part (a data-modifying CTE) of another statement: a run store's
        write of a run's record that carries its thread's mark (:class:`~engine.checkpoint.postgres._runs.PostgresRuns`),
        written only ``when``; its parameters are :meth:`marking`'s, prefixed with ``t__``."""
        return MARK_WITH.replace("{threads}", self._table).replace("{when}", when)

    def marking(self, mark: ThreadMark) -> tuple[str, dict[str, Any]]:
        """The statement that writes ``mark`` (for :meth:`amark`), and its parameters."""
        params = _params(mark.record)
        params["updated_at"] = mark.at
        params["expires_at"] = expiry(mark.at, mark.record.ttl_seconds)
        if mark.status is not None:
            params["status"] = mark.status
        if mark.interrupts is not None:
            params["interrupts"] = mark.interrupts
        params["status__"], params["interrupts__"] = mark.status, mark.interrupts
        return self._sql["MARK"], params

    async def asearch(self, query: ThreadQuery) -> list[ThreadRecord]:
        where, params = where_of(query)
        col, direction = query.sort_by, "DESC" if query.descending else "ASC"
        if query.after is not None:
            where += f" AND ({col}, thread_id) {'<' if query.descending else '>'} (%(after_at)s, %(after_id)s)"
            params["after_at"], params["after_id"] = query.after
        params["limit"] = query.limit
        statement = (
            f"SELECT {_COLUMNS} FROM {self._table} WHERE {where} ORDER BY {col} {direction}, thread_id {direction} LIMIT %(limit)s"
        )
        rows, _ = await self._exec("search_threads", statement, params)
        return [_record(r) for r in rows]

    async def acount(self, query: ThreadQuery) -> int:
        where, params = where_of(query)
        rows, _ = await self._exec("count_threads", f"SELECT count(*) FROM {self._table} WHERE {where}", params)
        return int(rows[0][0])

    async def aexpired(self, now: datetime, *, limit: int) -> list[ThreadRecord]:
        rows, _ = await self._exec("expired_threads", self._sql["EXPIRED"], {"now": now, "limit": limit})
        return [_record(r) for r in rows]

    async def aswept(self, thread_id: str, if_updated_at: datetime) -> bool:
        _, count = await self._exec("swept_thread", self._sql["SWEPT"], {"thread_id": thread_id, "at": if_updated_at})
        return count == 1

    async def adelete(self, thread_id: str) -> None:
        await self._exec("delete_thread_record", self._sql["DELETE"], {"thread_id": thread_id})

