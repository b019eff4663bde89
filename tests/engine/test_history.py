"""The exact checkpoint history of simple graphs (facts observed on LangGraph 1.2)."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from engine import END, START, StateGraph
from engine.testing import history_summary, thread


class X(TypedDict):
    x: int


class Log(TypedDict):
    log: Annotated[list, operator.add]


def one_node(checkpointer):
    g = StateGraph(X)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_edge(START, "a")
    g.add_edge("a", END)
    return g.compile(checkpointer=checkpointer)


def test_one_node_history_is_input_then_one_version_per_step(checkpointer):
    app = one_node(checkpointer)
    assert app.invoke({"x": 1}, thread()) == {"x": 2}
    hist = list(app.get_state_history(thread()))
    assert [(h.metadata["source"], h.metadata["step"], h.next) for h in hist] == [
        ("loop", 1, ()),
        ("loop", 0, ("a",)),
        ("input", -1, ("__start__",)),
    ]
    assert [h.values for h in hist] == [{"x": 2}, {"x": 1}, {}]
    # each version's parent is the one before it; the first has none
    ids = [h.config["configurable"]["checkpoint_id"] for h in hist]
    parents = [h.parent_config and h.parent_config["configurable"]["checkpoint_id"] for h in hist]
    assert parents == [ids[1], ids[2], None]
    assert ids == sorted(ids, reverse=True)
    assert hist[0].metadata["parents"] == {}
    assert isinstance(hist[0].created_at, str) and "T" in hist[0].created_at


def test_second_invoke_continues_the_step_counter(checkpointer):
    app = one_node(checkpointer)
    app.invoke({"x": 1}, thread())
    assert app.invoke({"x": 10}, thread()) == {"x": 11}
    assert history_summary(app, thread())[:3] == [("loop", 4, ()), ("loop", 3, ("a",)), ("input", 2, ("__start__",))]
    # the input version holds the previous state; the input is not applied yet
    assert list(app.get_state_history(thread()))[2].values == {"x": 2}


def test_chain_history_and_get_state(checkpointer):
    g = StateGraph(X)
    g.add_sequence([("a", lambda s: {"x": s["x"] + 1}), ("b", lambda s: {"x": s["x"] * 10}), ("c", lambda s: {"x": s["x"] - 1})])
    g.add_edge(START, "a")
    app = g.compile(checkpointer=checkpointer)
    assert app.invoke({"x": 1}, thread()) == {"x": 19}
    assert history_summary(app, thread()) == [
        ("loop", 3, ()),
        ("loop", 2, ("c",)),
        ("loop", 1, ("b",)),
        ("loop", 0, ("a",)),
        ("input", -1, ("__start__",)),
    ]
    state = app.get_state(thread())
    assert state.values == {"x": 19} and state.next == () and state.tasks == ()


def test_next_lists_nodes_in_definition_order_and_writes_apply_by_name(checkpointer):
    g = StateGraph(Log)
    for name in ("z", "b", "a"):
        g.add_node(name, lambda s, n=name: {"log": [n]})
    for name in ("b", "a", "z"):
        g.add_edge(START, name)
    app = g.compile(checkpointer=checkpointer, interrupt_before=["a"])
    app.invoke({"log": []}, thread())
    assert app.get_state(thread()).next == ("z", "b", "a")
    assert app.invoke(None, thread()) == {"log": ["a", "b", "z"]}


def test_unknown_thread_has_empty_state(checkpointer):
    app = one_node(checkpointer)
    s = app.get_state(thread("nobody"))
    assert s.values == {} and s.next == () and s.metadata is None
    assert list(app.get_state_history(thread("nobody"))) == []


def test_history_filter_before_limit(checkpointer):
    app = one_node(checkpointer)
    app.invoke({"x": 1}, thread())
    app.invoke({"x": 5}, thread())
    assert len(list(app.get_state_history(thread(), limit=2))) == 2
    inputs = list(app.get_state_history(thread(), filter={"source": "input"}))
    assert [h.metadata["step"] for h in inputs] == [2, -1]
    third = list(app.get_state_history(thread()))[2]
    older = list(app.get_state_history(thread(), before=third.config))
    assert [h.metadata["step"] for h in older] == [1, 0, -1]
