"""get_graph() of Command-routed graphs and Literal routers (issue 15.7), as LangGraph 1.2 draws them.

Observed on LangGraph 1.2.22: tests/sidebyside/drawing.py prints the same edges and Mermaid text.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from engine import END, START, Command, StateGraph


class S(TypedDict):
    x: int


def _graph() -> StateGraph:
    def a(s: S) -> Command[Literal["b", "c"]]:
        return Command(goto="b")

    def b(s: S) -> dict:
        return {}

    def c(s: S) -> Command[Literal["__end__"]]:
        return Command(goto=END)

    def route(s: S) -> Literal["a", "__end__"]:
        return "a"

    g = StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("c", c)
    g.add_conditional_edges(START, route)
    g.add_edge("b", END)
    return g


def test_command_annotations_and_literal_routers_are_edges():
    drawn = _graph().compile().get_graph()
    assert [(e.source, e.target, e.conditional) for e in drawn.edges] == [
        ("__start__", "__end__", True), ("__start__", "a", True), ("a", "b", True), ("a", "c", True),
        ("c", "__end__", True), ("b", "__end__", False),
    ]


def test_draw_mermaid_writes_langgraphs_flowchart():
    text = _graph().compile().get_graph().draw_mermaid()
    assert text.startswith("---\nconfig:\n  flowchart:\n    curve: linear\n---\ngraph TD;\n\t__start__([<p>__start__</p>]):::first\n")
    assert "\ta -.-> b;\n" in text and "\tb --> __end__;\n" in text
    g = StateGraph(S)
    g.add_node("a", lambda s: {})
    g.add_edge(START, "a")
    g.add_edge("a", END)
    assert "\t__start__([<p>__start__</p>]):::first\n\ta(a)\n\t__end__([<p>__end__</p>]):::last\n" in g.compile().get_graph().draw_mermaid()


def test_a_literal_router_refuses_other_names():
    g = StateGraph(S)
    g.add_node("a", lambda s: {})
    g.add_conditional_edges(START, lambda s: "a")
    assert g.compile().invoke({"x": 1}) == {"x": 1}


def test_add_node_destinations_are_drawn_as_langgraph_draws_them():
    """``destinations`` only draws (as in LangGraph): a dict's values label the edges."""
    from engine.types import Command as Cmd

    class D(TypedDict):
        x: int

    def a(s: D) -> Cmd:
        return Cmd(goto="b")

    b = StateGraph(D).add_node("a", a, destinations={"b": "go b", "c": "c"}).add_node("b", lambda s: {}).add_node("c", lambda s: {})
    edges = {(e.source, e.target, e.conditional, e.data) for e in b.add_edge(START, "a").compile().get_graph().edges}
    assert {("a", "b", True, "go b"), ("a", "c", True, None)} <= edges
    t = StateGraph(D).add_node("a", a, destinations=("b",)).add_node("b", lambda s: {}).add_edge(START, "a")
    assert ("a", "b", True, None) in {(e.source, e.target, e.conditional, e.data) for e in t.compile().get_graph().edges}


def test_mermaid_without_styles_and_the_json_drawing_are_langgraphs():
    """``draw_mermaid(with_styles=False)``: edges only; ``to_json()``: LangChain's node data (a function is a RunnableCallable)."""
    drawn = _graph().compile().get_graph()
    text = drawn.draw_mermaid(with_styles=False)
    assert text.startswith("graph TD;\n") and "classDef" not in text and "curve" not in text
    assert "\t__start__ -.-> a;\n" in text
    data = drawn.to_json()
    start = next(n for n in data["nodes"] if n["id"] == START)
    assert start == {"id": START, "type": "runnable", "data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": START}}
    assert {"id": END} in data["nodes"]
    assert {"source": START, "target": "a", "conditional": True} in data["edges"]
