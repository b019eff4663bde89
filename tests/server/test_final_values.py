"""A run's final values are kept once, in the version they are (server/_final_values.py): its record and
event log hold no copy of the state, and GetRun, ListRuns, JoinRun and LangGraph's join read them back
as the live call got them. Values that are not a version's (a graph with an output schema) are kept
whole; a version pruned since leaves its run without values, as a state too large to send does."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TypedDict

from graphwire import AsyncClient, FinishReason

from engine.checkpoint import SqliteSaver
from engine.graph import END, START, StateGraph
from server._final_values import AT_VERSION
from server.app import Server, build_server
from server.config import ServerConfig
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg


class _Talk(TypedDict):
    said: list[str]
    turns: int


class _Said(TypedDict):
    said: list[str]


def _reply(state: _Talk) -> dict[str, Any]:
    return {"said": [*state.get("said", []), f"reply {state.get('turns', 0)} " + "x" * 300], "turns": state.get("turns", 0) + 1}


def _talk(output: type | None) -> Any:
    builder = StateGraph(_Talk, output_schema=output) if output is not None else StateGraph(_Talk)
    builder.add_node("reply", _reply)
    builder.add_edge(START, "reply")
    builder.add_edge("reply", END)
    return builder


talk = _talk(None)
said_only = _talk(_Said)  # its values are a part of the state: kept whole
GRAPHS = {"talk": f"{__name__}:talk", "said_only": f"{__name__}:said_only"}


@contextlib.asynccontextmanager
async def _serving(db: Path, saver: Any = None) -> AsyncIterator[Server]:
    saver = saver if saver is not None else SqliteSaver(str(db))
    srv = await build_server(ServerConfig(address="127.0.0.1:0", graphs=dict(GRAPHS)), checkpointer=saver)
    try:
        yield srv
    finally:
        await srv.stop(grace=5)


def _stored(db: Path) -> list[tuple[bytes, bytes]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT r.finished, e.data FROM runs r LEFT JOIN run_events e ON e.run_id = r.run_id AND e.seq = r.last_seq ORDER BY r.started_at"
        ).fetchall()
    conn.close()
    return rows


def test_a_run_s_record_keeps_no_copy_of_the_state_and_every_read_gets_it(tmp_path: Path, thread_id: str) -> None:
    db = tmp_path / "gw.db"

    async def body() -> None:
        async with _serving(db) as srv, AsyncClient(f"127.0.0.1:{srv.port}") as client:
            live = [await client.invoke("talk", thread_id, {"turns": n}) for n in range(3)]
            assert all(r.reason is FinishReason.END for r in live) and len(live[-1].values["said"]) == 3
            for finished, event in _stored(db):  # the record and the event log name the version instead
                assert AT_VERSION.encode() in finished and b"reply" not in finished
                assert event in (None, finished)  # the event log keeps the run's end only while its call is joinable
            for r in live:
                assert (await client.get_run(r.run_id)).values == r.values
                assert (await client.join_run(r.run_id).result()).values == r.values
            listed = await client.list_runs("talk", thread_id, include_values=True)
            assert [i.values for i in listed] == [r.values for r in reversed(live)]
            assert [i.values for i in await client.list_runs("talk", thread_id)] == [None] * 3  # a listing reads none
            # A version deleted under its run's record (by hand: pruning takes the runs with their versions):
            # the run is read without values, as one whose state was too large to send.
            gone = live[0].checkpoint.checkpoint_id
            with sqlite3.connect(db) as conn:
                conn.execute("DELETE FROM checkpoints WHERE checkpoint_id = ?", (gone,))
            conn.close()
            assert (await client.get_run(live[0].run_id)).values is None
            ended = await client.join_run(live[0].run_id).result()
            assert ended.reason is FinishReason.END and ended.values is None
            assert (await client.get_run(live[-1].run_id)).values == live[-1].values
            await client.threads.prune("talk", thread_id, keep_last=1)  # the older runs go with their versions
            assert [i.run_id for i in await client.list_runs("talk", thread_id, include_values=True)] == [live[-1].run_id]

    asyncio.run(body())


def test_values_that_are_no_version_s_are_kept_whole(tmp_path: Path, thread_id: str) -> None:
    db = tmp_path / "gw.db"

    async def body() -> None:
        async with _serving(db) as srv, AsyncClient(f"127.0.0.1:{srv.port}") as client:
            live = await client.invoke("said_only", thread_id, {"turns": 0})
            assert set(live.values) == {"said"}
            ((finished, _),) = _stored(db)
            assert AT_VERSION.encode() not in finished and b"reply 0" in finished
            assert (await client.get_run(live.run_id)).values == live.values
            assert (await client.join_run(live.run_id).result()).values == live.values
            state = await client.get_state("said_only", thread_id)
            assert json.loads(json.dumps(state.values))["turns"] == 1  # the version holds more than the run returned

    asyncio.run(body())


def test_on_postgresql_the_record_names_the_version_too(thread_id: str) -> None:
    require_pg()
    import psycopg

    from engine.checkpoint.postgres import PostgresSaver

    schema = new_schema_name()

    async def body() -> None:
        async with _serving(Path(), PostgresSaver.from_dsn(DSN, schema=schema)) as srv, AsyncClient(f"127.0.0.1:{srv.port}") as client:
            live = [await client.invoke("talk", thread_id, {"turns": n}) for n in range(2)]
            with psycopg.connect(DSN, autocommit=True, options=f"-csearch_path={schema}") as conn:
                stored = [bytes(r[0]) for r in conn.execute("SELECT finished FROM runs ORDER BY started_at")]
            assert len(stored) == 2 and all(AT_VERSION.encode() in f and b"reply" not in f for f in stored)
            for r in live:
                assert (await client.get_run(r.run_id)).values == r.values
                assert (await client.join_run(r.run_id).result()).values == r.values

    try:
        asyncio.run(body())
    finally:
        drop_schema(schema)


def test_a_streamed_run_s_events_name_the_versions_and_a_join_replays_them_as_sent(tmp_path: Path, thread_id: str) -> None:
    db = tmp_path / "gw.db"

    async def body() -> None:
        async with _serving(db) as srv, AsyncClient(f"127.0.0.1:{srv.port}") as client:
            runs = []
            for n in range(2):
                run = client.stream("talk", thread_id, {"turns": n})
                runs.append([e async for e in run])
            with sqlite3.connect(db) as conn:
                stored = b"".join(bytes(r[0]) for r in conn.execute("SELECT data FROM run_events"))
            conn.close()
            assert stored.count(AT_VERSION.encode()) >= 4  # each run's task input and values event, at least
            updates = sum(type(e).__name__ == "TaskFinished" for live in runs for e in live)
            assert stored.count(b"reply 0 ") <= updates  # the first reply's text only in the node's own updates
            for live in runs:
                kinds = {type(e).__name__ for e in live}
                assert {"TaskStarted", "ValuesEvent", "RunFinished"} <= kinds
                joined = [e async for e in client.join_run(live[0].run_id)]
                assert joined == live  # every event as the live caller got it, values and inputs read back

    asyncio.run(body())
