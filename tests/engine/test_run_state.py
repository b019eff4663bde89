"""The loop's two values: the frozen RunSettings a run is made of, and the RunState its parts move.

The input folding (engine.pregel._input.InputFolder) is set up here on a
RunState directly: what each kind of call leaves the run standing on before
its first step, read as plain data.
"""

from __future__ import annotations

import asyncio
import dataclasses
import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine.checkpoint.memory import InMemorySaver
from engine.events import CheckpointSaved, RunFinished, RunStarted
from engine.graph import END, START, StateGraph
from engine.pregel._loop import RunLoop
from engine.pregel._run import RunSettings, RunState
from engine.types import Command, interrupt


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def _graph(saver: Any) -> Any:
    def ask(state: S) -> dict[str, Any]:
        return {"log": [f"answer:{interrupt('?')}"]}

    b = StateGraph(S)
    b.add_node("one", lambda s: {"log": ["one"]})
    b.add_node("ask", ask)
    b.add_edge(START, "one")
    b.add_edge("one", "ask")
    b.add_edge("ask", END)
    return b.compile(checkpointer=saver)


def _settings(graph: Any, **changes: Any) -> RunSettings:
    base = RunSettings(
        spec=graph.spec, saver=graph.checkpointer, store=None, cache=None, durability="sync",
        kinds=frozenset({RunStarted, CheckpointSaved, RunFinished}), subgraph_kinds=frozenset(), inline_sync=False,
        interrupt_before=(), interrupt_after=(), run_id="run-1", recursion_limit=5,
    )  # fmt: skip
    return dataclasses.replace(base, **changes)


def _folded(graph: Any, input: Any, config: dict[str, Any], **changes: Any) -> tuple[RunState, list[Any]]:
    """The state a call stands on once its input is folded in, and the events the folding emitted."""
    loop = RunLoop(_settings(graph, **changes), input, config)
    asyncio.run(loop.folder.setup())
    return loop.state, loop.queue.drain()


def test_settings_are_frozen_and_refuse_a_limit_below_one() -> None:
    graph = _graph(InMemorySaver())
    settings = _settings(graph)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.recursion_limit = 9  # type: ignore[misc]
    with pytest.raises(ValueError, match="recursion_limit must be at least 1"):
        _settings(graph, recursion_limit=0)


def test_a_fresh_state_stands_before_a_new_threads_first_version() -> None:
    state = RunState({"log": []})
    assert (state.step, state.parent_id, state.pending_writes, state.executed) == (-2, None, [], 0)
    assert state.checkpoint["id"] == "" and state.checkpoint["channel_versions"] == {}
    assert RunState(None).checkpoint is not state.checkpoint  # each run its own


def test_new_input_on_a_new_thread_saves_the_input_version() -> None:
    graph = _graph(InMemorySaver())
    state, events = _folded(graph, {"log": ["hi"]}, {"configurable": {"thread_id": "t"}})
    assert state.step == -1 and state.stop == -2 + 5 + 2
    assert state.parent_id == state.checkpoint["id"] != ""
    assert [type(e).__name__ for e in events] == ["RunStarted", "CheckpointSaved"]
    assert events[1].source == "input" and events[1].next == ("__start__",)
    assert not state.resuming


def test_a_resume_continues_the_interrupted_version_and_saves_none() -> None:
    saver = InMemorySaver()
    graph = _graph(saver)
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"log": ["hi"]}, config)
    waiting = graph.get_state(config)
    state, events = _folded(graph, Command(resume="yes"), config)
    assert state.parent_id == waiting.config["configurable"]["checkpoint_id"]
    assert state.step == waiting.metadata["step"] and state.resuming
    assert ("yes",) in {tuple(v) for _, c, v in state.pending_writes if c == "__resume__"}
    assert [type(e).__name__ for e in events] == ["RunStarted"]  # no version saved


def test_none_naming_an_older_version_forks_it() -> None:
    saver = InMemorySaver()
    graph = _graph(saver)
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"log": ["hi"]}, config)
    older = [s for s in graph.get_state_history(config) if s.next == ("one",)][0]
    state, events = _folded(graph, None, older.config)
    assert state.step == older.metadata["step"] + 1
    assert [e.source for e in events if isinstance(e, CheckpointSaved)] == ["fork"]
    assert state.replay is not None  # its subgraphs start from their versions of then
    assert state.pending_writes == []
