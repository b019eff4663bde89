"""A graph whose node returns, on request, a value the wire (JSON) cannot carry.

``unsendable``: START → ``make`` → END. The input's ``kind`` picks what
``make`` puts in ``value`` and appends to ``items`` (an append-only list):
a plain string ("fine"), or one of :data:`KINDS`.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine import END, START, StateGraph

__all__ = ["KINDS", "unsendable"]

def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


#: kind -> (the value, where in ``value`` the wire fails: the path the error names)
KINDS: dict[str, tuple[Any, str]] = {
    "nan": ({"x": [1.0, float("nan")]}, "['x'][1]"),
    "inf": ({"x": float("inf")}, "['x']"),
    "-inf": ({"x": [float("-inf")]}, "['x'][0]"),
    "long int": ({"x": 10**5000}, "['x']"),
    "lone surrogate": ({"x": "a\ud800b"}, "['x']"),
    "surrogate key": ({"a\udfffb": 1}, "<key>"),
    "tuple key": ({"x": {(1, 2): "pair"}}, "['x']<key>"),
    "int key": ({1: "one"}, "<key>"),
    "nan in a tuple": ({"x": (1, float("nan"))}, "['x'][1]"),
    # issue 28 item 5d: 2,000 levels (past msgpack's limit) and 600 (within it, past the serializer's 500)
    "2000 deep": ({"x": _nested(2000)}, "['x']['a']['a']"),
    "600 deep": ({"x": _nested(600)}, "['x']['a']['a']"),
}


class UnsendableState(TypedDict, total=False):
    kind: str
    value: Any
    items: Annotated[list[Any], operator.add]


def _make(state: UnsendableState) -> dict[str, Any]:
    kind = state.get("kind", "fine")
    value = "fine" if kind == "fine" else KINDS[kind][0]
    return {"value": value, "items": [value]}


def _graph() -> StateGraph:
    g = StateGraph(UnsendableState)
    g.add_node("make", _make)
    g.add_edge(START, "make")
    g.add_edge("make", END)
    return g


unsendable = _graph()
