"""Issue 29: get_graph().edges is a list of edges equal to LangChain's Edge(source, target, data,
conditional), labels in data: a StateGraph with a router and destinations, and an entrypoint."""

from typing import TypedDict

from langchain_core.runnables.graph import Edge
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.types import Command

from observe import record


class S(TypedDict):
    foo: str


def child(state: S) -> Command:
    return Command(goto="b")


builder = StateGraph(S)
builder.add_node("child", child, destinations={"b": "to b", "c": "to c"})
builder.add_node("b", lambda s: {"foo": "b"})
builder.add_node("c", lambda s: {"foo": "c"})
builder.add_edge(START, "child")
graph = builder.compile().get_graph()
record("type", type(graph.edges).__name__)
record("edges", [tuple(e) for e in graph.edges])
record("equal to LangChain's", graph.edges == [Edge(e.source, e.target, e.data, e.conditional) for e in graph.edges])


@entrypoint()
def flow(x: int) -> int:
    return x


record("entrypoint", [tuple(e) for e in flow.get_graph().edges])
