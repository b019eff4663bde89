"""get_graph().edges as LangChain's Edge list (issue 29). Twin of tests/sidebyside/drawn_edges.py."""

from __future__ import annotations

from typing import TypedDict

from langchain_core.runnables.graph import Edge as LangChainEdge

from engine.func import entrypoint
from engine.graph import START, StateGraph
from engine.types import Command


class S(TypedDict):
    foo: str


def test_drawn_edges_are_a_list_equal_to_langchains_edges() -> None:
    def child(state: S) -> Command:
        return Command(goto="b")

    builder = StateGraph(S)
    builder.add_node("child", child, destinations={"b": "to b", "c": "to c"})
    builder.add_node("b", lambda s: {"foo": "b"})
    builder.add_node("c", lambda s: {"foo": "c"})
    builder.add_edge(START, "child")
    edges = builder.compile().get_graph().edges
    assert edges == [
        LangChainEdge("__start__", "child", None, False),
        LangChainEdge("child", "b", "to b", True),
        LangChainEdge("child", "c", "to c", True),
        LangChainEdge("b", "__end__", None, False),
        LangChainEdge("c", "__end__", None, False),
    ]
    assert edges[1].label == "to b" and edges[1].conditional

    @entrypoint()
    def flow(x: int) -> int:
        return x

    assert flow.get_graph().edges == [LangChainEdge("__start__", "flow"), LangChainEdge("flow", "__end__", None, True)]
