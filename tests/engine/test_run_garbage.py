"""A finished run leaves nothing for the garbage collector.

A run's objects (its loop, runner, tasks' contexts) used to hold each other
in cycles, so every invoke left ~50 objects that only the cycle collector
could free, and its collections cost ~10 µs an invoke of a one-node chain.
Without the cycles reference counting frees them as soon as the call
returns. These tests pin that on the paths a chat server's turn takes: new
input, an interrupt and its resume, parallel tasks, every saver, and a graph
with no saver (whose input step and START's step are folded into one).
"""

from __future__ import annotations

import asyncio
import gc
import operator
import uuid
from collections import Counter
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, StateGraph
from engine.types import Command, interrupt


class State(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def _inc(state: State) -> dict:
    return {"n": state["n"] + 1, "log": ["inc"]}


def _side(state: State) -> dict:
    return {"log": ["side"]}


def _ask(state: State) -> dict:
    return {"log": [interrupt("go on?")]}


def _graph(checkpointer: Any, *, ask: bool = False, parallel: bool = False) -> Any:
    g = StateGraph(State)
    g.add_node("a", _inc)
    g.add_edge(START, "a")
    last = "a"
    if parallel:
        g.add_node("side", _side)
        g.add_edge(START, "side")
    if ask:
        g.add_node("ask", _ask)
        g.add_edge("a", "ask")
        last = "ask"
    g.add_edge(last, END)
    return g.compile(checkpointer=checkpointer)


_RUN_MODULES = ("engine.pregel.", "engine.channels.", "engine._internal.", "engine.graph.")


CALLS = 10


def _garbage_of(calls: Any) -> list[str]:
    """The kinds of a run's objects (its loop's, tasks' and channels') the collector finds
    unreachable at least once per call over :data:`CALLS` ``calls()``: what a cycle made by
    every run leaves. Less is not the runs': a node thread that ran an earlier test's
    failing task lets go of its traceback's cycle when it takes its next task, and a saver
    an earlier test closed becomes garbage when its last worker thread ends."""
    calls()  # warm: first calls import and cache what later calls reuse
    gc.collect()  # and what is garbage already is freed before the collector starts keeping it
    gc.set_debug(gc.DEBUG_SAVEALL)  # the collector keeps what it finds, to be looked at
    try:
        for _ in range(CALLS):
            calls()
        gc.collect()
        kinds = Counter(type(o).__qualname__ for o in gc.garbage if type(o).__module__.startswith(_RUN_MODULES))
        return sorted(k for k, n in kinds.items() if n >= CALLS)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()


@pytest.mark.parametrize("shape", ["chain", "parallel", "interrupt"])
def test_a_turn_leaves_no_cycles(checkpointer: Any, shape: str) -> None:
    graph = _graph(checkpointer, ask=shape == "interrupt", parallel=shape == "parallel")

    def turn() -> None:
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        out = graph.invoke({"n": 0, "log": []}, config)
        if shape == "interrupt":
            assert "__interrupt__" in out
            out = graph.invoke(Command(resume="yes"), config)
            assert out["log"] == ["inc", "yes"]
        else:
            assert out["n"] == 1

    assert _garbage_of(turn) == []


def test_a_run_without_a_saver_leaves_no_cycles() -> None:
    graph = _graph(None, parallel=True)

    def turn() -> None:
        assert graph.invoke({"n": 0, "log": []}) == {"n": 1, "log": ["inc", "side"]}

    assert _garbage_of(turn) == []


def test_an_async_turn_leaves_no_cycles(checkpointer: Any) -> None:
    graph = _graph(checkpointer)
    loop = asyncio.new_event_loop()

    def turn() -> None:
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        assert loop.run_until_complete(graph.ainvoke({"n": 0, "log": []}, config))["n"] == 1

    try:
        assert _garbage_of(turn) == []
    finally:
        loop.close()
