"""The tasks and debug modes' task payloads carry the caller's metadata and tags, and a node's own metadata,
less the keys that repeat the task's fields (LangGraph 1.2's). Twin of tests/sidebyside/tasks_metadata.py;
engine.pregel.debug.map_debug_tasks is the same rule on LangGraph's task objects."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TypedDict

from engine.graph import START, StateGraph
from engine.pregel.debug import map_debug_tasks, map_task_result_writes


class S(TypedDict):
    x: int


def graph():
    inner = StateGraph(S)
    inner.add_node("deep", lambda s: {"x": s["x"] + 10}, metadata={"kind": "inner"})
    inner.add_edge(START, "deep")
    b = StateGraph(S)
    b.add_node("a", lambda s: {"x": 1}, metadata={"owner": "team-a", "langgraph_node": "ignored"})
    b.add_node("sub", inner.compile())
    b.add_edge(START, "a")
    b.add_edge("a", "sub")
    return b.compile()


def started(chunks: list) -> dict:
    return {c["name"]: c.get("metadata") for c in chunks if "input" in c}


def test_a_task_shows_the_callers_metadata_and_tags_and_its_nodes_own() -> None:
    config = {"metadata": {"user": "ann", "thread_id": "t"}, "tags": ["t1", "seq:step:3"]}
    shown = started(list(graph().stream({"x": 0}, config, stream_mode="tasks")))
    assert shown == {"a": {"user": "ann", "owner": "team-a", "tags": ["t1"]}, "sub": {"user": "ann", "tags": ["t1"]}}


def test_a_subgraphs_task_shows_its_own_nodes_metadata_too() -> None:
    chunks = [c for ns, c in graph().stream({"x": 0}, {"metadata": {"user": "ann"}}, stream_mode="tasks", subgraphs=True) if ns]
    assert started(chunks) == {"deep": {"user": "ann", "kind": "inner"}}


def test_nothing_to_show_leaves_the_key_out_in_tasks_and_debug() -> None:
    g = graph()
    assert started(list(g.stream({"x": 0}, {"tags": ["seq:step:1"]}, stream_mode="tasks"))) == {"a": {"owner": "team-a"}, "sub": None}
    debug = [c["payload"] for c in g.stream({"x": 0}, stream_mode="debug") if c["type"] == "task"]
    assert [p.get("metadata") for p in debug] == [{"owner": "team-a"}, None]


def test_map_debug_tasks_filters_as_the_stream_does() -> None:
    task = SimpleNamespace(id="1", name="n", input={}, triggers=["x"],
                           config={"metadata": {"lc_agent_name": "w", "langgraph_step": 2}, "tags": ["u", "seq:step:1"]})
    hidden = SimpleNamespace(id="2", name="h", input={}, triggers=["x"], config={"tags": ["langsmith:hidden"]})
    bare = SimpleNamespace(id="3", name="b", input={}, triggers=["x"], config=None)
    payloads = list(map_debug_tasks([task, hidden, bare]))
    assert payloads == [
        {"id": "1", "name": "n", "input": {}, "triggers": ["x"], "metadata": {"lc_agent_name": "w", "tags": ["u"]}},
        {"id": "3", "name": "b", "input": {}, "triggers": ["x"]},
    ]


def test_map_task_result_writes_gathers_several_writes_to_a_channel() -> None:
    assert map_task_result_writes([("a", 1), ("b", 2), ("a", 3), ("a", 4)]) == {"a": {"$writes": [1, 3, 4]}, "b": 2}
    assert map_task_result_writes([("a", None), ("a", 5)]) == {"a": 5}  # as LangGraph's: a None first counts as nothing
