"""The caches' tables: numbered migrations that end where a fresh install does, beside the saver's and the store's."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from engine.cache.postgres import PostgresCache
from engine.cache.postgres._cache import CACHE_TABLES
from engine.cache.sqlite import SqliteCache
from engine.cache.sqlite import _migrate as sqlite_migrate
from engine.checkpoint import SqliteSaver
from engine.checkpoint.postgres import PostgresSaver
from engine._sql.sqlite import run_script
from engine.errors import CacheError
from engine.store.sqlite import SqliteStore
from tests.checkpoint._pg import drop_schema, new_schema_name
from tests.checkpoint.test_postgres import catalog
from tests.checkpoint.test_sqlite import schema_of

NS = ("__pregel_ns_writes", "m.f", "n")


def test_sqlite_migrations_equal_the_fresh_schema(tmp_path: Path) -> None:
    fresh, migrated = sqlite3.connect(tmp_path / "f.db", isolation_level=None), sqlite3.connect(tmp_path / "m.db", isolation_level=None)
    for conn, scripts in ((fresh, [sqlite_migrate.fresh_schema()]), (migrated, [t for _, t in sqlite_migrate.migrations()])):
        conn.execute(sqlite_migrate._CREATE)
        for text in scripts:
            run_script(conn, text)
    want = schema_of(fresh)
    assert want["cache_entries"]["columns"] and want["cache_entries"]["indexes"]
    assert schema_of(migrated) == want
    SqliteCache(path=tmp_path / "o.db").close()
    opened = sqlite3.connect(tmp_path / "o.db")
    assert schema_of(opened) == want
    assert opened.execute("SELECT version FROM cache_migrations").fetchall() == [(n,) for n, _ in sqlite_migrate.migrations()]


def test_sqlite_cache_saver_and_store_share_a_file_in_any_order(tmp_path: Path) -> None:
    kinds = {"saver": SqliteSaver, "store": SqliteStore, "cache": lambda p: SqliteCache(path=p)}
    for order in (("cache", "saver", "store"), ("saver", "store", "cache"), ("store", "cache", "saver")):
        path = tmp_path / ("-".join(order) + ".db")
        for kind in order:
            kinds[kind](path).close()  # type: ignore[operator]
        cache = SqliteCache(path=path)
        cache.set({(NS, "k"): ([("x", 1)], None)})
        cache.close()
        again = SqliteCache(path=path)
        assert again.get([(NS, "k")]) == {(NS, "k"): [("x", 1)]}
        again.close()
        saver = SqliteSaver(path)
        assert list(saver.list(None)) == []
        saver.close()
        conn = sqlite3.connect(path)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"cache_entries", "cache_migrations", "store_items", "checkpoints"} <= tables
        conn.close()


def test_sqlite_tables_from_a_newer_graphwire_are_refused(tmp_path: Path) -> None:
    SqliteCache(path=tmp_path / "c.db").close()
    conn = sqlite3.connect(tmp_path / "c.db", isolation_level=None)
    conn.execute("INSERT INTO cache_migrations (version) VALUES (99)")
    conn.close()
    with pytest.raises(CacheError, match="newer"):
        SqliteCache(path=tmp_path / "c.db")


def test_a_sqlite_file_that_cannot_be_opened_is_a_cache_error(tmp_path: Path) -> None:
    with pytest.raises(CacheError, match="cannot open"):
        SqliteCache(path=tmp_path / "no-such-dir" / "c.db")
    (tmp_path / "junk.db").write_bytes(b"not a database, " * 100)
    with pytest.raises(CacheError, match="cannot open"):
        SqliteCache(path=tmp_path / "junk.db")


def test_postgres_migrations_equal_the_fresh_schema(pg_dsn: str, pg_admin: psycopg.Connection[Any]) -> None:
    fresh, migrated, beside = new_schema_name(), new_schema_name(), new_schema_name()
    try:
        for name, scripts in ((fresh, [CACHE_TABLES.fresh_schema()]), (migrated, [t for _, t in CACHE_TABLES.migrations()])):
            with pg_admin.transaction():
                pg_admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
                pg_admin.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(name)))
                pg_admin.execute("CREATE TABLE cache_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
                for text in scripts:
                    pg_admin.execute(text)
                for number, _ in CACHE_TABLES.migrations():
                    pg_admin.execute("INSERT INTO cache_migrations (version) VALUES (%s)", (number,))
        want = catalog(pg_admin, fresh, "cache_migrations")
        assert want["columns"] and want["indexes"] and want["versions"]
        assert catalog(pg_admin, migrated, "cache_migrations") == want
        # In the saver's schema, after the saver: the cache's table is the same, the saver's untouched.
        PostgresSaver.from_dsn(pg_dsn, schema=beside).close()
        saver_only = catalog(pg_admin, beside)
        PostgresCache.from_dsn(pg_dsn, schema=beside).close()
        both = catalog(pg_admin, beside, "cache_migrations")
        cache_part = {k: [r for r in v if r not in saver_only[k]] for k, v in both.items() if k != "versions"}
        assert cache_part == {k: v for k, v in want.items() if k != "versions"}
        assert both["versions"] == want["versions"]
        assert catalog(pg_admin, beside)["versions"] == saver_only["versions"]
    finally:
        for name in (fresh, migrated, beside):
            drop_schema(name)


def test_postgres_tables_from_a_newer_graphwire_are_refused(pg_dsn: str, pg_admin: psycopg.Connection[Any]) -> None:
    name = new_schema_name()
    try:
        PostgresCache.from_dsn(pg_dsn, schema=name).close()
        pg_admin.execute(sql.SQL("INSERT INTO {} (version) VALUES (99)").format(sql.Identifier(name, "cache_migrations")))
        with pytest.raises(CacheError, match="newer"):
            PostgresCache.from_dsn(pg_dsn, schema=name)
    finally:
        drop_schema(name)


def test_postgres_bad_schema_names_and_unreachable_databases(pg_dsn: str) -> None:
    with pytest.raises(ValueError, match="PostgreSQL identifier"):
        PostgresCache(pg_dsn, schema="x; DROP TABLE y")
    with pytest.raises(CacheError, match="cannot open the cache's database"):
        PostgresCache.from_dsn("postgresql://root@127.0.0.1:1/test?connect_timeout=2")
