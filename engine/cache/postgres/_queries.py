"""Every SQL statement the PostgreSQL cache runs, by name: fixed text, ``%s`` parameters.

The table is written ``{entries}``; :func:`render` fills it in once per
cache with a schema-qualified name quoted by :class:`psycopg.sql.Identifier`.
A lookup of many keys is one statement: the keys travel as two text arrays,
unnested side by side.
"""

from __future__ import annotations

from types import SimpleNamespace

from psycopg import sql

__all__ = ["STATEMENTS", "render"]

STATEMENTS = {
    "SELECT": (
        "SELECT c.ns, c.key, c.expires_at, c.encoding, c.value FROM {entries} AS c"
        " JOIN unnest(%s::text[], %s::text[]) AS k(ns, key) ON c.ns = k.ns AND c.key = k.key"
    ),
    "DELETE_EXPIRED": "DELETE FROM {entries} WHERE ns = %s AND key = %s AND expires_at <= %s",
    "UPSERT": (
        "INSERT INTO {entries} (ns, key, expires_at, encoding, value) VALUES (%s, %s, %s, %s, %s)"
        " ON CONFLICT (ns, key) DO UPDATE SET expires_at = excluded.expires_at, encoding = excluded.encoding,"
        " value = excluded.value"
    ),
    "CLEAR_ALL": "DELETE FROM {entries}",
    "CLEAR_NS": "DELETE FROM {entries} WHERE ns = ANY(%s::text[])",
    "SWEEP": "DELETE FROM {entries} WHERE expires_at <= %s",
}


def render(schema: str | None) -> SimpleNamespace:
    """The statements for the table in ``schema`` (None: found through ``search_path``), as attributes."""
    entries = sql.Identifier(schema, "cache_entries") if schema else sql.Identifier("cache_entries")
    return SimpleNamespace(**{k: sql.SQL(v).format(entries=entries).as_string(None) for k, v in STATEMENTS.items()})
