"""A subgraph's snapshot: its config names the versions above it (``checkpoint_map``), its
metadata has no ``thread_id`` (issue 29). Twin of tests/sidebyside/subgraph_snapshot_config.py."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from engine.checkpoint import InMemorySaver
from engine.graph import StateGraph


class S(TypedDict):
    k: str


def _graph() -> Any:
    inner = StateGraph(S)
    inner.add_node("i1", lambda s: {"k": s["k"] + "-i1"})
    inner.add_node("i2", lambda s: {"k": s["k"] + "-i2"})
    inner.add_edge("__start__", "i1")
    inner.add_edge("i1", "i2")
    mid = StateGraph(S)
    mid.add_node("m1", lambda s: {"k": s["k"] + "-m1"})
    mid.add_node("inner", inner.compile(interrupt_before=["i2"]))
    mid.add_edge("__start__", "m1")
    mid.add_edge("m1", "inner")
    top = StateGraph(S)
    top.add_node("t1", lambda s: {"k": s["k"] + "-t1"})
    top.add_node("mid", mid.compile())
    top.add_edge("__start__", "t1")
    top.add_edge("t1", "mid")
    return top.compile(checkpointer=InMemorySaver())


@pytest.mark.parametrize("durability", ["exit", "async"])
def test_a_subgraph_snapshot_names_the_versions_above_it(durability: str) -> None:
    graph, config = _graph(), {"configurable": {"thread_id": "1"}}
    graph.invoke({"k": "x"}, config, durability=durability)
    top = graph.get_state(config, subgraphs=True)
    assert "checkpoint_map" not in top.config["configurable"] and top.metadata["parents"] == {}
    mid = top.tasks[0].state
    inner = mid.tasks[0].state
    top_id = top.config["configurable"]["checkpoint_id"]
    mid_ns, mid_id = mid.config["configurable"]["checkpoint_ns"], mid.config["configurable"]["checkpoint_id"]
    inner_ns, inner_id = inner.config["configurable"]["checkpoint_ns"], inner.config["configurable"]["checkpoint_id"]
    assert mid.config["configurable"]["checkpoint_map"] == {"": top_id, mid_ns: mid_id}
    assert inner.config["configurable"]["checkpoint_map"] == {"": top_id, mid_ns: mid_id, inner_ns: inner_id}
    assert inner.metadata["parents"] == {"": top_id, mid_ns: mid_id}
    for snap in (mid, inner):
        assert "thread_id" not in snap.metadata and set(snap.metadata) == {"source", "step", "parents"}
        if durability == "async":  # the parent version's config names it in the map too
            parent = snap.parent_config["configurable"]
            assert parent["checkpoint_map"][parent["checkpoint_ns"]] == parent["checkpoint_id"]
        else:
            assert snap.parent_config is None
    # without subgraphs=True a subgraph task's state is the config naming its namespace
    assert graph.get_state(config).tasks[0].state == {"configurable": {"thread_id": "1", "checkpoint_ns": mid_ns}}


def test_version_metadata_keeps_the_callers_plain_metadata_only() -> None:
    graph, config = _graph(), {"configurable": {"thread_id": "1", "user": "u"}}
    graph.invoke({"k": "x"}, {**config, "metadata": {"tag": "t", "n": 2, "obj": {"a": 1}, "__hidden": "h"}})
    meta = graph.get_state(config).metadata
    assert {k: meta[k] for k in ("tag", "n", "user")} == {"tag": "t", "n": 2, "user": "u"}
    assert "obj" not in meta and "__hidden" not in meta


def test_checkpoint_chunks_of_a_subgraph_name_the_versions_above_it_as_history_does() -> None:
    graph, config = _graph(), {"configurable": {"thread_id": "s"}}
    chunks = [(ns, c) for ns, mode, c in graph.stream({"k": "x"}, config, stream_mode=["checkpoints"], subgraphs=True)]
    inner = [c for ns, c in chunks if len(ns) == 2]
    assert inner and all("checkpoint_map" in c["config"]["configurable"] for c in inner)
    history = {s.config["configurable"]["checkpoint_id"]: s for s in graph.get_state_history(
        {"configurable": {"thread_id": "s", "checkpoint_ns": inner[-1]["config"]["configurable"]["checkpoint_ns"]}})}
    for c in inner:
        snap = history[c["config"]["configurable"]["checkpoint_id"]]
        assert c["config"] == snap.config
        assert c["parent_config"] == snap.parent_config
