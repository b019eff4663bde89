"""``version_linger_seconds``: an engine run's versions made close together go in one write.

The server hands the engine its linger (``aevents(..., linger=)``) for every engine graph's run,
and stores an event that names a version only once the run reports that version stored; the
engine's side is tests/engine/test_writer_linger.py."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any, TypedDict

import pytest
from graphwire import AsyncClient, FinishReason, RunFinished, ValuesEvent

from engine.checkpoint import SqliteSaver
from engine.config import RunnableConfig
from engine.graph import END, START, StateGraph
from server._final_values import AT_VERSION
from server.app import build_server
from server.config import ServerConfig, load_config


class _N(TypedDict):
    n: int


def _chain() -> Any:
    g = StateGraph(_N)
    g.add_sequence([(f"s{i}", lambda s: {"n": s["n"] + 1}) for i in range(3)])
    g.add_edge(START, "s0")
    g.add_edge("s2", END)
    return g


chain3 = _chain()
GRAPHS = {"chain3": f"{__name__}:chain3"}


class _Gated(TypedDict):
    n: int


#: thread id -> the gate its ``second`` node waits at
GATES: dict[str, asyncio.Event] = {}


async def _second(state: _Gated, config: RunnableConfig) -> _Gated:
    await GATES[config["configurable"]["thread_id"]].wait()
    return {"n": state["n"] + 1}


def _gated() -> Any:
    g = StateGraph(_Gated)
    g.add_node("first", lambda s: {"n": s["n"] + 1})
    g.add_node("second", _second)
    g.add_edge(START, "first")
    g.add_edge("first", "second")
    g.add_edge("second", END)
    return g


gated = _gated()
GRAPHS["gated"] = f"{__name__}:gated"


def _named_and_stored(db: Path) -> tuple[set[str], set[str]]:
    """The versions the stored events name (server._final_values' markers), and the stored versions."""
    with sqlite3.connect(db) as conn:
        events = [bytes(r[0]) for r in conn.execute("SELECT data FROM run_events")]
        versions = {r[0] for r in conn.execute("SELECT checkpoint_id FROM checkpoints")}
    conn.close()
    named = set()
    for data in events:  # a row packs one or more events (engine.checkpoint._run_sql)
        for text in data.decode("utf-8", "replace").split(AT_VERSION + ":")[1:]:
            named.add(text[:36])
    return named, versions


def test_a_streamed_run_s_events_naming_versions_are_stored_after_them_and_sent_without_waiting_out_the_linger(
    tmp_path: Path, thread_id: str
) -> None:
    db = tmp_path / "gw.db"
    GATES[thread_id] = asyncio.Event()

    async def body() -> None:
        # A linger no run outlasts: the versions a values event names are stored because the event log asked.
        cfg = ServerConfig(address="127.0.0.1:0", graphs=dict(GRAPHS), version_linger_seconds=60)
        srv = await build_server(cfg, checkpointer=SqliteSaver(str(db)))
        try:
            async with AsyncClient(f"127.0.0.1:{srv.port}") as client:
                live = []
                # the clients' stream keeps its events (a request id): a joiner may read each once stored
                async for e in client.stream("gated", thread_id, {"n": 0}):
                    live.append(e)
                    if isinstance(e, ValuesEvent) and e.values == {"n": 1}:  # while ``second`` waits at its gate
                        named, stored = _named_and_stored(db)
                        assert named and named <= stored  # the event went in after the version it names
                        GATES[thread_id].set()
                assert isinstance(live[-1], RunFinished) and live[-1].values == {"n": 2}
                assert [e async for e in client.join_run(live[0].run_id)] == live
        finally:
            await srv.stop(grace=5)

    asyncio.run(asyncio.wait_for(body(), 60))  # an event held for a version nobody writes fails here, not hangs


@pytest.mark.parametrize("bad", ["-0.5", "61", "soon"])
def test_a_linger_that_is_not_seconds_from_0_to_60_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="VERSION_LINGER_SECONDS|version_linger_seconds"):
        load_config(None, environ={"GRAPHWIRE_VERSION_LINGER_SECONDS": bad, "GRAPHWIRE_GRAPHS": "chain3=" + GRAPHS["chain3"]})


def test_the_linger_defaults_to_50_ms_and_0_turns_it_off() -> None:
    environ = {"GRAPHWIRE_GRAPHS": "chain3=" + GRAPHS["chain3"]}
    assert load_config(None, environ=environ).version_linger_seconds == 0.05
    assert load_config(None, environ={**environ, "GRAPHWIRE_VERSION_LINGER_SECONDS": "0"}).version_linger_seconds == 0


def test_a_served_run_of_fast_steps_writes_its_versions_once_and_answers_at_its_end(tmp_path: Path, thread_id: str) -> None:
    saver = SqliteSaver(str(tmp_path / "gw.db"))
    sizes: list[int] = []  # versions per write
    many = saver.aput_many

    async def aput_many(puts: Any, *, writes: Any = ()) -> Any:
        sizes.append(len(puts))
        return await many(puts, writes=writes)

    saver.aput_many = aput_many  # type: ignore[method-assign]
    prepare = saver.prepare_many

    def prepare_many(puts: Any, *, writes: Any = ()) -> Any:  # the run's last write, stored with its end
        sizes.append(len(puts))
        return prepare(puts, writes=writes)

    saver.prepare_many = prepare_many  # type: ignore[method-assign]

    async def body() -> None:
        # A linger no run outlasts: only the run's end can start the write, and the call answers then.
        srv = await build_server(ServerConfig(address="127.0.0.1:0", graphs=dict(GRAPHS), version_linger_seconds=60), checkpointer=saver)
        try:
            async with AsyncClient(f"127.0.0.1:{srv.port}") as client:
                done = await asyncio.wait_for(client.invoke("chain3", thread_id, {"n": 0}), 30)
                assert done.reason is FinishReason.END and done.values == {"n": 3}
                history = await client.history("chain3", thread_id)
                assert [s.checkpoint.step for s in history] == [3, 2, 1, 0, -1]
                assert done.checkpoint.checkpoint_id == history[0].checkpoint.checkpoint_id
        finally:
            await srv.stop(grace=5)

    asyncio.run(body())
    assert sizes == [5]  # input, __start__, s0, s1, s2: one write
