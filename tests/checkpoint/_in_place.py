"""The graph the in-place tests of the SQL savers run (tests/checkpoint/test_*_in_place.py):
one node, or the node then an interrupt."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine import END, START, StateGraph
from engine.types import interrupt


class State(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def _inc(state: State) -> dict:
    return {"n": state["n"] + 1, "log": ["inc"]}


def _ask(state: State) -> dict:
    return {"log": [interrupt("go on?")]}


def graph_on(saver: Any, *, ask: bool = False) -> Any:
    g = StateGraph(State)
    g.add_node("a", _inc)
    g.add_edge(START, "a")
    if ask:
        g.add_node("ask", _ask)
        g.add_edge("a", "ask")
    g.add_edge("ask" if ask else "a", END)
    return g.compile(checkpointer=saver)
