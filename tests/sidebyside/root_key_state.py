"""Issue 29: a TypedDict whose one key is ``__root__`` (LangGraph's older form of a root-valued
state): the state is that key's value itself, its reducer applied; nodes get and return it."""

import operator
from typing import Annotated, TypedDict

from langgraph.graph import START, StateGraph

from observe import record


class State(TypedDict):
    __root__: Annotated[list, operator.add]


builder = StateGraph(State)
builder.add_node("a", lambda items: [f"a saw {len(items)}"])
builder.add_node("b", lambda items: [f"b saw {len(items)}"])
builder.add_edge(START, "a")
builder.add_edge("a", "b")
graph = builder.compile()
record("invoke", graph.invoke(["start"]))
record("updates", list(graph.stream(["x"], stream_mode="updates")))
record("values", list(graph.stream(["y"], stream_mode="values")))
