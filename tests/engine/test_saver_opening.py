"""LangGraph's ways of opening its savers run unchanged (tests/sidebyside/saver_opening.py prints both).

``with SqliteSaver.from_conn_string(path)``, ``with
PostgresSaver.from_conn_string(uri)``, ``async with
AsyncSqliteSaver.from_conn_string(path)`` and ``async with
AsyncPostgresSaver.from_conn_string(uri)`` (from ``engine.checkpoint.sqlite.aio``
and ``engine.checkpoint.postgres.aio``, LangGraph's paths), each followed by
``setup()`` (awaited for the async ones), give savers a graph runs on, whose
versions a later opening reads back.
"""

from __future__ import annotations

import asyncio
import operator
import sqlite3
import uuid
from typing import Annotated, Any, Iterator, TypedDict

import psycopg
import pytest

from engine.checkpoint.postgres import PostgresSaver
from engine.checkpoint.postgres.aio import AsyncPostgresSaver
from engine.checkpoint.sqlite import SqliteSaver
from engine.checkpoint.sqlite.aio import AsyncSqliteSaver
from engine.graph import START, StateGraph

CFG = {"configurable": {"thread_id": "t"}}


class S(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def _graph(saver: Any) -> Any:
    return StateGraph(S).add_node("inc", lambda s: {"n": s["n"] + 1, "log": ["inc"]}).add_edge(START, "inc").compile(
        checkpointer=saver
    )


@pytest.fixture(scope="module")
def database(pg_dsn: str) -> Iterator[str]:
    """A database of its own: LangGraph's programs open savers on a database's default schema."""
    name = f"gw_open_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield pg_dsn.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def test_sync_savers_from_conn_string(tmp_path: Any, database: str) -> None:
    for opening in (lambda: SqliteSaver.from_conn_string(str(tmp_path / "a.db")), lambda: PostgresSaver.from_conn_string(database)):
        with opening() as saver:
            saver.setup()
            assert _graph(saver).invoke({"n": 1, "log": []}, CFG) == {"n": 2, "log": ["inc"]}
        with opening() as saver:  # a new opening reads what the first stored
            assert _graph(saver).invoke({"n": 5}, CFG) == {"n": 6, "log": ["inc", "inc"]}
            assert [s.metadata["step"] for s in _graph(saver).get_state_history(CFG)] == [4, 3, 2, 1, 0, -1]


def test_async_savers_from_conn_string(tmp_path: Any, database: str) -> None:
    cfg = {"configurable": {"thread_id": "async"}}

    async def run(opening: Any) -> list:
        async with opening() as saver:
            await saver.setup()
            g = _graph(saver)
            await g.ainvoke({"n": 1, "log": []}, cfg)
            out = [c async for c in g.astream({"n": 10}, cfg, stream_mode="updates")]
            steps = [t.metadata["step"] async for t in saver.alist(cfg)]
            return [out, (await g.aget_state(cfg)).values, steps]

    for opening in (
        lambda: AsyncSqliteSaver.from_conn_string(str(tmp_path / "b.db")),
        lambda: AsyncPostgresSaver.from_conn_string(database),
    ):
        assert asyncio.run(run(opening)) == [
            [{"inc": {"n": 11, "log": ["inc"]}}], {"n": 11, "log": ["inc", "inc"]}, [4, 3, 2, 1, 0, -1]
        ]


def test_the_async_sqlite_saver_takes_a_sqlite3_connection(tmp_path: Any) -> None:
    # (psycopg's pipeline mode, refused here before, is LangGraph's opening now: tests/checkpoint/test_postgres_openings.py)
    conn = sqlite3.connect(str(tmp_path / "d.db"), check_same_thread=False)
    saver = AsyncSqliteSaver(conn)  # a sqlite3 connection is taken, as by SqliteSaver
    assert _graph(saver).invoke({"n": 1, "log": []}, CFG) == {"n": 2, "log": ["inc"]}
    saver.close()
    conn.close()


def test_an_aiosqlite_connection_is_refused(tmp_path: Any) -> None:
    aiosqlite = pytest.importorskip("aiosqlite")  # LangGraph's sqlite saver needs it; the engine does not
    with pytest.raises(NotImplementedError, match="aiosqlite"):
        AsyncSqliteSaver(aiosqlite.connect(str(tmp_path / "c.db")))
