"""Issue 14 item 1: every finished task's writes are stored, and snapshots report tasks[i].result.

A single-task step and a node that writes nothing record their result too
(`{}`); an interrupted task's result is None until it finishes.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import history, record


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def ask(state: State) -> dict:
    return {"log": ["ask:" + interrupt("go on?")]}


builder = StateGraph(State)
builder.add_node("a", lambda s: {"x": s["x"] + 1})
builder.add_node("quiet", lambda s: None)
builder.add_node("p", lambda s: {"log": ["p"]})
builder.add_node("twice", lambda s: [Command(update={"log": ["t1"]}), Command(update={"log": ["t2"]})][0])
builder.add_node("ask", ask)
builder.add_edge(START, "a")
builder.add_edge("a", "quiet")
builder.add_edge("quiet", "p")
builder.add_edge("quiet", "twice")
builder.add_edge("quiet", "ask")
graph = builder.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "results"}}
record("first call", graph.invoke({"x": 1, "log": []}, config))
history(graph, config, "history at the interrupt")
record("resumed", graph.invoke(Command(resume="yes"), config))
history(graph, config)
