"""Thread records on SQLite: the ``threads`` table (migration 0007).

A :class:`~engine.checkpoint._threads.ThreadStore` on a :class:`SqliteSaver`'s
one connection, lock and worker thread, as its run records are
(:mod:`engine.checkpoint.sqlite._runs`): the saver carries one
(``saver.threads``), handed its ``work`` and ``transaction``. Times are
ISO-8601 text in UTC to the microsecond (they sort as text); metadata is JSON
text, filtered with SQLite's JSON functions (:func:`contains_sql`, the same
containment as PostgreSQL's ``@>``, :func:`engine.checkpoint._threads.contains`).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Sequence

from engine.checkpoint._threads import FIELDS, KEEP, ThreadMark, ThreadQuery, ThreadRecord, expiry, merged
from engine.checkpoint.sqlite._runs import text_of
from engine.checkpoint.sqlite._tables import FileTables

__all__ = ["SqliteThreads", "contains_sql"]

_COLUMNS = ", ".join(FIELDS)
INSERT = f"INSERT INTO threads ({_COLUMNS}) VALUES ({', '.join('?' for _ in FIELDS)}) ON CONFLICT DO NOTHING"
SELECT = f"SELECT {_COLUMNS} FROM threads WHERE thread_id = ?"
UPDATE = (
    "UPDATE threads SET metadata = ?, ttl_seconds = ?, ttl_strategy = ?, updated_at = ?, expires_at = ? WHERE thread_id = ?"
)
MARK = "UPDATE threads SET updated_at = ?, expires_at = ?, status = coalesce(?, status), interrupts = coalesce(?, interrupts) WHERE thread_id = ?"
# A mark in one statement when the thread's TTL is the one the mark's record assumed (its expiry is then right).
MARK_AS = (
    "UPDATE threads SET updated_at = ?, expires_at = CASE WHEN ttl_seconds IS ? THEN ? ELSE expires_at END, "
    "status = coalesce(?, status), interrupts = coalesce(?, interrupts) WHERE thread_id = ? RETURNING ttl_seconds"
)
# Uses threads_expiry: the longest expired first, busy ones left for after their run.
EXPIRED = f"""
SELECT {_COLUMNS} FROM threads WHERE expires_at IS NOT NULL AND expires_at <= ? AND status != 'busy'
ORDER BY expires_at, thread_id LIMIT ?
"""
SWEPT = "UPDATE threads SET expires_at = NULL WHERE thread_id = ? AND updated_at = ?"
DELETE = "DELETE FROM threads WHERE thread_id = ?"
# A tenant's records of one caller's thread id (two at most: Expected wants exactly one).
OF_CALLER = f"SELECT {_COLUMNS} FROM threads WHERE tenant = ? AND caller_thread = ? LIMIT 2"


def _row(record: ThreadRecord) -> tuple[Any, ...]:
    out: list[Any] = []
    for name in FIELDS:
        v = getattr(record, name)
        out.append(text_of(v) if isinstance(v, datetime) else json.dumps(v, ensure_ascii=False) if name == "metadata" else v)
    return tuple(out)


def _record(row: Sequence[Any]) -> ThreadRecord:
    values = dict(zip(FIELDS, row))
    for name in ("created_at", "updated_at", "expires_at"):
        if values[name] is not None:
            values[name] = datetime.fromisoformat(values[name])
    values["metadata"] = json.loads(values["metadata"])
    values["interrupts"] = bytes(values["interrupts"])
    return ThreadRecord(**values)


def _path(path: str, key: str) -> str:
    if '"' in key or "\\" in key:
        raise ValueError(f"a metadata filter's key cannot hold '\"' or '\\' on SQLite: {key!r}")
    return f'{path}."{key}"'


def contains_sql(value: Any, path: str = "$", column: str = "metadata", depth: int = 0) -> tuple[str, list[Any]]:
    """SQL true when the JSON at ``path`` of ``column`` contains ``value`` (as PostgreSQL's ``@>``:
    see :func:`engine.checkpoint._threads.contains`), and its parameters. An array's items are
    read with ``json_each`` (alias ``e<depth>``): a scalar item compares as its ``type`` and ``atom``."""
    if isinstance(value, dict):
        parts, params = [f"json_type({column}, ?) = 'object'"], [path]
        for k, v in value.items():
            sql, p = contains_sql(v, _path(path, k), column, depth)
            parts.append(sql)
            params += p
        return "(" + " AND ".join(parts) + ")", params
    if isinstance(value, list):
        parts, params = [f"json_type({column}, ?) = 'array'"], [path]
        e = f"e{depth}"
        for item in value:
            if isinstance(item, (dict, list)):
                sql, p = contains_sql(item, "$", f"{e}.value", depth + 1)
            else:
                sql, p = _item_sql(item, e)
            parts.append(f"EXISTS (SELECT 1 FROM json_each({column}, ?) AS {e} WHERE {sql})")
            params += [path, *p]
        return "(" + " AND ".join(parts) + ")", params
    if value is None:
        return f"json_type({column}, ?) = 'null'", [path]
    if isinstance(value, bool):
        return f"json_type({column}, ?) = ?", [path, "true" if value else "false"]
    kind = "IN ('integer', 'real')" if isinstance(value, (int, float)) else "= 'text'"
    return f"(json_type({column}, ?) {kind} AND json_extract({column}, ?) = ?)", [path, path, value]


def _item_sql(value: Any, e: str) -> tuple[str, list[Any]]:
    """An array item (of ``json_each`` alias ``e``) equal to the scalar ``value``."""
    if value is None:
        return f"{e}.type = 'null'", []
    if isinstance(value, bool):
        return f"{e}.type = ?", ["true" if value else "false"]
    kind = f"{e}.type IN ('integer', 'real')" if isinstance(value, (int, float)) else f"{e}.type = 'text'"
    return f"({kind} AND {e}.atom = ?)", [value]


def where_of(query: ThreadQuery) -> tuple[str, list[Any]]:
    """The WHERE clause of ``query``'s filter (no page), and its parameters."""
    parts: list[str] = ["tenant = ?"]
    params: list[Any] = [query.tenant]
    if query.graph is not None:
        parts.append("graph = ?")
        params.append(query.graph)
    if query.statuses:
        parts.append(f"status IN ({', '.join('?' for _ in query.statuses)})")
        params += list(query.statuses)
    if query.caller_ids:
        parts.append(f"caller_thread IN ({', '.join('?' for _ in query.caller_ids)})")
        params += list(query.caller_ids)
    if query.metadata:
        sql, p = contains_sql(query.metadata)
        parts.append(sql)
        params += p
    for bound, column, op in (
        (query.created_after, "created_at", ">"), (query.created_before, "created_at", "<"),
        (query.updated_after, "updated_at", ">"), (query.updated_before, "updated_at", "<"),
    ):  # fmt: skip
        if bound is not None:
            parts.append(f"{column} {op} ?")
            params.append(text_of(bound))
    return " AND ".join(parts), params


def search_sql(query: ThreadQuery) -> tuple[str, list[Any]]:
    """A page of ``query``: read on ``threads_created`` or ``threads_updated`` from its start,
    or from the row after ``query.after`` (a row value compared on the index)."""
    where, params = where_of(query)
    col, direction = query.sort_by, "DESC" if query.descending else "ASC"
    if query.after is not None:
        where += f" AND ({col}, thread_id) {'<' if query.descending else '>'} (?, ?)"
        params += [text_of(query.after[0]), query.after[1]]
    params.append(query.limit if query.limit is not None else -1)
    return f"SELECT {_COLUMNS} FROM threads WHERE {where} ORDER BY {col} {direction}, thread_id {direction} LIMIT ?", params


class SqliteThreads(FileTables):
    """Thread records in a SQLite saver's file, on its ``work`` and ``transaction``."""

    async def acreate(self, record: ThreadRecord) -> ThreadRecord | None:
        record = record.copy()
        record.expires_at = expiry(record.updated_at, record.ttl_seconds)

        def create(cur: Any) -> ThreadRecord | None:
            if cur.execute(INSERT, _row(record)).rowcount == 1:
                return None
            return _record(cur.execute(SELECT, (record.thread_id,)).fetchone())

        return await self._in("BEGIN IMMEDIATE", create)

    async def aget(self, thread_id: str) -> ThreadRecord | None:
        row = await self._in("BEGIN", lambda cur: cur.execute(SELECT, (thread_id,)).fetchone())
        return None if row is None else _record(row)

    async def aupdate(
        self, thread_id: str, at: datetime, *, metadata: dict[str, Any] | None = None, ttl: Any = KEEP
    ) -> ThreadRecord | None:
        def update(cur: Any) -> ThreadRecord | None:
            row = cur.execute(SELECT, (thread_id,)).fetchone()
            if row is None:
                return None
            record = _record(row)
            if metadata:
                record.metadata = merged(record.metadata, metadata)
            if ttl is not KEEP:
                record.ttl_seconds, record.ttl_strategy = ttl if ttl is not None else (None, None)
            record.updated_at, record.expires_at = at, expiry(at, record.ttl_seconds)
            cur.execute(UPDATE, (
                json.dumps(record.metadata, ensure_ascii=False), record.ttl_seconds, record.ttl_strategy, text_of(at),
                text_of(record.expires_at), thread_id,
            ))  # fmt: skip
            return record

        return await self._in("BEGIN IMMEDIATE", update)

    async def amark(
        self, record: ThreadRecord, at: datetime, *, status: str | None = None, interrupts: bytes | None = None
    ) -> None:
        mark = ThreadMark(record, at, status, interrupts)
        await self._in("BEGIN IMMEDIATE", lambda cur: self.mark_in(cur, mark))

    @staticmethod
    def expect_in(cur: Any, mark: ThreadMark) -> None:
        """Raise :class:`~engine.checkpoint._threads.RecordChanged` unless the thread's record is as
        ``mark.expected`` says, in the transaction of ``cur`` (a run's start, before it writes)."""
        if mark.expected is None:
            return
        rows = cur.execute(OF_CALLER, (mark.record.tenant, mark.record.caller_thread)).fetchall()
        mark.expected.require([_record(r) for r in rows])

    @staticmethod
    def mark_in(cur: Any, mark: ThreadMark) -> None:
        """Write ``mark`` in the transaction of ``cur``: :meth:`amark`'s, or a run store's
        write that carries it (:class:`~engine.checkpoint.sqlite._runs.SqliteRuns`)."""
        first = mark.record.copy()
        first.updated_at, first.expires_at = mark.at, expiry(mark.at, first.ttl_seconds)
        if mark.status is not None:
            first.status = mark.status
        if mark.interrupts is not None:
            first.interrupts = mark.interrupts
        at = text_of(mark.at)
        params = (at, first.ttl_seconds, text_of(first.expires_at), mark.status, mark.interrupts, first.thread_id)
        rows = cur.execute(MARK_AS, params).fetchall()  # (all: no statement left open)
        if not rows:  # a new thread (the write's transaction holds the file: nobody inserts it meanwhile)
            cur.execute(INSERT, _row(first))
        elif rows[0][0] != first.ttl_seconds:  # the thread's own TTL: its expiry from that
            cur.execute(MARK, (at, text_of(expiry(mark.at, rows[0][0])), mark.status, mark.interrupts, first.thread_id))

    async def asearch(self, query: ThreadQuery) -> list[ThreadRecord]:
        sql, params = search_sql(query)
        return [_record(r) for r in await self._in("BEGIN", lambda cur: cur.execute(sql, params).fetchall())]

    async def acount(self, query: ThreadQuery) -> int:
        where, params = where_of(query)
        sql = f"SELECT count(*) FROM threads WHERE {where}"
        return int(await self._in("BEGIN", lambda cur: cur.execute(sql, params).fetchone()[0]))

    async def aexpired(self, now: datetime, *, limit: int) -> list[ThreadRecord]:
        rows = await self._in("BEGIN", lambda cur: cur.execute(EXPIRED, (text_of(now), limit)).fetchall())
        return [_record(r) for r in rows]

    async def aswept(self, thread_id: str, if_updated_at: datetime) -> bool:
        changed = await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute(SWEPT, (thread_id, text_of(if_updated_at))).rowcount)
        return bool(changed)

    async def adelete(self, thread_id: str) -> None:
        await self._in("BEGIN IMMEDIATE", lambda cur: cur.execute(DELETE, (thread_id,)))
