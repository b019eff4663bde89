"""get_graph() as LangGraph 1.2 draws it: its walk, and ``xray`` drawing the subgraphs' nodes (issue 17 item 8).

Every expectation was observed on LangGraph 1.2.22 drawing the same graph
(tests/sidebyside/subgraph_drawing.py and drawing.py print ``same``).
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from engine.graph import END, START, StateGraph
from examples.supervisor import graph as supervisor_builder


class S(TypedDict):
    x: int


def _noop(state: S) -> dict:
    return {}


def _edges(drawn: Any) -> list[tuple[str, str, bool, str | None]]:
    return [(e.source, e.target, e.conditional, e.data) for e in drawn.edges]


def _chain(*names: str) -> StateGraph:
    b = StateGraph(S)
    for n in names:
        b.add_node(n, _noop)
    b.add_edge(START, names[0])
    for a, z in zip(names, names[1:]):
        b.add_edge(a, z)
    return b


def test_the_supervisor_example_drawn_with_xray_shows_each_agents_nodes() -> None:
    g = supervisor_builder.compile()
    flat = g.get_graph()
    assert list(flat.nodes) == ["__start__", "supervisor", "researcher", "writer", "__end__"]
    assert _edges(flat) == [
        ("__start__", "supervisor", False, None), ("researcher", "writer", True, None),
        ("supervisor", "researcher", True, None), ("writer", "__end__", False, None),
    ]  # fmt: skip
    deep = g.get_graph(xray=True)
    assert list(deep.nodes) == [
        "__start__", "supervisor", "__end__", "researcher:research", "researcher:handoff", "writer:draft", "writer:approve",
    ]  # fmt: skip
    assert deep.nodes["researcher:handoff"].name == "handoff"
    assert _edges(deep) == [
        ("__start__", "supervisor", False, None), ("researcher:handoff", "writer:draft", True, None),
        ("supervisor", "researcher:research", True, None), ("writer:approve", "__end__", False, None),
        ("researcher:research", "researcher:handoff", False, None), ("writer:draft", "writer:approve", False, None),
    ]  # fmt: skip
    text = deep.draw_mermaid()
    assert "\tsupervisor -.-> researcher\\3aresearch;\n" in text
    assert "\tsubgraph researcher\n\tresearcher\\3aresearch(research)\n\tresearcher\\3ahandoff(handoff)\n" in text
    assert "\tresearcher\\3aresearch --> researcher\\3ahandoff;\n\tend\n\tsubgraph writer\n" in text
    assert asyncio.run(g.aget_graph(xray=True)) == deep


def test_xray_depth_expands_that_many_levels() -> None:
    mid = StateGraph(S)
    mid.add_node("m1", _noop)
    mid.add_node("leaf", _chain("l1", "l2").compile())
    mid.add_edge(START, "m1")
    mid.add_edge("m1", "leaf")
    mid.add_edge("leaf", END)
    top = StateGraph(S)
    top.add_node("mid", mid.compile())
    top.add_node("after", _noop)
    top.add_edge(START, "mid")
    top.add_edge("mid", "after")
    top.add_edge("after", END)
    g = top.compile()
    assert list(g.get_graph(xray=1).nodes) == ["__start__", "after", "__end__", "mid:m1", "mid:leaf"]
    full = ["__start__", "after", "__end__", "mid:m1", "mid:leaf:l1", "mid:leaf:l2"]
    assert list(g.get_graph(xray=2).nodes) == full == list(g.get_graph(xray=True).nodes)
    assert ("mid:leaf:l2", "after", False, None) in _edges(g.get_graph(xray=True))
    text = g.get_graph(xray=True).draw_mermaid()
    assert "\tsubgraph mid\n\tmid\\3am1(m1)\n\tmid\\3am1 --> mid\\3aleaf\\3al1;\n\tsubgraph leaf\n" in text
    assert "\tmid\\3aleaf\\3al1 --> mid\\3aleaf\\3al2;\n\tend\n\tend\n" in text


def test_a_subgraph_compiled_with_checkpointer_false_stays_one_node() -> None:
    b = StateGraph(S)
    b.add_node("off", _chain("o1", "o2").compile(checkpointer=False))
    b.add_edge(START, "off")
    assert list(b.compile().get_graph(xray=True).nodes) == ["__start__", "off", "__end__"]


def test_the_walk_draws_only_what_a_run_could_reach() -> None:
    # a -> END beside a -> b is not drawn; b, which leads nowhere, ends at END
    b = _chain("a", "b")
    b.add_edge("a", END)
    assert _edges(b.compile().get_graph()) == [("__start__", "a", False, None), ("a", "b", False, None), ("b", "__end__", False, None)]
    # a router without a path map or a Literal names no destination; an unreachable node draws nothing
    r = _chain("a")
    r.add_node("b", _noop)
    r.add_conditional_edges("a", lambda s: "b")
    r.add_edge("b", END)
    assert _edges(r.compile().get_graph()) == [("__start__", "a", False, None), ("a", "__end__", False, None)]
    # a loop with no END: the last node walked gets a conditional edge to END
    loop = _chain("a", "b")
    loop.add_edge("b", "a")
    assert _edges(loop.compile().get_graph())[-1] == ("b", "__end__", True, None)


def test_node_metadata_breakpoints_and_defer_are_drawn() -> None:
    b = StateGraph(S)
    b.add_node("a", _noop, metadata={"owner": "team [a]"})
    b.add_node("d", _noop, defer=True)
    b.add_edge(START, "a")
    b.add_edge("a", "d")
    drawn = b.compile(interrupt_before=["a"], interrupt_after=["a"]).get_graph()
    assert drawn.nodes["a"].metadata == {"owner": "team [a]", "__interrupt": "before,after"}
    assert drawn.nodes["d"].metadata == {"defer": True}
    assert drawn.metadata["__start__"] == {}
    assert "\ta(a<hr/><small><em>owner = team #91;a#93;\n__interrupt = before,after</em></small>)\n" in drawn.draw_mermaid()
