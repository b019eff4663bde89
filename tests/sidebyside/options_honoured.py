"""LangGraph options the engine honours in its own way: checkpoint_during, subgraphs, input=.

``checkpoint_during`` (LangGraph 1.0's older form of ``durability``): False
writes one version at the end, True one per step; with ``durability`` too it
is a ValueError. ``subgraphs=True`` on a graph without subgraphs puts every
chunk under the root namespace ``()`` and changes nothing else.
``add_node(..., input=Schema)`` is the older name of ``input_schema``.
"""

import warnings
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from observe import call, record

warnings.simplefilter("ignore")


class State(TypedDict):
    x: int


class Part(TypedDict):
    x: int


def inc(state: State) -> dict:
    return {"x": state["x"] + 1}


def double(state: Part) -> dict:
    return {"x": state["x"] * 2, "seen": type(state).__name__}


builder = StateGraph(State)
builder.add_node("inc", inc)
builder.add_node("double", double, input=Part)
builder.add_edge(START, "inc")
builder.add_edge("inc", "double")
builder.add_edge("double", END)
app = builder.compile(checkpointer=InMemorySaver())


def cfg(thread: str) -> dict:
    return {"configurable": {"thread_id": thread}}


def versions(thread: str) -> list:
    # (tasks' results in history are another difference, issue 14's)
    return [(s.metadata["source"], s.metadata["step"], s.values, s.next) for s in app.get_state_history(cfg(thread))]


record("exit", app.invoke({"x": 1}, cfg("exit"), checkpoint_during=False))
record("exit versions", versions("exit"))
record("async", app.invoke({"x": 1}, cfg("async"), checkpoint_during=True))
record("async versions", versions("async"))
call("both", app.invoke, {"x": 1}, cfg("both"), checkpoint_during=True, durability="sync")

record("updates", list(app.stream({"x": 1}, cfg("s1"), stream_mode="updates", subgraphs=True)))
record("values", list(app.stream({"x": 1}, cfg("s2"), stream_mode=["values", "updates"], subgraphs=True)))
record("invoke", app.invoke({"x": 1}, cfg("s3"), subgraphs=True))
record("state", app.get_state(cfg("s3"), subgraphs=True).values)
