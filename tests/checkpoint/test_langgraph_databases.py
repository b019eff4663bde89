"""What a LangGraph program meets opening graphwire's SQL savers and stores in LangGraph's ways
(langgraph-checkpoint-postgres's own suite: ``bench/langgraph_suite.py --suites
langgraph-checkpoint-postgres``): a database or SQLite file LangGraph's own saver or store used
(refused by name, left as it was), a schema named only in the connection's ``search_path``, the
deprecated shallow savers, ``MIGRATIONS``, and NUL characters in a version's metadata (every
saver, as LangGraph's base drops them).
"""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from engine.checkpoint import BaseCheckpointSaver, SqliteSaver
from engine.checkpoint.postgres import PostgresSaver, ShallowPostgresSaver
from engine.checkpoint.postgres.aio import AsyncShallowPostgresSaver
from engine.errors import CheckpointError, SerializationError, StoreError
from engine.store.postgres import PostgresStore
from engine.store.sqlite import SqliteStore
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg
from tests.checkpoint._util import make_cp


@pytest.fixture
def schema() -> Iterator[str]:
    require_pg()
    name = new_schema_name()
    try:
        yield name
    finally:
        drop_schema(name)


def _cfg(thread: str = "t") -> dict:
    return {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}


def _langgraphs_tables(schema: str) -> None:
    """What LangGraph's PostgresSaver and PostgresStore setup() leave (their bookkeeping, one table each)."""
    with psycopg.connect(DSN, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        for table, column in (("checkpoint_migrations", "v"), ("store_migrations", "v"), ("checkpoints", "thread_id"), ("store", "prefix")):
            conn.execute(sql.SQL("CREATE TABLE {} ({} text)").format(sql.Identifier(schema, table), sql.Identifier(column)))


def test_a_schema_langgraphs_own_saver_and_store_used_is_refused_by_name_and_left_as_it_was(schema: str) -> None:
    _langgraphs_tables(schema)
    with pytest.raises(CheckpointError, match=f"schema '{schema}' holds LangGraph's own checkpoint tables .*schema of its own"):
        PostgresSaver(DSN, schema=schema).setup()
    with pytest.raises(StoreError, match=f"schema '{schema}' holds LangGraph's own store tables"):
        PostgresStore(DSN, schema=schema).setup()
    with psycopg.connect(DSN) as conn:
        tables = conn.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,)).fetchall()
    assert sorted(t for (t,) in tables) == ["checkpoint_migrations", "checkpoints", "store", "store_migrations"]


def test_a_sqlite_file_langgraphs_own_saver_and_store_used_is_refused_by_name_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "langgraph.sqlite"
    with sqlite3.connect(path) as conn:  # the tables LangGraph's SqliteSaver and SqliteStore setup() make, in short
        conn.executescript(
            "CREATE TABLE checkpoints (thread_id TEXT, checkpoint BLOB, metadata BLOB);"
            "CREATE TABLE writes (thread_id TEXT, value BLOB);"
            "CREATE TABLE store_migrations (v INTEGER PRIMARY KEY); CREATE TABLE store (prefix TEXT, key TEXT, value TEXT);"
        )
    with pytest.raises(CheckpointError, match="file holds LangGraph's own checkpoint tables .checkpoints, writes.*a file of its own"):
        SqliteSaver(path).get_tuple(_cfg())
    with pytest.raises(StoreError, match="file holds LangGraph's own store tables .store, store_migrations."):
        SqliteStore(path).get(("a",), "k")
    with sqlite3.connect(path) as conn:
        names = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
        assert [n for (n,) in names] == ["checkpoints", "store", "store_migrations", "writes"]
        assert conn.execute("PRAGMA user_version").fetchone() == (0,)


def test_a_schema_named_only_by_the_connections_search_path_is_made_and_used(schema: str) -> None:
    dsn = f"{DSN}{'&' if '?' in DSN else '?'}options=-csearch_path%3D{schema}"
    with PostgresSaver.from_conn_string(dsn) as saver:
        saver.setup()
        saver.put(_cfg(), make_cp({"a": 1}), {"source": "loop", "step": 0}, {"a": 1})
        got = saver.get_tuple(_cfg())
        assert got is not None and got.checkpoint["channel_values"] == {"a": 1}
    with psycopg.connect(DSN) as conn:
        (count,) = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(schema, "checkpoints"))).fetchone()  # type: ignore[misc]
    assert count == 1


def _three_versions(saver: BaseCheckpointSaver, ns: str = "") -> dict:
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": ns}}
    for step in range(3):
        config = saver.put(config, make_cp({"a": step}, step + 1), {"source": "loop", "step": step}, {"a": step + 1})
        saver.put_writes(config, [("a", step * 10)], f"task{step}")
    return config


def test_the_shallow_savers_keep_each_namespaces_newest_version_with_its_writes(schema: str) -> None:
    with pytest.warns(DeprecationWarning, match="ShallowPostgresSaver is deprecated"):
        saver = ShallowPostgresSaver(DSN, schema=schema)
    saver.setup()
    newest = _three_versions(saver)
    child = _three_versions(saver, ns="sub:1")
    listed = list(saver.list({"configurable": {"thread_id": "t"}}))
    assert sorted(t.config["configurable"]["checkpoint_id"] for t in listed) == sorted(
        c["configurable"]["checkpoint_id"] for c in (newest, child)
    )
    got = saver.get_tuple(_cfg())
    assert got is not None and got.checkpoint["channel_values"] == {"a": 2}
    assert [tuple(w) for w in got.pending_writes] == [("task2", "a", 20)]
    saver.close()

    async def go() -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            shallow = AsyncShallowPostgresSaver(DSN, schema=schema)
        assert [w.category for w in caught] == [DeprecationWarning]
        config = _cfg("a")
        for step in range(2):
            config = await shallow.aput(config, make_cp({"a": step}, step + 1), {"source": "loop", "step": step}, {"a": step + 1})
        assert [t.checkpoint["channel_values"] async for t in shallow.alist(_cfg("a"))] == [{"a": 1}]
        await shallow.aclose()

    asyncio.run(go())


def test_a_graph_on_a_shallow_saver_keeps_one_version_however_the_engine_writes_its_steps(schema: str) -> None:
    from typing import TypedDict

    from engine.graph import START, StateGraph

    class S(TypedDict):
        n: int

    g = StateGraph(S)
    g.add_node("a", lambda s: {"n": s["n"] + 1})
    g.add_node("b", lambda s: {"n": s["n"] * 10})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    with pytest.warns(DeprecationWarning):
        saver = ShallowPostgresSaver(DSN, schema=schema)
    graph, config = g.compile(checkpointer=saver), _cfg("g")
    for durability in ("async", "sync", "exit"):  # a version a step, or the run's versions in one batch at its end
        assert graph.invoke({"n": 1}, config, durability=durability) == {"n": 20}
        assert [h.values for h in graph.get_state_history(config)] == [{"n": 20}]
    saver.close()


def test_migrations_are_there_to_read_and_refused_when_changed() -> None:
    for cls in (PostgresSaver, PostgresStore, SqliteStore):
        assert cls.MIGRATIONS and all(isinstance(m, str) and m.split() for m in cls.MIGRATIONS)
    store = PostgresStore.__new__(PostgresStore)
    store.MIGRATIONS = [m.replace("ttl_minutes INT;", "ttl_minutes FLOAT;") for m in store.MIGRATIONS]  # as LangGraph's suite does
    with pytest.raises(NotImplementedError, match="MIGRATIONS cannot be changed: graphwire migrates its own schema"):
        store.MIGRATIONS = [*PostgresStore.MIGRATIONS, "ALTER TABLE store_items ADD COLUMN x int"]
    assert len(store.MIGRATIONS) == len(PostgresStore.MIGRATIONS)


def test_nul_characters_in_a_versions_top_level_metadata_text_are_dropped(saver: BaseCheckpointSaver) -> None:
    # LangGraph's savers drop them (get_checkpoint_metadata); PostgreSQL's jsonb cannot hold one.
    stored = saver.put(_cfg(), make_cp({}), {"source": "loop", "step": 0, "my_key": "\x00ab\x00c"}, {})
    got = saver.get_tuple(stored)
    assert got is not None and got.metadata["my_key"] == "abc"
    assert [t.metadata["my_key"] for t in saver.list(None, filter={"my_key": "abc"})] == ["abc"]
    for bad in ({"k": ["ok", {"deep": "a\x00b"}]}, {"a\x00b": 1}):  # nested text, and keys, are still refused
        with pytest.raises(SerializationError, match="metadata"):
            saver.put(_cfg(str(uuid.uuid4())), make_cp({}), bad, {})
