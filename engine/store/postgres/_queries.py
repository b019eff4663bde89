"""Every SQL statement the PostgreSQL store runs, by name: fixed text, ``%s`` parameters.

Table names are written ``{items}`` and ``{vectors}``; :func:`render` fills
them in once per store with schema-qualified names quoted by
:class:`psycopg.sql.Identifier`. Namespaces are matched exactly: ``ns = %s``,
and for a prefix the exact text or the key range of its descendants (see
:mod:`engine.store._rows`), never a pattern. Reads that may hide expired
items take the current time twice (NULL switches the test off).
"""

from __future__ import annotations

from types import SimpleNamespace

from psycopg import sql

__all__ = ["render"]

_COLUMNS = "ns, key, value, created_at, updated_at, ttl_minutes"
_LIVE = "(%s::timestamptz IS NULL OR expires_at IS NULL OR expires_at > %s::timestamptz)"
_UNDER = "(ns = %s OR (ns >= %s AND ns < %s))"

_SEARCH = (
    f"SELECT {_COLUMNS} FROM (SELECT *, min(seq) OVER (PARTITION BY ns) AS first"
    " FROM {{items}} WHERE {where}) AS s ORDER BY first, seq"
)

STATEMENTS = {
    "GET": f"SELECT {_COLUMNS} FROM {{items}} WHERE ns = %s AND key = %s AND {_LIVE}",
    "SEARCH_ALL": _SEARCH.format(where=_LIVE),
    "SEARCH_UNDER": _SEARCH.format(where=f"{_UNDER} AND {_LIVE}"),
    "VECTORS_ALL": "SELECT ns, key, vector FROM {vectors}",
    "VECTORS_UNDER": f"SELECT ns, key, vector FROM {{vectors}} WHERE {_UNDER}",
    "NAMESPACES_ALL": f"SELECT DISTINCT ns FROM {{items}} WHERE {_LIVE} ORDER BY ns",
    "NAMESPACES_UNDER": f"SELECT DISTINCT ns FROM {{items}} WHERE {_UNDER} AND {_LIVE} ORDER BY ns",
    "UPSERT": (
        "INSERT INTO {items} (ns, key, value, created_at, updated_at, ttl_minutes, expires_at)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value,"
        " updated_at = excluded.updated_at, ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at"
    ),
    "DELETE_ITEM": "DELETE FROM {items} WHERE ns = %s AND key = %s",
    "DELETE_VECTORS": "DELETE FROM {vectors} WHERE ns = %s AND key = %s",
    "INSERT_VECTOR": "INSERT INTO {vectors} (ns, key, field, vector) VALUES (%s, %s, %s, %s)",
    "REFRESH": "UPDATE {items} SET expires_at = %s WHERE ns = %s AND key = %s AND ttl_minutes IS NOT NULL",
    "SWEEP_VECTORS": (
        "DELETE FROM {vectors} AS v USING {items} AS i"
        " WHERE v.ns = i.ns AND v.key = i.key AND i.expires_at <= %s"
    ),
    "SWEEP_ITEMS": "DELETE FROM {items} WHERE expires_at <= %s",
}


def render(schema: str | None) -> SimpleNamespace:
    """The statements for tables in ``schema`` (None: found through ``search_path``), as attributes."""
    names = {n: sql.Identifier(schema, f"store_{n}") if schema else sql.Identifier(f"store_{n}") for n in ("items", "vectors")}
    return SimpleNamespace(**{k: sql.SQL(v).format(**names).as_string(None) for k, v in STATEMENTS.items()})
