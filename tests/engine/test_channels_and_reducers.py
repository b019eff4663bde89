"""Channels, reducers, join edges, Send and Command."""

from __future__ import annotations

import operator
import time
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, Command, InvalidUpdateError, Send, StateGraph
from engine.channels import BinaryOperatorAggregate, EphemeralValue, LastValue, NamedBarrierValue, Topic
from engine.channels.base import MISSING, EmptyChannelError


class Log(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def test_last_value_rejects_two_writes_in_one_step():
    ch = LastValue(int, key="x")
    with pytest.raises(InvalidUpdateError, match="'x'"):
        ch.update([1, 2])
    assert ch.update([3]) and ch.get() == 3
    assert not ch.update([])


def test_binop_folds_writes_and_restores():
    ch = BinaryOperatorAggregate(list, operator.add, key="l")
    assert ch.get() == []
    ch.update([[1], [2, 3]])
    assert ch.get() == [1, 2, 3]
    assert ch.from_checkpoint(ch.checkpoint()).get() == [1, 2, 3]


def test_topic_clears_each_step_unless_accumulating():
    t = Topic(int, key="t")
    t.update([1, 2])
    assert t.get() == [1, 2]
    t.update([])
    with pytest.raises(EmptyChannelError):
        t.get()
    acc = Topic(int, accumulate=True)
    acc.update([1])
    acc.update([2])
    assert acc.get() == [1, 2]


def test_ephemeral_lives_one_step_and_barrier_waits_for_all():
    e = EphemeralValue(int)
    e.update([5])
    assert e.get() == 5
    assert e.update([]) and not e.is_available()
    b = NamedBarrierValue(str, {"a", "b"})
    b.update(["a"])
    assert not b.is_available()
    b.update(["b"])
    assert b.is_available() and b.consume() and not b.is_available()
    assert b.from_checkpoint(MISSING).checkpoint() is MISSING


def test_two_writes_to_a_plain_key_in_one_step_fail():
    g = StateGraph(Log)
    g.add_node("p", lambda s: {"x": 1})
    g.add_node("q", lambda s: {"x": 2})
    g.add_edge(START, "p")
    g.add_edge(START, "q")
    with pytest.raises(InvalidUpdateError, match="'x'"):
        g.compile().invoke({"x": 0, "log": []})


def test_join_edge_waits_for_both_sources():
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_node("b2", lambda s: {"log": ["b2"]})
    g.add_node("c", lambda s: {"log": ["c"]})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("b", "b2")
    g.add_edge(["a", "b2"], "c")
    assert g.compile().invoke({"x": 0, "log": []})["log"] == ["a", "b", "b2", "c"]


def test_send_map_reduce_merges_in_send_order():
    class S(TypedDict):
        out: Annotated[list, operator.add]

    def work(arg: dict[str, Any]) -> dict[str, Any]:
        time.sleep((5 - arg["i"]) * 0.002)  # finish in reverse order
        return {"out": [arg["i"]]}

    g = StateGraph(S)
    g.add_node("work", work)
    g.add_conditional_edges(START, lambda s: [Send("work", {"i": i}) for i in range(5)])
    app = g.compile()
    assert app.invoke({"out": []})["out"] == [0, 1, 2, 3, 4]
    assert asyncio_run(app.ainvoke({"out": []}))["out"] == [0, 1, 2, 3, 4]


def asyncio_run(coro: Any) -> Any:
    import asyncio

    return asyncio.run(coro)


def test_conditional_edges_with_path_map_list_and_end():
    g = StateGraph(Log)
    g.add_node("route_me", lambda s: {"log": ["r"]})
    g.add_node("big", lambda s: {"log": ["big"]})
    g.add_node("small", lambda s: {"log": ["small"]})
    g.add_edge(START, "route_me")
    g.add_conditional_edges("route_me", lambda s: s["x"] > 5, {True: "big", False: "small"})
    g.add_edge("big", END)
    g.add_edge("small", END)
    app = g.compile()
    assert app.invoke({"x": 9, "log": []})["log"] == ["r", "big"]
    assert app.invoke({"x": 1, "log": []})["log"] == ["r", "small"]

    g2 = StateGraph(Log)
    g2.add_node("a", lambda s: {"log": ["a"]})
    g2.add_node("b", lambda s: {"log": ["b"]})
    g2.add_node("c", lambda s: {"log": ["c"]})
    g2.add_edge(START, "a")
    g2.add_conditional_edges("a", lambda s: ["b", "c"] if s["x"] else END)
    assert g2.compile().invoke({"x": 1, "log": []})["log"] == ["a", "b", "c"]
    assert g2.compile().invoke({"x": 0, "log": []})["log"] == ["a"]


def test_router_sees_its_own_nodes_write():
    seen = []
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"x": 42})
    g.add_edge(START, "a")
    g.add_conditional_edges("a", lambda s: seen.append(s["x"]) or END)
    g.compile().invoke({"x": 0, "log": []})
    assert seen == [42]


def test_command_update_and_goto_add_to_static_edges():
    g = StateGraph(Log)
    g.add_node("r", lambda s: Command(update={"x": s["x"] + 1, "log": ["r"]}, goto="z" if s["x"] == 0 else END))
    g.add_node("y", lambda s: {"log": ["y"]})
    g.add_node("z", lambda s: {"log": ["z"]})
    g.add_edge(START, "r")
    g.add_edge("r", "y")
    app = g.compile()
    assert app.invoke({"x": 0, "log": []})["log"] == ["r", "y", "z"]
    assert app.invoke({"x": 5, "log": []})["log"] == ["r", "y"]


def test_node_return_values():
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"x": 1, "unknown": 2})  # unknown keys are ignored, as in LangGraph
    g.add_node("b", lambda s: None)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    assert g.compile().invoke({"x": 0, "log": []}) == {"x": 1, "log": []}
    bad = StateGraph(Log)
    bad.add_node("a", lambda s: 5)
    bad.add_edge(START, "a")
    with pytest.raises(InvalidUpdateError, match="^Expected dict, got 5\nFor troubleshooting.*INVALID_GRAPH_NODE_RETURN_VALUE") as e:
        bad.compile().invoke({"x": 0})
    assert "During task with name 'a'" in e.value.__notes__[0]  # as LangGraph's: the note names the node
    with pytest.raises(InvalidUpdateError, match="^Expected dict, got 5\n"):  # an input, alike
        bad.compile().invoke(5)
