"""Assistants on SQLite: the ``assistants`` and ``assistant_versions`` tables (migration 0009).

An :class:`~engine.checkpoint._assistants.AssistantStore` on a
:class:`SqliteSaver`'s connection, lock and worker thread, as its run records
(:mod:`._runs`). A search filters by tenant, graph and name in SQL; a metadata
filter (containment, as PostgreSQL's ``@>``) is applied to those rows in
Python, then the page is cut: assistants are configurations, counted in tens or
thousands, not in the millions threads are.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal, Mapping, Sequence

from engine.checkpoint._assistants import AssistantRecord, Conflict, Search, contains, merged, page, visible
from engine.checkpoint.sqlite._runs import text_of
from engine.checkpoint.sqlite._tables import FileTables

__all__ = ["SqliteAssistants"]

FIELDS = ("tenant", "assistant_id", "version", "graph", "name", "description", "config", "context", "metadata", "created_at", "updated_at")
_COLUMNS = ", ".join(FIELDS)
_VERSION_FIELDS = FIELDS[:-1]  # a version's created_at is when it was made: its updated_at
INSERT = f"INSERT INTO assistants ({_COLUMNS}) VALUES ({', '.join('?' for _ in FIELDS)})"
REPLACE = f"UPDATE assistants SET ({', '.join(FIELDS[2:])}) = ({', '.join('?' for _ in FIELDS[2:])}) WHERE tenant = ? AND assistant_id = ?"
ADD_VERSION = f"INSERT INTO assistant_versions ({', '.join(_VERSION_FIELDS)}) VALUES ({', '.join('?' for _ in _VERSION_FIELDS)})"
SELECT = f"SELECT {_COLUMNS} FROM assistants WHERE tenant = ? AND assistant_id = ?"
LAST_VERSION = "SELECT max(version) FROM assistant_versions WHERE tenant = ? AND assistant_id = ?"
VERSION = f"SELECT {', '.join(_VERSION_FIELDS)}, created_at FROM assistant_versions WHERE tenant = ? AND assistant_id = ? AND version = ?"
VERSIONS = f"SELECT {', '.join(_VERSION_FIELDS)}, created_at FROM assistant_versions WHERE tenant = ? AND assistant_id = ? ORDER BY version DESC"
DELETE = ("DELETE FROM assistant_versions WHERE tenant = ? AND assistant_id = ?", "DELETE FROM assistants WHERE tenant = ? AND assistant_id = ?")


def row_of(r: AssistantRecord) -> tuple[Any, ...]:
    return (
        r.tenant, r.assistant_id, r.version, r.graph, r.name, r.description, json.dumps(r.config), json.dumps(r.context),
        json.dumps(r.metadata), text_of(r.created_at), text_of(r.updated_at),
    )  # fmt: skip


def record_of(row: Sequence[Any]) -> AssistantRecord:
    v = dict(zip(FIELDS, row))
    for name in ("config", "context", "metadata"):
        v[name] = json.loads(v[name])
    for name in ("created_at", "updated_at"):
        v[name] = datetime.fromisoformat(v[name])
    return AssistantRecord(**v)


def _where(search: Search, owners: tuple[str, ...]) -> tuple[str, list[Any]]:
    clauses = [f"tenant IN ({', '.join('?' for _ in owners)})"]
    params: list[Any] = list(owners)
    if search.graph is not None:
        clauses.append("graph = ?")
        params.append(search.graph)
    if search.name is not None:
        clauses.append("instr(lower(name), lower(?)) > 0")
        params.append(search.name)
    return " AND ".join(clauses), params


class SqliteAssistants(FileTables):
    """Assistants in a SQLite saver's file, on its ``work`` and ``transaction``."""

    async def acreate(self, record: AssistantRecord, *, if_exists: Literal["raise", "do_nothing"] = "raise") -> AssistantRecord:
        row = row_of(record)[:2] + (1,) + row_of(record)[3:]

        def create(cur: Any) -> AssistantRecord:
            found = cur.execute(SELECT, (record.tenant, record.assistant_id)).fetchone()
            if found is not None:
                if if_exists == "raise":
                    raise Conflict(record.assistant_id)
                return record_of(found)
            cur.execute(INSERT, row)
            cur.execute(ADD_VERSION, row[:-1])
            return record_of(row)

        return await self._in("BEGIN IMMEDIATE", create)  # type: ignore[no-any-return]

    async def aget(self, tenant: str, assistant_id: str) -> AssistantRecord | None:
        def get(cur: Any) -> Any:
            for owner in visible(tenant):
                row = cur.execute(SELECT, (owner, assistant_id)).fetchone()
                if row is not None:
                    return record_of(row)
            return None

        return await self._in("BEGIN", get)  # type: ignore[no-any-return]

    async def aupdate(self, tenant: str, assistant_id: str, changes: Mapping[str, Any], now: datetime) -> AssistantRecord | None:
        def update(cur: Any) -> AssistantRecord | None:
            row = cur.execute(SELECT, (tenant, assistant_id)).fetchone()
            if row is None:
                return None
            last = cur.execute(LAST_VERSION, (tenant, assistant_id)).fetchone()[0]
            new = merged(record_of(row), changes, last + 1, now)
            values = row_of(new)
            cur.execute(ADD_VERSION, (*values[:-2], text_of(now)))
            cur.execute(REPLACE, (*values[2:], tenant, assistant_id))
            return new

        return await self._in("BEGIN IMMEDIATE", update)  # type: ignore[no-any-return]

    async def aset_version(self, tenant: str, assistant_id: str, version: int, now: datetime) -> AssistantRecord | None:
        def choose(cur: Any) -> AssistantRecord | None:
            row = cur.execute(SELECT, (tenant, assistant_id)).fetchone()
            if row is None:
                return None
            chosen = cur.execute(VERSION, (tenant, assistant_id, version)).fetchone()
            if chosen is None:
                raise KeyError(version)
            current = record_of((*chosen[:-2], row[-2], text_of(now)))  # the assistant's created_at, updated now
            cur.execute(REPLACE, (*row_of(current)[2:], tenant, assistant_id))
            return current

        return await self._in("BEGIN IMMEDIATE", choose)  # type: ignore[no-any-return]

    async def aversions(
        self, tenant: str, assistant_id: str, *, metadata: Mapping[str, Any] | None = None, limit: int | None = 10, offset: int = 0
    ) -> list[AssistantRecord]:
        def read(cur: Any) -> list[AssistantRecord]:
            for owner in visible(tenant):
                rows = cur.execute(VERSIONS, (owner, assistant_id)).fetchall()
                if rows:
                    out = [record_of(r) for r in rows]  # a version's updated_at: when it was made
                    return [r for r in out if not metadata or contains(r.metadata, dict(metadata))]
            return []

        kept = await self._in("BEGIN", read)
        return kept[offset : None if limit is None else offset + limit]  # type: ignore[no-any-return]

    async def _matching(self, search: Search, *, paged: bool) -> list[AssistantRecord]:
        where, params = _where(search, visible(search.tenant))
        order = "DESC" if search.descending else "ASC"
        sql = f"SELECT {_COLUMNS} FROM assistants WHERE {where} ORDER BY {search.sort_by} {order}, assistant_id {order}"
        if paged and not search.metadata:
            sql += " LIMIT ? OFFSET ?"
            params += [-1 if search.limit is None else search.limit, search.offset]
        rows = await self._in("BEGIN", lambda cur: cur.execute(sql, params).fetchall())
        out = [record_of(r) for r in rows]
        if search.metadata:
            out = [r for r in out if contains(r.metadata, dict(search.metadata))]
            if paged:
                out = page(out, search)
        return out

    async def asearch(self, search: Search) -> list[AssistantRecord]:
        return await self._matching(search, paged=True)

    async def acount(self, search: Search) -> int:
        return len(await self._matching(search, paged=False))

    async def adelete(self, tenant: str, assistant_id: str) -> bool:
        def delete(cur: Any) -> bool:
            cur.execute(DELETE[0], (tenant, assistant_id))
            return bool(cur.execute(DELETE[1], (tenant, assistant_id)).rowcount)

        return await self._in("BEGIN IMMEDIATE", delete)  # type: ignore[no-any-return]
