"""A subgraph's started tasks show its own run's metadata (tests/sidebyside/subgraph_task_metadata.py).

As LangGraph's nested loops stream them: the "tasks" (and "debug") payload of
a task inside a subgraph carries the subgraph run's config metadata and its
node's own, not the root call's. A graph invoked inside a node has its
``with_config`` metadata on top of its caller's (LangChain's v3 stream finds a
nested agent by the ``lc_agent_name`` create_agent puts there:
``run.subagents``); a graph added as a node runs with its task's config on
top of its own, so there the caller's keys win, as on LangGraph.
"""

from __future__ import annotations

from typing import Any, TypedDict

from engine.graph import START, StateGraph


class S(TypedDict):
    x: int


def _leaf(s: S) -> dict[str, Any]:
    return {"x": s["x"] + 1}


def _inner(name: str, **node_meta: Any) -> Any:
    g = StateGraph(S)
    g.add_node("leaf", _leaf, metadata=node_meta or None)
    g.add_edge(START, "leaf")
    return g.compile(name=name).with_config({"metadata": {"lc_agent_name": name, "k": 1}})


def _starts(graph: Any, config: Any = None) -> list[tuple[int, str, Any]]:
    out = []
    for ns, mode, chunk in graph.stream({"x": 1}, config, stream_mode=["tasks", "debug"], subgraphs=True):
        payload = chunk["payload"] if mode == "debug" else chunk
        if (mode == "tasks" or chunk["type"] == "task") and "input" in payload:
            out.append((len(ns), payload["name"], payload.get("metadata")))
    return out


def test_a_subgraph_invoked_in_a_node_shows_its_own_metadata() -> None:
    inner = _inner("inner")

    def call(s: S) -> dict[str, Any]:
        return {"x": inner.invoke({"x": s["x"]})["x"]}

    g = StateGraph(S)
    g.add_node("call", call)
    g.add_edge(START, "call")
    outer = g.compile().with_config({"metadata": {"lc_agent_name": "outer"}})
    starts = _starts(outer, {"metadata": {"caller": "me"}})
    assert starts[:2] == [(0, "call", {"lc_agent_name": "outer", "caller": "me"})] * 2
    assert starts[2:] == [(1, "leaf", {"lc_agent_name": "inner", "caller": "me", "k": 1})] * 2


def test_a_subgraph_node_shows_its_metadata_under_its_callers_and_its_nodes() -> None:
    g = StateGraph(S)
    g.add_node("sub", _inner("inner", role="leafy"))
    g.add_edge(START, "sub")
    outer = g.compile().with_config({"metadata": {"lc_agent_name": "outer"}})
    starts = _starts(outer)
    assert starts[:2] == [(0, "sub", {"lc_agent_name": "outer"})] * 2
    assert starts[2:] == [(1, "leaf", {"lc_agent_name": "outer", "k": 1, "role": "leafy"})] * 2
