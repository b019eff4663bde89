"""Subgraphs (issue 17 items 4-5): reading and updating a subgraph's state; streaming with subgraphs=True.

The expectations were observed on LangGraph 1.2.22 (tests/sidebyside/subgraph_state.py prints ``same``).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine.config import get_stream_writer
from engine.graph import START, StateGraph
from engine.types import Command, StateSnapshot, interrupt


class S(TypedDict):
    log: Annotated[list, operator.add]


def _ask(state: S) -> dict:
    get_stream_writer()({"asking": len(state["log"])})
    return {"log": ["ans:" + interrupt("q")]}


def _graph(checkpointer: Any):
    inner = StateGraph(S)
    inner.add_node("prep", lambda s: {"log": ["prep"]})
    inner.add_node("ask", _ask)
    inner.add_edge(START, "prep")
    inner.add_edge("prep", "ask")
    mid = StateGraph(S)
    mid.add_node("inner", inner.compile())
    mid.add_edge(START, "inner")
    top = StateGraph(S)
    top.add_node("pre", lambda s: {"log": ["pre"]})
    top.add_node("mid", mid.compile())
    top.add_edge(START, "pre")
    top.add_edge("pre", "mid")
    return top.compile(checkpointer=checkpointer)


CFG = {"configurable": {"thread_id": "t"}}


def test_get_state_with_subgraphs_nests_each_interrupted_subgraph_snapshot(checkpointer: Any) -> None:
    g = _graph(checkpointer)
    g.invoke({"log": ["a"]}, CFG)
    plain = g.get_state(CFG)
    (task,) = plain.tasks
    assert task.name == "mid" and task.state["configurable"]["checkpoint_ns"] == f"mid:{task.id}"
    deep = g.get_state(CFG, subgraphs=True)
    mid = deep.tasks[0].state
    assert isinstance(mid, StateSnapshot)
    assert mid.values == {"log": ["a", "pre"]} and mid.next == ("inner",)
    assert mid.metadata["parents"] == {"": deep.config["configurable"]["checkpoint_id"]}
    inner = mid.tasks[0].state
    assert isinstance(inner, StateSnapshot)
    assert inner.values == {"log": ["a", "pre", "prep"]} and inner.next == ("ask",)
    assert [i.value for i in inner.interrupts] == ["q"]
    assert inner.interrupts[0].id == deep.interrupts[0].id
    ns = inner.config["configurable"]["checkpoint_ns"]
    assert ns.startswith(f"mid:{task.id}|inner:")
    assert set(inner.metadata["parents"]) == {"", f"mid:{task.id}"}


def test_history_and_update_state_address_a_subgraph_namespace(checkpointer: Any) -> None:
    g = _graph(checkpointer)
    g.invoke({"log": ["a"]}, CFG)
    inner = g.get_state(CFG, subgraphs=True).tasks[0].state.tasks[0].state
    ns = {"configurable": {"thread_id": "t", "checkpoint_ns": inner.config["configurable"]["checkpoint_ns"]}}
    assert [(s.metadata["source"], s.next) for s in g.get_state_history(ns)] == [("loop", ("ask",)), ("loop", ("prep",)), ("input", ("__start__",))]
    assert g.get_state(ns).values == inner.values
    cfg = g.update_state(ns, {"log": ["edited"]}, as_node="prep")
    assert cfg["configurable"]["checkpoint_ns"] == ns["configurable"]["checkpoint_ns"]
    after = g.get_state(ns)
    assert after.values == {"log": ["a", "pre", "prep", "edited"]} and after.next == ("ask",)
    assert after.metadata["source"] == "update"
    # the root's own history is untouched
    assert [s.metadata["step"] for s in g.get_state_history(CFG)] == [1, 0, -1]
    # As LangGraph: the updated version waits for nothing, and the root's one answer goes to the
    # question its task asks again (tests/sidebyside/subgraph_state.py).
    out = g.invoke(Command(resume="yes"), CFG)
    assert "__interrupt__" not in out and out["log"][-2:] == ["edited", "ans:yes"]


def test_stream_with_subgraphs_yields_each_chunk_under_its_namespace(checkpointer: Any) -> None:
    g = _graph(checkpointer)
    assert [c for c in g.stream({"log": ["a"]}, CFG, stream_mode=["updates", "custom"])] == [
        ("updates", {"pre": {"log": ["pre"]}}),
        ("updates", {"__interrupt__": g.get_state(CFG).interrupts}),
    ]
    cfg = {"configurable": {"thread_id": "s"}}
    chunks = list(g.stream({"log": ["b"]}, cfg, stream_mode=["updates", "custom"], subgraphs=True))
    spaces = [ns for ns, _, _ in chunks]
    mid = next(ns for ns in spaces if len(ns) == 1)
    deep = next(ns for ns in spaces if len(ns) == 2)
    assert deep[0] == mid[0] and mid[0].startswith("mid:") and deep[1].startswith("inner:")
    shape = [(len(ns), mode, next(iter(chunk)) if mode == "updates" else chunk) for ns, mode, chunk in chunks]
    assert shape == [
        (0, "updates", "pre"),
        (2, "updates", "prep"),
        (2, "custom", {"asking": 3}),
        (2, "updates", "__interrupt__"),
        (1, "updates", "__interrupt__"),
        (0, "updates", "__interrupt__"),
    ]
    resumed = [(len(ns), chunk) for ns, chunk in g.stream(Command(resume="yes"), cfg, subgraphs=True)]
    assert resumed == [
        (2, {"ask": {"log": ["ans:yes"]}}),
        (1, {"inner": {"log": ["b", "pre", "prep", "ans:yes"]}}),
        (0, {"mid": {"log": ["b", "pre", "b", "pre", "prep", "ans:yes"]}}),
    ]
