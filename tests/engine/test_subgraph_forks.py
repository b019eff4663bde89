"""Subgraphs (issue 17 item 7): going back in time on the parent, and errors inside a subgraph.

A fork of an older parent version, or a run from an ``update_state`` branch,
runs each subgraph (the first time the call runs it) from the subgraph's
newest version older than the parent version gone back to (for an update:
the update's parent). Every expectation was observed on LangGraph 1.2.22
running the same program (tests/sidebyside/subgraph_forks.py prints ``same``).
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine.graph import END, START, StateGraph
from engine.types import Command, interrupt


class Sub(TypedDict):
    x: int
    count: int  # the subgraph's own key: how many times it ran on its history
    log: Annotated[list, operator.add]


class Parent(TypedDict):
    x: int
    log: Annotated[list, operator.add]


CFG = {"configurable": {"thread_id": "t"}}


def _build(checkpointer: Any, mode: Any, seen: list, *, loop: bool = False, ask: bool = False) -> Any:
    def count(state: Sub) -> dict:
        seen.append((state.get("count"), state["x"]))
        return {"count": (state.get("count") or 0) + 1}

    sb = StateGraph(Sub)
    sb.add_node("count", count)
    sb.add_edge(START, "count")
    if ask:
        sb.add_node("ask", lambda s: {"log": ["ans:" + interrupt("q")]})
        sb.add_edge("count", "ask")
    pb = StateGraph(Parent)
    pb.add_node("p1", lambda s: {"x": s["x"] + 1})
    pb.add_node("child", sb.compile(checkpointer=mode))
    pb.add_edge(START, "p1")
    pb.add_edge("p1", "child")
    if loop:  # back to p1 until x reaches 3: the subgraph runs twice in one call
        pb.add_conditional_edges("child", lambda s: END if s["x"] >= 3 else "p1")
    return pb.compile(checkpointer=checkpointer)


def _three_calls(g: Any) -> list[Any]:
    for i in range(3):
        g.invoke({"x": 10 * i, "log": []}, CFG)
    return list(g.get_state_history(CFG))


def test_a_fork_of_the_parent_runs_a_checkpointer_true_subgraph_from_its_version_of_then(checkpointer: Any) -> None:
    seen: list = []
    g = _build(checkpointer, True, seen)
    hist = _three_calls(g)
    assert seen == [(None, 1), (1, 11), (2, 21)]
    due = [h for h in hist if h.next == ("child",)]  # newest first: calls 3, 2, 1
    p1 = [h for h in hist if h.next == ("p1",)]
    seen.clear()
    # call 2's subgraph had run once (call 1) when the parent stood there
    g.invoke(None, due[1].config)
    g.invoke(None, p1[1].config)
    assert seen == [(1, 11), (1, 11)]
    # an update_state branch replays from the update's parent; twice, the same
    seen.clear()
    up = g.update_state(due[1].config, {"x": 500}, as_node="p1")
    assert g.invoke(None, up) == {"x": 500, "log": []}
    g.invoke(None, up)
    assert seen == [(1, 500), (1, 500)]
    # new input, even on an older version, and a plain call read the newest version
    seen.clear()
    ends = [h for h in hist if h.next == ()]
    g.invoke({"x": 100, "log": []}, ends[-1].config)
    g.invoke({"x": 7, "log": []}, CFG)
    assert seen == [(2, 101), (3, 8)]
    # the fork's subgraph versions start a branch off the version of then
    versions = list(checkpointer.list({"configurable": {"thread_id": "t", "checkpoint_ns": "child"}}))[::-1]
    by_id = {v.checkpoint["id"]: v for v in versions}
    forked = [v for v in versions if v.metadata["source"] == "input"][3]  # after calls 1-3's input versions
    base = by_id[forked.parent_config["configurable"]["checkpoint_id"]]
    assert (base.metadata["step"], base.checkpoint["channel_values"]["count"]) == (1, 1)
    assert forked.metadata["step"] == 2


def test_a_fork_starts_a_per_invocation_subgraph_afresh(checkpointer: Any) -> None:
    seen: list = []
    g = _build(checkpointer, None, seen)
    hist = _three_calls(g)
    due = [h for h in hist if h.next == ("child",)]
    seen.clear()
    assert g.invoke(None, due[1].config) == {"x": 11, "log": []}
    assert g.invoke(None, g.update_state(due[1].config, {"x": 500}, as_node="p1")) == {"x": 500, "log": []}
    assert seen == [(None, 11), (None, 500)]


def test_a_subgraph_run_twice_in_a_forked_call_reads_its_first_runs_version(checkpointer: Any) -> None:
    seen: list = []
    g = _build(checkpointer, True, seen, loop=True)
    g.invoke({"x": 0, "log": []}, CFG)
    g.invoke({"x": 0, "log": []}, CFG)
    assert seen == [(None, 1), (1, 2), (2, 3), (3, 1), (4, 2), (5, 3)]
    first_due = [h for h in g.get_state_history(CFG) if h.next == ("child",)][-1]
    seen.clear()
    g.invoke(None, first_due.config)
    assert seen == [(None, 1), (1, 2), (2, 3)]


@pytest.mark.parametrize("mode, asked_from", [(None, None), (True, 1)])
def test_a_fork_from_before_an_interrupt_inside_a_subgraph_asks_again(checkpointer: Any, mode: Any, asked_from: Any) -> None:
    seen: list = []
    g = _build(checkpointer, mode, seen, ask=True)
    assert [i.value for i in g.invoke({"x": 0, "log": []}, CFG)["__interrupt__"]] == ["q"]
    g.invoke(Command(resume="one"), CFG)
    g.invoke({"x": 10, "log": []}, CFG)  # waits again
    waiting = [h for h in g.get_state_history(CFG) if h.next == ("child",)][0]
    seen.clear()
    forked = g.invoke(None, waiting.config)
    assert [i.value for i in forked["__interrupt__"]] == ["q"]
    # a checkpointer=True subgraph goes on from its version before the wait (its first turn, answered)
    assert seen == [(asked_from, 11)]
    # the parent's log folds the subgraph's whole log in (a checkpointer=True one still holds call 1's answer)
    done = g.invoke(Command(resume="two"), CFG)
    assert done["log"] == ["ans:one", *(["ans:one"] if mode is True else []), "ans:one", "ans:two"]


def test_an_async_fork_replays_the_subgraph_too(checkpointer: Any) -> None:
    seen: list = []
    g = _build(checkpointer, True, seen)
    due = [h for h in _three_calls(g) if h.next == ("child",)]
    seen.clear()
    asyncio.run(g.ainvoke(None, due[1].config))
    assert seen == [(1, 11)]


def test_a_checkpointer_true_subgraph_inside_a_per_invocation_one_keeps_its_history(checkpointer: Any) -> None:
    # As LangGraph: its namespace drops every level's task id ("mid|child")
    seen: list = []
    inner = _build(None, True, seen)
    ob = StateGraph(Parent)
    ob.add_node("mid", inner.builder.compile())
    ob.add_edge(START, "mid")
    og = ob.compile(checkpointer=checkpointer)
    for i in range(3):
        og.invoke({"x": 10 * i, "log": []}, CFG)
    assert seen == [(None, 1), (1, 11), (2, 21)]
    names = {t.config["configurable"]["checkpoint_ns"] for t in checkpointer.list(None)}
    assert "mid|child" in names
    older = [h for h in og.get_state_history(CFG) if h.next == ("mid",)][1]
    seen.clear()
    og.invoke(None, older.config)
    assert seen == [(1, 11)]


def test_a_node_error_inside_a_subgraph_beside_finished_siblings_resumes_only_the_failed_node(checkpointer: Any) -> None:
    class S(TypedDict):
        log: Annotated[list, operator.add]

    calls: list[str] = []
    fail = [True]

    def step(name: str, flaky: bool = False) -> Any:
        def run(state: S) -> dict:
            calls.append(name)
            if flaky and fail[0]:
                raise RuntimeError("boom")
            return {"log": [name]}

        return run

    inner = StateGraph(S)
    for name in ("first", "ok"):
        inner.add_node(name, step(name))
    inner.add_node("flaky", step("flaky", True))
    inner.add_edge(START, "first")
    inner.add_edge("first", "ok")
    inner.add_edge("first", "flaky")
    outer = StateGraph(S)
    outer.add_node("child", inner.compile())
    outer.add_node("sibling", step("sibling"))
    outer.add_edge(START, "child")
    outer.add_edge(START, "sibling")
    g = outer.compile(checkpointer=checkpointer)
    with pytest.raises(RuntimeError, match="boom"):
        g.invoke({"log": []}, CFG)
    assert sorted(calls) == ["first", "flaky", "ok", "sibling"]
    state = g.get_state(CFG, subgraphs=True)
    assert [(t.name, t.error) for t in state.tasks] == [("child", "RuntimeError('boom')"), ("sibling", None)]
    sub = state.tasks[0].state
    assert sub.next == ("flaky",) and [(t.name, t.result) for t in sub.tasks] == [("ok", {"log": ["ok"]}), ("flaky", None)]
    calls.clear()
    fail[0] = False
    assert g.invoke(None, CFG) == {"log": ["first", "flaky", "ok", "sibling"]}
    assert calls == ["flaky"]


@pytest.mark.parametrize("mode", [None, True])
def test_running_the_parent_from_a_subgraphs_version(checkpointer: Any, mode: Any) -> None:
    # As LangGraph 1.2.22: the parent forks the version that subgraph version belongs to; a
    # per-task subgraph (new task ids, no version of then) starts afresh, a checkpointer=True
    # one goes back to the version named; either asks again, and a resume from the same
    # config answers it.
    seen: list = []
    g = _build(checkpointer, mode, seen, ask=True)
    g.invoke({"x": 0, "log": []}, CFG)
    sub = g.get_state(CFG, subgraphs=True).tasks[0].state
    out = g.invoke(None, sub.config)
    assert [i.value for i in out.pop("__interrupt__")] == ["q"]
    assert out == {"x": 1, "log": []}
    assert seen == ([(None, 1), (None, 1)] if mode is None else [(None, 1)])
    assert g.invoke(Command(resume="a"), sub.config) == {"x": 1, "log": ["ans:a"]}
    assert [(h.metadata["source"], h.next, h.values) for h in g.get_state_history(CFG)] == [
        ("loop", (), {"x": 1, "log": ["ans:a"]}),
        ("fork", ("child",), {"x": 1, "log": []}),
        ("loop", ("child",), {"x": 1, "log": []}),
        ("loop", ("p1",), {"x": 0, "log": []}),
        ("input", ("__start__",), {"log": []}),
    ]


def test_an_update_without_as_node_where_start_ran_last_is_starts(checkpointer: Any) -> None:
    # As LangGraph 1.2.22: START is one of the nodes update_state picks from, so an update at
    # the version of call 2's input step leaves p1 due; the run from it takes the subgraph back.
    seen: list = []
    g = _build(checkpointer, True, seen)
    for i in range(2):
        g.invoke({"x": 10 * i, "log": []}, CFG)
    before = [h for h in g.get_state_history(CFG) if h.next == ("p1",)][0]
    up = g.update_state(before.config, {"log": ["edited"]})
    state = g.get_state(up)
    assert (state.next, state.values, state.metadata["source"]) == (("p1",), {"x": 10, "log": ["edited"]}, "update")
    seen.clear()
    assert g.invoke(None, up) == {"x": 11, "log": ["edited", "edited"]}
    assert seen == [(1, 11)]


class Chat(TypedDict):
    messages: Annotated[list, operator.add]
    turn: int


def _chat_with_an_agent(checkpointer: Any) -> Any:
    """tests/sidebyside/subgraph_fork_resume.py's graph: a subgraph of the parent's own state
    (no checkpointer of its own) that asks a question; its lists are stored by reference."""

    def approve(state: Chat) -> dict:
        return {"messages": [f"approved {interrupt({'question': 'ok?', 'seen': len(state['messages'])})}"]}

    sub = StateGraph(Chat)
    sub.add_node("think", lambda s: {"messages": [f"think {len(s['messages'])}"]})
    sub.add_node("approve", approve)
    sub.add_node("reply", lambda s: {"messages": [f"reply to {s['messages'][0]}"]})
    sub.add_edge(START, "think").add_edge("think", "approve").add_edge("approve", "reply").add_edge("reply", END)
    parent = StateGraph(Chat)
    parent.add_node("prepare", lambda s: {"messages": ["prepared"], "turn": s.get("turn", 0) + 1})
    parent.add_node("agent", sub.compile())
    parent.add_node("wrap", lambda s: {"messages": [f"wrapped {len(s['messages'])}"]})
    parent.add_edge(START, "prepare").add_edge("prepare", "agent").add_edge("agent", "wrap").add_edge("wrap", END)
    return parent.compile(checkpointer=checkpointer)


def test_a_subgraph_under_the_parents_saver_forked_edited_and_resumed(checkpointer):
    """As LangGraph 1.2.22: every version read back after forks, a second turn and an
    update of an old waiting version holds what it held when written."""
    app = _chat_with_an_agent(checkpointer)
    first = ["hello", "prepared"]
    asked = app.invoke({"messages": ["hello"], "turn": 0}, CFG)
    assert [i.value for i in asked["__interrupt__"]] == [{"question": "ok?", "seen": 3}]
    done = first * 2 + ["think 2", "approved yes", "reply to hello", "wrapped 7"]
    assert app.invoke(Command(resume="yes"), CFG)["messages"] == done
    before_agent = next(s for s in app.get_state_history(CFG) if s.next == ("agent",))
    assert app.invoke(None, before_agent.config)["messages"] == first
    forked = first * 2 + ["think 2", "approved fork", "reply to hello", "wrapped 7"]
    assert app.invoke(Command(resume="fork"), CFG)["messages"] == forked
    assert app.invoke({"messages": ["again"]}, CFG)["__interrupt__"][0].value == {"question": "ok?", "seen": 11}
    second = app.invoke(Command(resume="twice"), CFG)
    turn2 = [*forked, "again", "prepared"]
    assert second == {"messages": turn2 * 2 + ["think 10", "approved twice", "reply to hello", "wrapped 23"], "turn": 2}
    versions = list(app.get_state_history(CFG))
    assert [(s.metadata["step"], s.next, len(s.values.get("messages", []))) for s in versions] == [
        (9, (), 24), (8, ("wrap",), 23), (7, ("agent",), 10), (6, ("prepare",), 9), (5, ("__start__",), 8),
        (4, (), 8), (3, ("wrap",), 7), (2, ("agent",), 2), (3, (), 8), (2, ("wrap",), 7), (1, ("agent",), 2),
        (0, ("prepare",), 1), (-1, ("__start__",), 0)]
    oldest_wait = [s for s in versions if s.tasks and s.tasks[0].interrupts][-1]
    app.update_state(oldest_wait.config, {"messages": ["edited"]})
    assert app.invoke(None, CFG)["__interrupt__"][0].value == {"question": "ok?", "seen": 4}
    edited = [*first, "edited"]
    assert app.invoke(Command(resume="edited"), CFG)["messages"] == edited * 2 + [
        "think 3", "approved edited", "reply to hello", "wrapped 9"]
    subs = [app.get_state(s.tasks[0].state).values["messages"] for s in app.get_state_history(CFG)
            if s.tasks and s.tasks[0].state is not None]
    assert subs == [
        [*edited, "think 3", "approved edited", "reply to hello"],
        [*turn2, "think 10", "approved twice", "reply to hello"],
        [*first, "think 2", "approved fork", "reply to hello"],
        [*first, "think 2", "approved yes", "reply to hello"],
    ]
