"""The stores' tables: numbered migrations that end where a fresh install does, in the savers' databases."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from engine.checkpoint import SqliteSaver
from engine.checkpoint.postgres import PostgresSaver
from engine._sql.sqlite import run_script
from engine.errors import StoreError
from engine.store.postgres import PostgresStore
from engine.store.postgres._store import STORE_TABLES
from engine.store.sqlite import SqliteStore
from engine.store.sqlite import _migrate as sqlite_migrate
from tests.checkpoint._pg import drop_schema, new_schema_name
from tests.checkpoint.test_postgres import catalog
from tests.checkpoint.test_sqlite import schema_of


def test_sqlite_migrations_equal_the_fresh_schema(tmp_path: Path) -> None:
    fresh, migrated = sqlite3.connect(tmp_path / "f.db", isolation_level=None), sqlite3.connect(tmp_path / "m.db", isolation_level=None)
    for conn, scripts in ((fresh, [sqlite_migrate.fresh_schema()]), (migrated, [t for _, t in sqlite_migrate.migrations()])):
        conn.execute(sqlite_migrate._CREATE)
        for text in scripts:
            run_script(conn, text)
    want = schema_of(fresh)
    assert want["store_items"]["columns"] and want["store_vectors"]["columns"]
    assert schema_of(migrated) == want
    SqliteStore(tmp_path / "o.db").close()
    opened = sqlite3.connect(tmp_path / "o.db")
    assert schema_of(opened) == want
    assert opened.execute("SELECT version FROM store_migrations").fetchall() == [(n,) for n, _ in sqlite_migrate.migrations()]


def test_sqlite_store_and_saver_share_a_file_in_either_order(tmp_path: Path) -> None:
    for first, second in ((SqliteSaver, SqliteStore), (SqliteStore, SqliteSaver)):
        path = tmp_path / f"{first.__name__}.db"
        first(path).close()
        second(path).close()
        store, saver = SqliteStore(path), SqliteSaver(path)
        store.put(("n",), "k", {"v": 1})
        assert SqliteStore(path).get(("n",), "k").value == {"v": 1}  # type: ignore[union-attr]
        assert list(saver.list(None)) == []
        store.close()
        saver.close()


def test_sqlite_tables_from_a_newer_graphwire_are_refused(tmp_path: Path) -> None:
    SqliteStore(tmp_path / "s.db").close()
    conn = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    conn.execute("INSERT INTO store_migrations (version) VALUES (99)")
    with pytest.raises(StoreError, match="newer"):
        SqliteStore(tmp_path / "s.db")


def test_postgres_migrations_equal_the_fresh_schema(pg_dsn: str, pg_admin: psycopg.Connection[Any]) -> None:
    fresh, migrated, beside = new_schema_name(), new_schema_name(), new_schema_name()
    try:
        for name, scripts in ((fresh, [STORE_TABLES.fresh_schema()]), (migrated, [t for _, t in STORE_TABLES.migrations()])):
            with pg_admin.transaction():
                pg_admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
                pg_admin.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(name)))
                pg_admin.execute("CREATE TABLE store_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
                for text in scripts:
                    pg_admin.execute(text)
                for number, _ in STORE_TABLES.migrations():
                    pg_admin.execute("INSERT INTO store_migrations (version) VALUES (%s)", (number,))
        want = catalog(pg_admin, fresh, "store_migrations")
        assert want["columns"] and want["indexes"] and want["versions"]
        assert catalog(pg_admin, migrated, "store_migrations") == want
        # In the saver's schema, after the saver: the store's tables are the same, the saver's untouched.
        PostgresSaver.from_dsn(pg_dsn, schema=beside).close()
        saver_only = catalog(pg_admin, beside)
        PostgresStore.from_dsn(pg_dsn, schema=beside).close()
        both = catalog(pg_admin, beside, "store_migrations")
        store_part = {k: [r for r in v if r not in saver_only[k]] for k, v in both.items() if k != "versions"}
        assert store_part == {k: v for k, v in want.items() if k != "versions"}
        assert both["versions"] == want["versions"]
        assert catalog(pg_admin, beside)["versions"] == saver_only["versions"]
    finally:
        for name in (fresh, migrated, beside):
            drop_schema(name)
