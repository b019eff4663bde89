"""What the SQL caches do beyond the contract: where their SQL runs, and expired rows that are never read again."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from engine.cache._sql import SqlCache, encode_key, encode_ns
from engine.cache.postgres import PostgresCache
from engine.cache.sqlite import SqliteCache
from tests.cache.conftest import Clock, count_rows
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name

NS = ("__pregel_ns_writes", "m.f", "n")


def test_the_sqlite_cache_writes_only_on_its_worker_and_looks_up_in_place(tmp_path: Path) -> None:
    """Every write (a set, an expired row's delete, a sweep, a clear) from an event loop runs on the
    cache's worker, which may wait for the file; only lookups run on the loop's thread
    (tests/cache/test_sqlite_in_place.py: when, and the sync face)."""
    cache = SqliteCache(path=tmp_path / "c.db")
    statements: list[tuple[str, str]] = []
    assert cache._conn is not None
    cache._conn.set_trace_callback(lambda sql: statements.append((sql.split()[0].upper(), threading.current_thread().name)))

    async def go() -> str:
        await cache.aset({(NS, "k"): (1, 5)})
        assert await cache.aget([(NS, "k"), (NS, "j")]) == {(NS, "k"): 1}
        cache._now = lambda: 10**10  # type: ignore[method-assign]
        assert await cache.aget([(NS, "k")]) == {}  # the expired row's delete too
        await cache.asweep()
        await cache.aclear([NS])
        await cache.aclear()
        return threading.current_thread().name

    loop_thread = asyncio.run(go())
    cache.close()
    writes = {thread for word, thread in statements if word not in ("SELECT", "PRAGMA")}  # (PRAGMA: the busy timeout set)
    assert len(statements) >= 8 and {word for word, _ in statements} >= {"SELECT", "INSERT", "DELETE", "BEGIN", "COMMIT"}
    assert len(writes) == 1 and next(iter(writes)).startswith("graphwire-sqlite-cache"), statements
    assert {thread for word, thread in statements if word == "SELECT"} == {loop_thread}, statements


@pytest.fixture(params=["sqlite", "postgres"])
def sql_cache(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A SQL cache on the test's clock, and a function counting its rows."""
    clock = Clock()
    if request.param == "sqlite":
        path = tmp_path / "c.db"
        cache: SqlCache = SqliteCache(path=path)

        def rows() -> int:
            with sqlite3.connect(path) as conn:
                return count_rows(conn, "cache_entries")
    else:
        request.getfixturevalue("pg_dsn")
        schema = new_schema_name()
        cache = PostgresCache.from_dsn(DSN, schema=schema, max_size=2)
        request.addfinalizer(lambda: drop_schema(schema))

        def rows() -> int:
            with psycopg.connect(DSN) as conn:
                return count_rows(conn, sql.Identifier(schema, "cache_entries"))

    cache._now = clock  # type: ignore[method-assign]
    yield cache, clock, rows
    cache.close()


def test_expired_rows_never_read_again_are_deleted_by_a_later_write(sql_cache: Any) -> None:
    cache, clock, rows = sql_cache
    cache.set({(NS, f"k{i}"): (i, 10) for i in range(5)})  # the first write of a cache sweeps (nothing yet)
    cache.set({(NS, "forever"): ("f", None)})
    clock.advance(60)
    cache.set({(NS, "new"): ("n", 10)})
    assert rows() == 7  # expired, but the last sweep was under sweep_seconds ago
    clock.advance(cache.sweep_seconds)
    cache.set({(NS, "newer"): ("n", 10**6)})
    assert rows() == 2  # forever and newer: the write swept the expired ones
    assert cache.get([(NS, "forever"), (NS, "newer")]) == {(NS, "forever"): "f", (NS, "newer"): "n"}


def test_sweep_deletes_what_expired_and_counts_it(sql_cache: Any) -> None:
    cache, clock, rows = sql_cache
    cache.set({(NS, "a"): (1, 5), (NS, "b"): (2, 50), (NS, "c"): (3, None)})
    clock.advance(5)
    assert cache.sweep() == 1
    clock.advance(100)
    assert cache.sweep() == 1
    assert rows() == 1


def test_a_stale_readers_delete_spares_an_entry_written_again(sql_cache: Any) -> None:
    """A read that found the entry expired deletes it only if it still is: another replica may have just set it."""
    cache, clock, _ = sql_cache
    cache.set({(NS, "k"): ("old", 1)})
    clock.advance(2)
    cache.set({(NS, "k"): ("new", 100)})  # rewritten between the stale read and its delete
    asyncio.run(cache._delete_expired([(encode_ns(NS), encode_key("k"))], clock.now))
    assert cache.get([(NS, "k")]) == {(NS, "k"): "new"}


def test_a_row_that_does_not_decode_is_a_logged_miss(sql_cache: Any, caplog: pytest.LogCaptureFixture) -> None:
    cache, _, _ = sql_cache
    cache.set({(NS, "k"): ("fine", None), (NS, "j"): ("fine too", None)})
    asyncio.run(cache._upsert([(encode_ns(NS), encode_key("k"), None, "msgpack", b"\xc1\xc1")], None))
    assert cache.get([(NS, "k"), (NS, "j")]) == {(NS, "j"): "fine too"}
    assert "does not decode" in caplog.text
    cache.set({(NS, "k"): ("replaced", None)})
    assert cache.get([(NS, "k")]) == {(NS, "k"): "replaced"}
