"""Issue 29: a key's reducer must take two values: a function taking one, three or *args is
refused when the graph is built (a ValueError, "Invalid reducer signature"); two are taken."""

from typing import Annotated, TypedDict

from langgraph.graph import StateGraph

from observe import record


def one(a): ...


def three(a, b, c=None): ...


def two(a, b):
    return a + b


def star(*values):
    return sum(values)


for name, fn in (("one", one), ("three", three), ("two", two), ("star", star)):
    State = TypedDict("State", {"k": Annotated[int, fn]})
    try:
        record(name, sorted(StateGraph(State).channels))
    except ValueError as e:  # the engine's GraphDefinitionError is one (docs/porting.md)
        record(name, str(e).split(".")[0])
