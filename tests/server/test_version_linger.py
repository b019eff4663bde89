"""``version_linger_seconds``: an engine run's versions made close together go in one write.

The server hands the engine its linger (``aevents(..., linger=)``) for a run whose stored events
name no version while it runs; the engine's side is tests/engine/test_writer_linger.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, TypedDict

import pytest
from graphwire import AsyncClient, FinishReason

from engine import events as ev
from engine.checkpoint import SqliteSaver
from engine.graph import END, START, StateGraph
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._parse import lingers
from server._records import Call
from server._registry import GraphEntry
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


def _entry(runtime: str = "engine") -> GraphEntry:
    return GraphEntry("chain3", GRAPHS["chain3"], chain3.compile(), "", runtime=runtime)


def test_which_runs_linger() -> None:
    plain = Call(pb.InvokeRequest(graph="chain3", thread_id="t"))
    kept = Call(pb.InvokeRequest(graph="chain3", thread_id="t", request_id="r"))  # its events are stored for joiners
    ends = frozenset({ev.RunStarted, ev.RunFinished})
    assert lingers(_entry(), plain, None) and lingers(_entry(), plain, frozenset({ev.ValuesEvent}))
    assert lingers(_entry(), kept, ends)  # its stored events name a version only at its end, after every write
    # stored while the run goes on, a values event or a task's input names a version a joiner reads then
    assert not lingers(_entry(), kept, None)
    assert not lingers(_entry(), kept, ends | {ev.ValuesEvent})
    assert not lingers(_entry(), kept, ends | {ev.TaskStarted})
    assert not lingers(_entry("langgraph"), plain, None)  # LangGraph's own loop writes as it does


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
