"""LangGraph's ways of opening the PostgreSQL saver and store, on graphwire's (issue 29 item 3).

LangGraph's programs and test suite open ``PostgresSaver`` / ``PostgresStore``
(and their async twins) with ``from_conn_string(..., pipeline=, pool_config=)``,
or hand them a psycopg connection or pool they made and close. Each way here
stores and reads back, and leaves nothing behind: every test runs in a
database of its own, dropped without FORCE after the block, which fails
while any session of the saver's is still open (LangGraph's suite does the
same). A connection the caller gave stays open and keeps its row factory.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, asynccontextmanager, contextmanager
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from engine.checkpoint.postgres import PostgresSaver
from engine.checkpoint.postgres.aio import AsyncPostgresSaver
from engine.store.postgres import AsyncPostgresStore, PostgresStore
from tests.checkpoint._pg import require_pg
from tests.checkpoint._util import make_cp


@pytest.fixture
def db() -> Iterator[str]:
    """The DSN of a new database, dropped (without FORCE) after the test."""
    base = require_pg()
    name = f"gw_open_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield base.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {name}")  # fails while a session of ours lingers


def _use(saver: PostgresSaver, thread: str = "t") -> None:
    config = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    stored = saver.put(config, make_cp({"messages": [1, 2]}), {"source": "loop", "step": 0}, {"messages": 1})
    saver.put_writes(stored, [("messages", [3])], "task")
    got = saver.get_tuple(config)
    assert got is not None and got.checkpoint["channel_values"] == {"messages": [1, 2]}
    assert [tuple(w) for w in got.pending_writes] == [("task", "messages", [3])]
    assert len(list(saver.list({"configurable": {"thread_id": thread}}))) == 1


@contextmanager
def _sync_opening(kind: str, dsn: str) -> Iterator[PostgresSaver]:
    if kind in ("from_conn_string", "pipeline"):
        with PostgresSaver.from_conn_string(dsn, pipeline=kind == "pipeline") as saver:
            yield saver
        return
    if kind == "connection":
        with psycopg.Connection.connect(dsn, autocommit=True, row_factory=dict_row) as conn:
            saver = PostgresSaver(conn)
            yield saver
            saver.close()
            assert not conn.closed and conn.row_factory is dict_row  # the caller's, as it was
            assert conn.execute("SELECT 1 AS one").fetchone() == {"one": 1}
        return
    with ConnectionPool(dsn, min_size=1, max_size=3, kwargs={"autocommit": True}) as pool:
        saver = PostgresSaver(pool)
        yield saver
        saver.close()
        with pool.connection() as conn:  # still the caller's, open
            assert conn.execute("SELECT 1").fetchone() == (1,)


@pytest.mark.parametrize("kind", ["from_conn_string", "pipeline", "connection", "pool"])
def test_the_saver_opens_langgraphs_ways(db: str, kind: str) -> None:
    with _sync_opening(kind, db) as saver:
        saver.setup()
        _use(saver)
        if kind == "from_conn_string":  # LangGraph's suite: a pipeline of the saver's connection, set later
            with saver.conn.pipeline() as pipe:
                saver.pipe = pipe
                _use(saver, "t2")


@asynccontextmanager
async def _async_opening(kind: str, dsn: str) -> AsyncIterator[AsyncPostgresSaver]:
    if kind in ("from_conn_string", "pipeline"):
        async with AsyncPostgresSaver.from_conn_string(dsn, pipeline=kind == "pipeline") as saver:
            yield saver
        return
    if kind == "connection":
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            yield AsyncPostgresSaver(conn)  # not closed: LangGraph's saver has nothing to close
        return
    async with AsyncConnectionPool(dsn, min_size=1, max_size=3, kwargs={"autocommit": True}) as pool:
        yield AsyncPostgresSaver(pool)


@pytest.mark.parametrize("kind", ["from_conn_string", "pipeline", "connection", "pool"])
def test_the_async_saver_opens_langgraphs_ways_and_leaves_no_session(db: str, kind: str) -> None:
    async def main() -> None:
        async with _async_opening(kind, db) as saver:
            await saver.setup()
            await asyncio.to_thread(_use, saver)
            got = [t async for t in saver.alist({"configurable": {"thread_id": "t"}})]
            assert len(got) == 1

    asyncio.run(main())


def test_a_connection_not_in_autocommit_is_refused_saying_why(db: str) -> None:
    with psycopg.Connection.connect(db) as conn, pytest.raises(ValueError, match="must be in autocommit mode"):
        PostgresSaver(conn)
    with pytest.raises(TypeError, match="conn must be a connection string, or psycopg's"):
        PostgresSaver(42)


def _store_openings() -> list[Any]:
    return [
        pytest.param(lambda dsn: PostgresStore.from_conn_string(dsn), id="sync"),
        pytest.param(lambda dsn: PostgresStore.from_conn_string(dsn, pipeline=True), id="sync-pipeline"),
        pytest.param(lambda dsn: PostgresStore.from_conn_string(dsn, pool_config={"max_size": 3}), id="sync-pool"),
    ]


@pytest.mark.parametrize("open_store", _store_openings())
def test_the_store_opens_langgraphs_ways(db: str, open_store: Callable[[str], AbstractContextManager[PostgresStore]]) -> None:
    with PostgresStore.from_conn_string(db) as store:
        store.setup()  # LangGraph's suite sets up outside the pipeline
    with open_store(db) as store:
        store.put(("users", "1"), "a", {"n": 1})
        store.put(("users", "2"), "b", {"n": 2})
        assert store.get(("users", "1"), "a").value == {"n": 1}  # type: ignore[union-attr]
        assert [i.key for i in store.search(("users",), filter={"n": 2})] == ["b"]
        assert store.list_namespaces(prefix=("users",)) == [("users", "1"), ("users", "2")]


@pytest.mark.parametrize("options", [{}, {"pipeline": True}, {"pool_config": {"max_size": 3}}], ids=["plain", "pipeline", "pool"])
def test_the_async_store_opens_langgraphs_ways(db: str, options: dict[str, Any]) -> None:
    async def main() -> None:
        async with AsyncPostgresStore.from_conn_string(db) as store:
            await store.setup()
        async with AsyncPostgresStore.from_conn_string(db, **options) as store:
            await store.aput(("users",), "a", {"n": 1})
            assert (await store.aget(("users",), "a")).value == {"n": 1}  # type: ignore[union-attr]
            assert [i.key for i in await store.asearch(("users",))] == ["a"]

    asyncio.run(main())


def test_a_store_deserializer_is_refused_not_ignored(db: str) -> None:
    with pytest.raises(NotImplementedError, match="deserializer"):
        PostgresStore(db, deserializer=lambda b: {})
