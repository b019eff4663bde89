"""The SQL caches against hostile namespaces, keys and rows.

Labels and keys that look like SQL, patterns, separators or encodings are
data: each addresses exactly one entry (statements are fixed text with bound
parameters; namespaces and keys are stored as JSON text, so NUL, lone
surrogates and ``,`` need no refusing and join nothing). A row changed
behind the cache's back is a miss, never code run: the serializer never
imports or calls what stored bytes name.
"""

from __future__ import annotations

import asyncio
import pickle
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from engine.cache._sql import SqlCache, encode_key, encode_ns
from engine.cache.postgres import PostgresCache
from engine.cache.sqlite import SqliteCache
from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg

HOSTILE = [
    "%", "_", "*", "?", "%s", "$1", "'", '"', "\\", "' OR '1'='1", "x'); DROP TABLE cache_entries; --", ",", "a,b",
    "[", '["a"]', "\x00", "\x01", "\ud800", "é", "",
]  # fmt: skip


@pytest.fixture(params=["sqlite", "postgres"])
def sql_cache(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "sqlite":
        cache: SqlCache = SqliteCache(path=tmp_path / "c.db")
        yield cache, lambda: sqlite3.connect(tmp_path / "c.db"), "cache_entries"
        cache.close()
        return
    dsn = require_pg()
    name = new_schema_name()
    cache = PostgresCache.from_dsn(dsn, schema=name)
    try:
        yield cache, lambda: psycopg.connect(dsn, autocommit=True), sql.Identifier(name, "cache_entries").as_string(None)
    finally:
        cache.close()
        drop_schema(name)


def test_hostile_labels_and_keys_address_one_entry(sql_cache: Any) -> None:
    cache, connect, table = sql_cache
    entries = {((label,), label): label for label in HOSTILE}
    entries |= {(("t", label), "k"): f"t/{label}" for label in HOSTILE}
    entries |= {(("t",), label): f"key {label}" for label in HOSTILE}
    cache.set({full: (value, None) for full, value in entries.items()})
    assert cache.get(list(entries)) == entries
    assert cache.get([(("t", "a", "b"), "k"), (("a", "b"), "a,b"), ((), ""), (("t",), "k")]) == {}
    cache.clear([("t", label) for label in HOSTILE])
    left = {full: v for full, v in entries.items() if not (len(full[0]) == 2 and full[0][0] == "t")}
    assert len(left) == 2 * len(HOSTILE) and cache.get(list(entries)) == left
    with connect() as conn:  # the table is still there, holding exactly what is left
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 2 * len(HOSTILE)


def test_a_row_naming_pickle_or_code_is_a_miss_and_runs_nothing(sql_cache: Any, tmp_path: Path) -> None:
    cache, _, _ = sql_cache
    marker = tmp_path / "pwned"

    class Boom:
        def __reduce__(self) -> Any:
            return (Path.touch, (marker,))

    ns = ("__pregel_ns_writes", "m.f", "n")
    rows = [
        (encode_ns(ns), encode_key("pickle"), None, "pickle", pickle.dumps(Boom())),
        (encode_ns(ns), encode_key("ext"), None, "msgpack", b"\xc7\x10\x05" + b"os.system:touch\x00"),
        (encode_ns(ns), encode_key("junk"), None, "", b""),
    ]
    asyncio.run(cache._upsert(rows, None))
    assert cache.get([(ns, "pickle"), (ns, "ext"), (ns, "junk")]) == {}
    assert not marker.exists()
