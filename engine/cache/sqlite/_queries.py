"""Every SQL statement the SQLite cache runs, by name: fixed text, ``?`` parameters."""

from __future__ import annotations

__all__ = ["CLEAR_ALL", "CLEAR_NS", "DELETE_EXPIRED", "SELECT", "SWEEP", "UPSERT"]

SELECT = "SELECT ns, key, expires_at, encoding, value FROM cache_entries WHERE ns = ? AND key = ?"
DELETE_EXPIRED = "DELETE FROM cache_entries WHERE ns = ? AND key = ? AND expires_at <= ?"
UPSERT = (
    "INSERT INTO cache_entries (ns, key, expires_at, encoding, value) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (ns, key) DO UPDATE SET expires_at = excluded.expires_at, encoding = excluded.encoding,"
    " value = excluded.value"
)
CLEAR_ALL = "DELETE FROM cache_entries"
CLEAR_NS = "DELETE FROM cache_entries WHERE ns = ?"
SWEEP = "DELETE FROM cache_entries WHERE expires_at <= ?"
