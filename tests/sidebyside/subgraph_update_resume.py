"""A nested subgraph waiting on a question, its state updated through its namespace, then answered from the root."""
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import history, record


class S(TypedDict):
    log: Annotated[list, operator.add]


def ask(state: S) -> dict:
    return {"log": ["ans:" + interrupt("q")]}


inner = StateGraph(S)
inner.add_node("prep", lambda s: {"log": ["prep"]})
inner.add_node("ask", ask)
inner.add_edge(START, "prep")
inner.add_edge("prep", "ask")
mid = StateGraph(S)
mid.add_node("inner", inner.compile())
mid.add_edge(START, "inner")
top = StateGraph(S)
top.add_node("pre", lambda s: {"log": ["pre"]})
top.add_node("mid", mid.compile())
top.add_node("post", lambda s: {"log": ["post"]})
top.add_edge(START, "pre")
top.add_edge("pre", "mid")
top.add_edge("mid", "post")
graph = top.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "t"}}
record("asked", graph.invoke({"log": ["a"]}, config))
inner_state = graph.get_state(config, subgraphs=True).tasks[0].state.tasks[0].state
graph.update_state(inner_state.config, {"log": ["edited"]})  # as the node that wrote last: ask is due again
record("inner after update", graph.get_state(inner_state.config))
record("answered", graph.invoke(Command(resume="yes"), config))
history(graph, config)
