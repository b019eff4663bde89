"""LangGraph's ways of opening the SQL stores and its async stores' TTL methods, on graphwire's stores.

A program written for LangGraph opens ``with SqliteStore.from_conn_string(path) as store:
store.setup()`` and ``async with AsyncSqliteStore.from_conn_string(path) as store:``
(neither existed: AttributeError, ImportError), and awaits an async store's
``sweep_ttl()``, ``start_ttl_sweeper()`` and ``stop_ttl_sweeper()`` (sync on
the engine: "object int can't be used in 'await' expression"). langgraph-checkpoint-sqlite's
own tests use all of them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine.store.postgres import AsyncPostgresStore
from engine.store.sqlite import AsyncSqliteStore, SqliteStore
from tests.store.conftest import Clock


def test_the_sqlite_store_opens_as_langgraphs_does(tmp_path: Path) -> None:
    path = str(tmp_path / "store.db")
    with SqliteStore.from_conn_string(path) as store:
        store.setup()
        store.put(("docs",), "a", {"text": "kept"})
    with SqliteStore.from_conn_string(path) as again:  # the first was closed, its item stored
        item = again.get(("docs",), "a")
        assert item is not None and item.value == {"text": "kept"}


def test_the_async_sqlite_store_opens_and_refuses_what_it_cannot_honour(tmp_path: Path) -> None:
    async def main() -> dict[str, object] | None:
        async with AsyncSqliteStore.from_conn_string(str(tmp_path / "store.db")) as store:
            await store.setup()
            await store.aput(("docs",), "a", {"text": "async"})
            item = await store.aget(("docs",), "a")
            return None if item is None else item.value

    assert asyncio.run(main()) == {"text": "async"}
    with pytest.raises(NotImplementedError, match="deserializer"):
        AsyncSqliteStore(str(tmp_path / "other.db"), deserializer=lambda b: {})


async def _ttl_faces(store: AsyncSqliteStore | AsyncPostgresStore, clock: Clock) -> tuple[int, bool, bool]:
    store._now = clock  # type: ignore[attr-defined]
    await store.aput(("ttl",), "old", {"v": 1})
    clock.advance(5)
    swept = await store.sweep_ttl()
    done = await store.start_ttl_sweeper(60)
    stopped = await store.stop_ttl_sweeper(30)
    await asyncio.wait_for(done, 30)
    return swept, stopped, done.done()


def test_an_async_sqlite_stores_ttl_methods_are_awaited(tmp_path: Path, clock: Clock) -> None:
    async def main() -> tuple[int, bool, bool]:
        async with AsyncSqliteStore.from_conn_string(str(tmp_path / "s.db"), ttl={"default_ttl": 1}) as store:
            return await _ttl_faces(store, clock)

    assert asyncio.run(main()) == (1, True, True)


def test_an_async_postgres_stores_ttl_methods_are_awaited(pg_dsn: str, store_schema: str, clock: Clock) -> None:
    async def main() -> tuple[int, bool, bool]:
        store = AsyncPostgresStore.from_dsn(pg_dsn, schema=store_schema, ttl={"default_ttl": 1})
        try:
            return await _ttl_faces(store, clock)
        finally:
            await store.aclose()

    assert asyncio.run(main()) == (1, True, True)
