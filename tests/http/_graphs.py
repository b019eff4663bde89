"""Graphs the HTTP API's tests serve beside tests/graphs.py's.

``schemed``: a state pydantic can describe on Python 3.11 (``typing_extensions.TypedDict``,
so its JSON schemas exist), a context schema, and a node ``inner`` that runs
``counter`` as its subgraph: the routes for schemas and subgraphs have
something to show. ``named``: ``counter`` compiled with a name of its own,
which the server keeps (its default assistant's name, its schemas' titles).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any

from typing_extensions import TypedDict

from engine import END, START, StateGraph

__all__ = ["counter", "named", "schemed"]


class CounterState(TypedDict, total=False):
    n: int


def _count(state: CounterState) -> dict[str, Any]:
    return {"n": state.get("n", 0) + 1}


_counter = StateGraph(CounterState)
_counter.add_node("count", _count)
_counter.add_edge(START, "count")
_counter.add_edge("count", END)
counter = _counter.compile()
named = _counter.compile(name="Counting Graph")


class SchemedState(TypedDict, total=False):
    topic: str
    log: Annotated[list[str], operator.add]
    n: int


@dataclass
class Who:
    user: str = "anyone"


def _note(state: SchemedState) -> dict[str, Any]:
    return {"log": [f"topic:{state.get('topic', '')}"]}


schemed = StateGraph(SchemedState, context_schema=Who)
schemed.add_node("note", _note)
schemed.add_node("inner", counter)
schemed.add_edge(START, "note")
schemed.add_edge("note", "inner")
schemed.add_edge("inner", END)
