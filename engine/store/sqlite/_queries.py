"""Every SQL statement the SQLite store runs, by name: fixed text, ``?`` parameters.

Namespaces are matched exactly: ``ns = ?`` for one, and for a prefix the
exact text or the key range of its descendants (see
:mod:`engine.store._rows`), never a pattern. Reads that may hide expired
items take the current time twice (``? IS NULL`` switches the test off).
The order of a search is the in-memory store's: namespaces by their oldest
item, then items by when they were first written (the rowid, which a later
upsert keeps).
"""

from __future__ import annotations

__all__ = [
    "DELETE_ITEM",
    "DELETE_VECTORS",
    "GET",
    "INSERT_VECTOR",
    "NAMESPACES_ALL",
    "NAMESPACES_UNDER",
    "REFRESH",
    "SEARCH_ALL",
    "SEARCH_UNDER",
    "SWEEP_ITEMS",
    "SWEEP_VECTORS",
    "UPSERT",
    "VECTORS_ALL",
    "VECTORS_UNDER",
]

_COLUMNS = "ns, key, value, created_at, updated_at, ttl_minutes"
_LIVE = "(? IS NULL OR expires_at IS NULL OR expires_at > ?)"
_UNDER = "(ns = ? OR (ns >= ? AND ns < ?))"

GET = f"SELECT {_COLUMNS} FROM store_items WHERE ns = ? AND key = ? AND {_LIVE}"

_SEARCH = (
    f"SELECT {_COLUMNS} FROM (SELECT *, rowid AS seq, min(rowid) OVER (PARTITION BY ns) AS first"
    " FROM store_items WHERE {where}) ORDER BY first, seq"
)
SEARCH_ALL = _SEARCH.format(where=_LIVE)
SEARCH_UNDER = _SEARCH.format(where=f"{_UNDER} AND {_LIVE}")

VECTORS_ALL = "SELECT ns, key, vector FROM store_vectors"
VECTORS_UNDER = f"SELECT ns, key, vector FROM store_vectors WHERE {_UNDER}"

NAMESPACES_ALL = f"SELECT DISTINCT ns FROM store_items WHERE {_LIVE} ORDER BY ns"
NAMESPACES_UNDER = f"SELECT DISTINCT ns FROM store_items WHERE {_UNDER} AND {_LIVE} ORDER BY ns"

UPSERT = (
    "INSERT INTO store_items (ns, key, value, created_at, updated_at, ttl_minutes, expires_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value,"
    " updated_at = excluded.updated_at, ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at"
)
DELETE_ITEM = "DELETE FROM store_items WHERE ns = ? AND key = ?"
DELETE_VECTORS = "DELETE FROM store_vectors WHERE ns = ? AND key = ?"
INSERT_VECTOR = "INSERT INTO store_vectors (ns, key, field, vector) VALUES (?, ?, ?, ?)"

REFRESH = "UPDATE store_items SET expires_at = ? WHERE ns = ? AND key = ? AND ttl_minutes IS NOT NULL"
SWEEP_VECTORS = (
    "DELETE FROM store_vectors WHERE (ns, key) IN (SELECT ns, key FROM store_items WHERE expires_at <= ?)"
)
SWEEP_ITEMS = "DELETE FROM store_items WHERE expires_at <= ?"
