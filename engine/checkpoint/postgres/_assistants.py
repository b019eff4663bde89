"""Assistants on PostgreSQL: the ``assistants`` and ``assistant_versions`` tables (migration 0010).

An :class:`~engine.checkpoint._assistants.AssistantStore` on a
:class:`PostgresSaver`'s connections (its retrying runner) and schema, as its
run records (:mod:`._runs`). Each method is one transaction; a search is one
statement, its metadata filter the index's containment (``@>``).

Every change is announced to the processes sharing the schema, in the
transaction that makes it (so it is sent if and only if the change commits):
a message to every process (``"to": "*"``) on the saver's message channel
(:mod:`._messages`), ``{"kind": "assistants", "tenant", "assistant_id"}``. A
host that keeps assistants it read (``announces`` is True) forgets them on it
(``server/_assistant_cache.py``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Mapping, Sequence

from psycopg import Connection, sql
from psycopg.types.json import Jsonb

from engine.checkpoint._assistants import SORT_KEYS, AssistantRecord, Conflict, Search, merged, visible
from engine.checkpoint.postgres import _queries as q
from engine.checkpoint.postgres._runs import Run
from engine.checkpoint.postgres._tables import SchemaTables

__all__ = ["PostgresAssistants"]

FIELDS = ("tenant", "assistant_id", "version", "graph", "name", "description", "config", "context", "metadata", "created_at", "updated_at")
_COLUMNS = ", ".join(FIELDS)
_VERSION_FIELDS = FIELDS[:-1]
_JSON = ("config", "context", "metadata")
INSERT = f"""
INSERT INTO {{assistants}} ({_COLUMNS}) VALUES ({', '.join(f'%({n})s' for n in FIELDS)}) ON CONFLICT DO NOTHING RETURNING version
"""
ADD_VERSION = f"INSERT INTO {{assistant_versions}} ({', '.join(_VERSION_FIELDS)}) VALUES ({', '.join(f'%({n})s' for n in _VERSION_FIELDS)})"
REPLACE = f"""
UPDATE {{assistants}} SET ({', '.join(FIELDS[2:])}) = ({', '.join(f'%({n})s' for n in FIELDS[2:])})
WHERE tenant = %(tenant)s AND assistant_id = %(assistant_id)s
"""
SELECT = f"SELECT {_COLUMNS} FROM {{assistants}} WHERE tenant = %(tenant)s AND assistant_id = %(assistant_id)s"
SELECT_LOCKED = SELECT + " FOR UPDATE"
READ = f"""
SELECT {_COLUMNS} FROM {{assistants}} WHERE tenant = ANY(%(owners)s) AND assistant_id = %(assistant_id)s
ORDER BY tenant DESC LIMIT 1
"""
LAST_VERSION = "SELECT max(version) FROM {assistant_versions} WHERE tenant = %(tenant)s AND assistant_id = %(assistant_id)s"
_VERSION_COLUMNS = f"{', '.join(_VERSION_FIELDS)}, created_at"  # a version's updated_at: when it was made
VERSION = f"""
SELECT {_VERSION_COLUMNS} FROM {{assistant_versions}}
WHERE tenant = %(tenant)s AND assistant_id = %(assistant_id)s AND version = %(version)s
"""
VERSIONS = f"""
SELECT {_VERSION_COLUMNS} FROM {{assistant_versions}}
WHERE tenant = (
    SELECT tenant FROM {{assistants}} WHERE tenant = ANY(%(owners)s) AND assistant_id = %(assistant_id)s ORDER BY tenant DESC LIMIT 1
) AND assistant_id = %(assistant_id)s AND metadata @> %(metadata)s
ORDER BY version DESC LIMIT %(limit)s OFFSET %(offset)s
"""
DELETE = """
WITH gone AS (DELETE FROM {assistant_versions} WHERE tenant = %(tenant)s AND assistant_id = %(assistant_id)s)
DELETE FROM {assistants} WHERE tenant = %(tenant)s AND assistant_id = %(assistant_id)s
"""
_FILTER = """
tenant = ANY(%(owners)s) AND (%(graph)s::text IS NULL OR graph = %(graph)s)
AND (%(name)s::text IS NULL OR strpos(lower(name), lower(%(name)s)) > 0) AND metadata @> %(metadata)s
"""
#: the change's announcement, in its transaction (delivered when it commits)
ANNOUNCE = """
SELECT pg_notify(%(channel)s, json_build_object('schema', %(schema)s::text, 'to', '*', 'thread_id', '',
    'body', json_build_object('kind', 'assistants', 'tenant', %(tenant)s::text, 'assistant_id', %(assistant_id)s::text))::text)
"""
SEARCH = f"SELECT {_COLUMNS} FROM {{assistants}} WHERE {_FILTER} ORDER BY {{order}} LIMIT %(limit)s OFFSET %(offset)s"
COUNT = f"SELECT count(*) FROM {{assistants}} WHERE {_FILTER}"


def _params(r: AssistantRecord) -> dict[str, Any]:
    return {n: Jsonb(getattr(r, n)) if n in _JSON else getattr(r, n) for n in FIELDS}


def _record(row: Sequence[Any]) -> AssistantRecord:
    return AssistantRecord(**dict(zip(FIELDS, row)))


def _search_params(search: Search) -> dict[str, Any]:
    return {
        "owners": list(visible(search.tenant)), "graph": search.graph, "name": search.name, "metadata": Jsonb(dict(search.metadata or {})),
        "limit": search.limit, "offset": search.offset,
    }  # fmt: skip


class PostgresAssistants(SchemaTables):
    """Assistants in a PostgreSQL saver's schema.

    Args:
        run: the saver's runner: ``run(what, work)`` runs ``work(conn)`` on one of its connections.
        queries: the saver's queries rendered for its schema (their ``tables``).
        schema: the saver's schema (None: the connection's search path), which its announcements name.
    """

    #: each change is announced on the saver's messages (see the module's docstring)
    announces = True

    def __init__(self, run: Run, queries: Any, schema: str | None = None) -> None:
        self._run = run
        self._schema = schema or ""
        names = {n: sql.SQL(queries.tables[n]) for n in ("assistants", "assistant_versions")}  # already quoted identifiers
        statements = {
            "INSERT": INSERT, "ADD_VERSION": ADD_VERSION, "REPLACE": REPLACE, "SELECT_LOCKED": SELECT_LOCKED, "READ": READ,
            "LAST_VERSION": LAST_VERSION, "VERSION": VERSION, "VERSIONS": VERSIONS, "DELETE": DELETE, "COUNT": COUNT,
        }  # fmt: skip
        self._sql = {k: sql.SQL(v).format(**names).as_string(None) for k, v in statements.items()}  # type: ignore[arg-type]
        self._search = {
            (by, desc): sql.SQL(SEARCH).format(**names, order=sql.SQL(f"{by} {'DESC' if desc else 'ASC'}, assistant_id {'DESC' if desc else 'ASC'}")).as_string(None)  # type: ignore[arg-type]
            for by in SORT_KEYS for desc in (False, True)
        }  # fmt: skip

    def _one(self, conn: Connection[Any], name: str, params: Mapping[str, Any]) -> Any:
        return conn.execute(self._sql[name], params).fetchone()

    def _announce(self, conn: Connection[Any], key: Mapping[str, Any]) -> None:
        """Tell every process sharing the schema that ``key``'s assistant changed, when this transaction commits."""
        conn.execute(ANNOUNCE, {"channel": q.CHANNEL, "schema": self._schema, **key})

    async def acreate(self, record: AssistantRecord, *, if_exists: Literal["raise", "do_nothing"] = "raise") -> AssistantRecord:
        params = _params(record) | {"version": 1}
        key = {"tenant": record.tenant, "assistant_id": record.assistant_id}

        def create(conn: Connection[Any]) -> AssistantRecord:
            if self._one(conn, "INSERT", params) is None:
                if if_exists == "raise":
                    raise Conflict(record.assistant_id)
                return _record(self._one(conn, "SELECT_LOCKED", key))
            conn.execute(self._sql["ADD_VERSION"], params)
            self._announce(conn, key)  # (an id deleted and made again: a process may keep the one before)
            return _record([params[n] for n in FIELDS[:6]] + [record.config, record.context, record.metadata] + [params[n] for n in FIELDS[9:]])

        return await self._tx("creating an assistant", create)  # type: ignore[no-any-return]

    async def aget(self, tenant: str, assistant_id: str) -> AssistantRecord | None:
        params = {"owners": list(visible(tenant)), "assistant_id": assistant_id}
        row = await self._run("reading an assistant", lambda conn: self._one(conn, "READ", params))
        return None if row is None else _record(row)

    async def aupdate(self, tenant: str, assistant_id: str, changes: Mapping[str, Any], now: datetime) -> AssistantRecord | None:
        key = {"tenant": tenant, "assistant_id": assistant_id}

        def update(conn: Connection[Any]) -> AssistantRecord | None:
            row = self._one(conn, "SELECT_LOCKED", key)
            if row is None:
                return None
            new = merged(_record(row), changes, self._one(conn, "LAST_VERSION", key)[0] + 1, now)
            params = _params(new)
            conn.execute(self._sql["ADD_VERSION"], params | {"created_at": now})
            conn.execute(self._sql["REPLACE"], params)
            self._announce(conn, key)
            return new

        return await self._tx("updating an assistant", update)  # type: ignore[no-any-return]

    async def aset_version(self, tenant: str, assistant_id: str, version: int, now: datetime) -> AssistantRecord | None:
        key = {"tenant": tenant, "assistant_id": assistant_id}

        def choose(conn: Connection[Any]) -> AssistantRecord | None:
            row = self._one(conn, "SELECT_LOCKED", key)
            if row is None:
                return None
            chosen = self._one(conn, "VERSION", key | {"version": version})
            if chosen is None:
                raise KeyError(version)
            current = _record((*chosen[:-2], row[-2], now))  # the assistant's created_at, updated now
            conn.execute(self._sql["REPLACE"], _params(current))
            self._announce(conn, key)
            return current

        return await self._tx("choosing an assistant's version", choose)  # type: ignore[no-any-return]

    async def aversions(
        self, tenant: str, assistant_id: str, *, metadata: Mapping[str, Any] | None = None, limit: int | None = 10, offset: int = 0
    ) -> list[AssistantRecord]:
        params = {"owners": list(visible(tenant)), "assistant_id": assistant_id, "metadata": Jsonb(dict(metadata or {})), "limit": limit, "offset": offset}
        rows = await self._run("listing an assistant's versions", lambda conn: conn.execute(self._sql["VERSIONS"], params).fetchall())
        return [_record(r) for r in rows]

    async def asearch(self, search: Search) -> list[AssistantRecord]:
        statement, params = self._search[search.sort_by, search.descending], _search_params(search)
        rows = await self._run("searching assistants", lambda conn: conn.execute(statement, params).fetchall())
        return [_record(r) for r in rows]

    async def acount(self, search: Search) -> int:
        params = _search_params(search)
        return int((await self._run("counting assistants", lambda conn: self._one(conn, "COUNT", params)))[0])

    async def adelete(self, tenant: str, assistant_id: str) -> bool:
        key = {"tenant": tenant, "assistant_id": assistant_id}

        def delete(conn: Connection[Any]) -> bool:
            if not conn.execute(self._sql["DELETE"], key).rowcount:
                return False
            self._announce(conn, key)
            return True

        return bool(await self._tx("deleting an assistant", delete))
