"""Stream modes (LangGraph's shapes) and the engine's own run events."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from engine import START, Command, StateGraph, get_message_writer, get_stream_writer, interrupt
from engine.events import CheckpointSaved, RunFinished, RunStarted, StepStarted, TaskFinished, TaskStarted
from engine.testing import thread
from engine.types import Send


class X(TypedDict):
    x: int


def ab(checkpointer=None):
    def a(s):
        get_stream_writer()({"progress": "a-half"})
        get_message_writer()({"content": "tok"}, {"kind": "token"})
        return {"x": s["x"] + 1}

    g = StateGraph(X)
    g.add_node("a", a)
    g.add_node("b", lambda s: {"x": s["x"] * 10})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    return g.compile(checkpointer=checkpointer)


def test_values_updates_custom_messages():
    app = ab()
    assert list(app.stream({"x": 1}, stream_mode="values")) == [{"x": 1}, {"x": 2}, {"x": 20}]
    assert list(app.stream({"x": 1}, stream_mode="updates")) == [{"a": {"x": 2}}, {"b": {"x": 20}}]
    assert list(app.stream({"x": 1}, stream_mode="custom")) == [{"progress": "a-half"}]
    [(chunk, meta)] = list(app.stream({"x": 1}, stream_mode="messages"))
    assert chunk == {"content": "tok"} and meta["langgraph_node"] == "a" and meta["kind"] == "token"
    assert list(app.stream({"x": 1}, stream_mode=["updates", "values"])) == [
        ("values", {"x": 1}),
        ("updates", {"a": {"x": 2}}),
        ("values", {"x": 2}),
        ("updates", {"b": {"x": 20}}),
        ("values", {"x": 20}),
    ]


def test_checkpoints_tasks_debug(checkpointer):
    app = ab(checkpointer)
    cps = list(app.stream({"x": 1}, thread(), stream_mode="checkpoints"))
    assert [(c["metadata"]["source"], c["metadata"]["step"], c["next"]) for c in cps] == [
        ("input", -1, ["__start__"]),
        ("loop", 0, ["a"]),
        ("loop", 1, ["b"]),
        ("loop", 2, []),
    ]
    assert cps[1]["parent_config"] == cps[0]["config"]
    assert cps[-1]["config"] == app.get_state(thread()).config | {"configurable": {**cps[-1]["config"]["configurable"]}}
    tasks = list(app.stream({"x": 1}, thread("t2"), stream_mode="tasks"))
    assert [(t["name"], "input" in t) for t in tasks] == [("a", True), ("a", False), ("b", True), ("b", False)]
    assert tasks[1]["result"] == {"x": 2} and tasks[1]["error"] is None
    debug = list(app.stream({"x": 1}, thread("t3"), stream_mode="debug"))
    assert [d["type"] for d in debug][:3] == ["checkpoint", "checkpoint", "task"]
    assert debug[2]["step"] == 1


def test_interrupt_in_stream_modes(checkpointer):
    g = StateGraph(X)
    g.add_node("ask", lambda s: {"x": s["x"] + len(interrupt("q?"))})
    g.add_edge(START, "ask")
    app = g.compile(checkpointer=checkpointer)
    chunks = list(app.stream({"x": 1}, thread(), stream_mode=["updates", "values"]))
    assert chunks[-2][0] == "updates" and chunks[-2][1]["__interrupt__"][0].value == "q?"
    assert chunks[-1][0] == "values" and chunks[-1][1]["x"] == 1 and "__interrupt__" in chunks[-1][1]
    assert list(app.stream(Command(resume="yes"), thread(), stream_mode="values")) == [{"x": 1}, {"x": 4}]


def test_unknown_stream_mode():
    with pytest.raises(ValueError, match="stream_mode"):
        list(ab().stream({"x": 1}, stream_mode="nope"))


def test_events_carry_step_task_and_checkpoint_ids(checkpointer):
    app = ab(checkpointer)

    async def collect():
        return [ev async for ev in app.aevents({"x": 1}, thread())]

    events = asyncio.run(collect())
    assert isinstance(events[0], RunStarted) and events[0].thread_id == "t1"
    assert isinstance(events[-1], RunFinished) and events[-1].reason == "END"
    saved = [e for e in events if isinstance(e, CheckpointSaved)]
    assert [e.step for e in saved] == [-1, 0, 1, 2]
    assert all(e.parent_id == p.checkpoint_id for p, e in zip(saved, saved[1:]))
    assert events[-1].checkpoint_id == saved[-1].checkpoint_id == app.get_state(thread()).config["configurable"]["checkpoint_id"]
    started = [e for e in events if isinstance(e, TaskStarted) and e.node == "a"]
    finished = [e for e in events if isinstance(e, TaskFinished) and e.node == "a"]
    assert started[0].task_id == finished[0].task_id and finished[0].update == {"x": 2} and finished[0].step == 1
    steps = [e for e in events if isinstance(e, StepStarted)]
    assert [s.step for s in steps] == [0, 1, 2]
    # a caller can ask for fewer kinds
    only = asyncio.run(_kinds(app))
    assert {type(e) for e in only} == {CheckpointSaved, RunFinished}


async def _kinds(app):
    return [ev async for ev in app.aevents({"x": 1}, thread("k"), kinds={CheckpointSaved})]


def test_node_error_ends_the_event_stream_with_error():
    g = StateGraph(X)
    g.add_node("a", lambda s: 1 / 0)
    g.add_edge(START, "a")

    async def last():
        return [ev async for ev in g.compile().aevents({"x": 1})][-1]

    fin = asyncio.run(last())
    assert fin.reason == "ERROR" and fin.error_type == "ZeroDivisionError" and "division" in fin.error_message


class M(TypedDict, total=False):
    items: list
    out: Annotated[list, operator.add]


def test_tasks_finishing_together_stream_in_plan_order(checkpointer):
    """Map-reduce (tests/sidebyside/map_reduce.py): updates of Send tasks that finish at once come in Send order.

    LangGraph's pool hands back tasks that finish together in the order they
    were submitted; async nodes that never wait all finish in one turn of the
    event loop, so one wake sees them all done.
    """

    async def work(arg: dict) -> dict:
        return {"out": [arg["i"]]}

    b = StateGraph(M).add_node("work", work)
    b.add_conditional_edges(START, lambda s: [Send("work", {"i": i}) for i in s["items"]], ["work"])
    app = b.compile(checkpointer=checkpointer)

    async def run() -> list:
        cfg = {"configurable": {"thread_id": "map"}}
        return [c async for c in app.astream({"items": list(range(16))}, cfg, stream_mode="updates")]

    chunks = asyncio.run(run())
    assert [c["work"]["out"][0] for c in chunks] == list(range(16))


def test_a_steps_values_come_before_its_checkpoint(checkpointer):
    """As LangGraph: in a list of modes, a step's values chunk precedes the checkpoint of the version it ends with."""
    app = ab(checkpointer)
    modes = [(m, c.get("metadata", {}).get("step") if m == "checkpoints" else c.get("x")) for m, c in app.stream(
        {"x": 1}, thread("order"), stream_mode=["values", "checkpoints"])]
    assert modes == [
        ("checkpoints", -1),
        ("values", 1),
        ("checkpoints", 0),
        ("values", 2),
        ("checkpoints", 1),
        ("values", 20),
        ("checkpoints", 2),
    ]
    first = list(app.get_state_history(thread("order")))[-2]  # step 0, "a" next
    fork = [(m, c.get("metadata", {}).get("step") if m == "checkpoints" else c.get("x")) for m, c in app.stream(
        None, first.config, stream_mode=["checkpoints", "values"])]
    assert fork[:4] == [("values", 1), ("checkpoints", 1), ("values", 2), ("checkpoints", 2)]  # values, then the version


def test_a_step_that_writes_no_state_key_streams_no_values(checkpointer):
    """As LangGraph: a values chunk follows a step only if it wrote a state key (a node returning {} or None adds none)."""
    g = StateGraph(X)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_node("noop", lambda s: {})
    g.add_node("none", lambda s: None)
    g.add_node("b", lambda s: {"x": s["x"] * 10})
    g.add_edge(START, "a")
    g.add_edge("a", "noop")
    g.add_edge("noop", "none")
    g.add_edge("none", "b")
    app = g.compile(checkpointer=checkpointer)
    assert list(app.stream({"x": 1}, thread("noop"), stream_mode="values")) == [{"x": 1}, {"x": 2}, {"x": 20}]
    assert [m for m, _ in app.stream({"x": 1}, thread("noop2"), stream_mode=["values", "updates"])] == [
        "values", "updates", "values", "updates", "updates", "updates", "values"
    ]
