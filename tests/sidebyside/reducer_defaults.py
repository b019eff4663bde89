"""Issue 14 item 9: a node's input holds every reducer channel, empty until written."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from observe import call, record


class State(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]
    total: Annotated[int, operator.add]


seen = []


def a(state: State) -> dict:
    seen.append(dict(state))
    return {"log": [len(state["log"])], "x": state.get("x", 0) + 1}


builder = StateGraph(State)
builder.add_node("a", a)
builder.add_edge(START, "a")
graph = builder.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "r"}}
call("run", graph.invoke, {"x": 1}, config)
call("empty input", graph.invoke, {}, {"configurable": {"thread_id": "r2"}})
record("node saw", seen)
record("state", graph.get_state(config))
