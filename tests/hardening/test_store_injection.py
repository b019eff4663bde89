"""The SQL stores against hostile input and hostile rows.

Labels, keys and filter keys that look like SQL or patterns are data: they
address exactly one namespace or key. A row changed behind the store's back
fails as a StoreError naming the item, never as a wrong answer.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from engine.errors import StoreError
from engine.store.postgres import PostgresStore
from engine.store.sqlite import SqliteStore
from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg

HOSTILE = ["%", "_", "*", "?", "[a]", "\\", "'", "' OR '1'='1", "x'); DROP TABLE store_items; --", "\x01", "\x02", "\x02\x02"]


@pytest.fixture(params=["sqlite", "postgres"])
def sql_store(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        store = SqliteStore(tmp_path / "s.db")
        yield store
        store.close()
        return
    dsn = require_pg()
    name = new_schema_name()
    store = PostgresStore.from_dsn(dsn, schema=name)
    try:
        yield store
    finally:
        store.close()
        drop_schema(name)


def test_hostile_labels_and_keys_address_one_item(sql_store) -> None:  # type: ignore[no-untyped-def]
    for label in HOSTILE:
        sql_store.put(("t", label), label, {"v": label})
        sql_store.put(("t", label, "child"), label, {"v": "child"})
    sql_store.put(("t", "plain"), "k", {"v": "plain"})
    for label in HOSTILE:
        assert [i.key for i in sql_store.search(("t", label))] == [label, label]
        assert sql_store.get(("t", label), label).value == {"v": label}
        assert sql_store.get(("t", label), "k") is None
        if label != "*":  # "*" is list_namespaces' wildcard, by LangGraph's design
            assert sql_store.list_namespaces(prefix=("t", label)) == [("t", label), ("t", label, "child")]
    assert len(sql_store.search(("t",), limit=1000)) == 2 * len(HOSTILE) + 1
    for label in HOSTILE:
        sql_store.delete(("t", label), label)
    assert sql_store.list_namespaces(prefix=("t",), max_depth=2) == sorted({("t", x) for x in HOSTILE} | {("t", "plain")})


def test_hostile_filter_keys_are_data(sql_store) -> None:  # type: ignore[no-untyped-def]
    sql_store.put(("n",), "k", {"a": 1})
    for key in HOSTILE + ["$.a", "a') OR 1=1 --"]:
        assert sql_store.search(("n",), filter={key: 1}) == []


def _corrupt(sql_store, value: str) -> None:  # type: ignore[no-untyped-def]
    if isinstance(sql_store, SqliteStore):
        conn = sqlite3.connect(sql_store._conn.execute("PRAGMA database_list").fetchone()[2])
        conn.execute("UPDATE store_items SET value = ?", (value,))
        conn.commit()
        return
    with psycopg.connect(sql_store._dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("UPDATE {} SET value = %s").format(sql.Identifier(sql_store.schema, "store_items")), (value,))


@pytest.mark.parametrize("stored", ["not json", "[1, 2]", '{"a": 1'])
def test_a_row_that_does_not_decode_is_a_store_error_naming_the_item(sql_store, stored: str) -> None:  # type: ignore[no-untyped-def]
    sql_store.put(("users", "u1"), "prefs", {"a": 1})
    _corrupt(sql_store, stored)
    with pytest.raises(StoreError, match=r"\('users', 'u1'\)/'prefs'"):
        sql_store.get(("users", "u1"), "prefs")
    with pytest.raises(StoreError):
        sql_store.search(("users",))
