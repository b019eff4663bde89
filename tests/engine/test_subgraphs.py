"""Subgraphs (issue 17 items 1-3): a compiled graph as a node, its versions, its interrupts.

Every expectation here was observed on LangGraph 1.2.22 running the same
program (tests/sidebyside/subgraph_*.py print ``same``).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine.checkpoint import InMemorySaver
from engine.config import get_config
from engine.graph import START, StateGraph
from engine.types import Command, interrupt


class Sub(TypedDict):
    x: int
    log: Annotated[list, operator.add]
    inner: str


class Parent(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def _sub(checkpointer: Any = None):
    def s1(state: Sub) -> dict:
        return {"x": state["x"] + 1, "log": ["s1"], "inner": "i"}

    b = StateGraph(Sub)
    b.add_node("s1", s1)
    b.add_node("s2", lambda s: {"log": ["s2"]})
    b.add_edge(START, "s1")
    b.add_edge("s1", "s2")
    return b.compile(checkpointer=checkpointer)


def _parent(child: Any, checkpointer: Any = None):
    b = StateGraph(Parent)
    b.add_node("p1", lambda s: {"log": ["p1"]})
    b.add_node("child", child)
    b.add_edge(START, "p1")
    b.add_edge("p1", "child")
    return b.compile(checkpointer=checkpointer)


def _cfg(thread: str = "t") -> dict:
    return {"configurable": {"thread_id": thread}}


def _namespaces(saver: Any, thread: str = "t") -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for t in saver.list(None):
        if t.config["configurable"]["thread_id"] == thread:
            out.setdefault(t.config["configurable"]["checkpoint_ns"], []).append(t)
    return out


def test_a_compiled_graph_as_a_node_reads_shared_keys_and_writes_its_output_back() -> None:
    # As LangGraph: the subgraph's whole output comes back, so a reducer key folds it in again.
    assert _parent(_sub()).invoke({"x": 1, "log": []}) == {"x": 2, "log": ["p1", "p1", "s1", "s2"]}


def test_a_subgraph_invoked_inside_a_node_function() -> None:
    sub = _sub()

    def call(state: Parent) -> dict:
        out = sub.invoke({"x": state["x"], "log": []})
        return {"x": out["x"], "log": out["log"]}

    b = StateGraph(Parent)
    b.add_node("call", call)
    b.add_edge(START, "call")
    assert b.compile().invoke({"x": 1, "log": []}) == {"x": 2, "log": ["s1", "s2"]}
    # and with the parent's saver, under the task's namespace
    saver = InMemorySaver()
    assert b.compile(checkpointer=saver).invoke({"x": 1, "log": []}, _cfg()) == {"x": 2, "log": ["s1", "s2"]}
    (ns,) = [n for n in _namespaces(saver) if n]
    assert ns.startswith("call:")


def test_subgraph_versions_live_in_the_thread_under_its_namespace(checkpointer: Any) -> None:
    g = _parent(_sub(), checkpointer)
    g.invoke({"x": 1, "log": []}, _cfg())
    spaces = _namespaces(checkpointer)
    assert set(spaces) - {""} and len(spaces) == 2
    (ns,) = set(spaces) - {""}
    node, task_id = ns.split(":")
    assert node == "child"
    # the parent's step that ran the subgraph started from the parent's version at step 1
    root = {t.metadata["step"]: t for t in spaces[""]}
    assert root[1].checkpoint["id"] and [s for s in root] == [2, 1, 0, -1]
    steps = sorted((t.metadata["step"], t.metadata["source"]) for t in spaces[ns])
    assert steps == [(-1, "input"), (0, "loop"), (1, "loop"), (2, "loop")]
    for t in spaces[ns]:
        assert t.metadata["parents"] == {"": root[1].checkpoint["id"]}
        assert t.config["configurable"]["checkpoint_ns"] == ns
    assert all(t.metadata["parents"] == {} for t in spaces[""])
    # the parent's history is its own namespace's
    assert [s.metadata["step"] for s in g.get_state_history(_cfg())] == [2, 1, 0, -1]
    # the subgraph's task id is the parent's task's
    assert root[1].checkpoint["channel_values"].get("branch:to:child", "missing") is None
    assert task_id


def test_a_subgraph_task_config_names_its_namespace() -> None:
    seen: list[str] = []

    class S(TypedDict):
        x: int

    inner = StateGraph(S)
    inner.add_node("leaf", lambda s: seen.append(get_config()["configurable"]["checkpoint_ns"]) or {})
    inner.add_edge(START, "leaf")
    outer = StateGraph(S)
    outer.add_node("child", inner.compile())
    outer.add_edge(START, "child")
    outer.compile(checkpointer=InMemorySaver()).invoke({"x": 1}, _cfg())
    (ns,) = seen
    child, leaf = ns.split("|")
    assert child.startswith("child:") and leaf.startswith("leaf:")


def _asking_sub(checkpointer: Any = None):
    class S(TypedDict):
        log: Annotated[list, operator.add]

    def ask(state: S) -> dict:
        return {"log": ["ans:" + interrupt("q")]}

    b = StateGraph(S)
    b.add_node("ask", ask)
    b.add_edge(START, "ask")
    return b.compile(checkpointer=checkpointer), S


@pytest.mark.parametrize(
    "mode, second_turn",
    [
        # per invocation: the second turn's subgraph starts afresh
        (None, ["a", "a", "ans:yes", "b", "a", "a", "ans:yes", "b", "ans:no"]),
        # checkpointer=True: the subgraph's own history goes on across the parent's calls
        (True, ["a", "a", "ans:yes", "b", "a", "ans:yes", "a", "a", "ans:yes", "b", "ans:no"]),
        # checkpointer=False: no versions of its own; resuming runs it again from the start
        (False, ["a", "a", "ans:yes", "b", "a", "a", "ans:yes", "b", "ans:no"]),
    ],
)
def test_an_interrupt_inside_a_subgraph_bubbles_up_and_resumes_there(checkpointer: Any, mode: Any, second_turn: list) -> None:
    sub, S = _asking_sub(mode)
    b = StateGraph(S)
    b.add_node("child", sub)
    b.add_edge(START, "child")
    g = b.compile(checkpointer=checkpointer)
    first = g.invoke({"log": ["a"]}, _cfg())
    assert first["log"] == ["a"] and [i.value for i in first["__interrupt__"]] == ["q"]
    state = g.get_state(_cfg())
    assert state.next == ("child",)
    assert [i.id for i in state.tasks[0].interrupts] == [first["__interrupt__"][0].id]
    assert g.invoke(Command(resume="yes"), _cfg()) == {"log": ["a", "a", "ans:yes"]}
    again = g.invoke({"log": ["b"]}, _cfg())
    assert again["log"] == ["a", "a", "ans:yes", "b"] and "__interrupt__" in again
    assert g.invoke(Command(resume="no"), _cfg()) == {"log": second_turn}
    spaces = set(_namespaces(checkpointer)) - {""}
    if mode is None:
        assert len(spaces) == 2 and all(s.startswith("child:") for s in spaces)
    elif mode is True:
        assert spaces == {"child"}
    else:
        assert spaces == set()


def test_several_interrupted_subgraph_tasks_resume_by_interrupt_id(checkpointer: Any) -> None:
    sub, S = _asking_sub()
    runs: list[str] = []

    def other(state: Any) -> dict:
        runs.append("other")
        return {"log": ["other:" + interrupt("r")]}

    b = StateGraph(S)
    b.add_node("child", sub)
    b.add_node("other", other)
    b.add_edge(START, "child")
    b.add_edge(START, "other")
    g = b.compile(checkpointer=checkpointer)
    out = g.invoke({"log": []}, _cfg())
    by_value = {i.value: i.id for i in out["__interrupt__"]}
    assert set(by_value) == {"q", "r"}
    part = g.invoke(Command(resume={by_value["q"]: "A"}), _cfg())
    assert [i.value for i in part["__interrupt__"]] == ["r"]
    assert g.get_state(_cfg()).next == ("other",)
    done = g.invoke(Command(resume={by_value["r"]: "B"}), _cfg())
    assert sorted(done["log"]) == ["ans:A", "other:B"]
    assert runs == ["other", "other", "other"]


def test_a_node_error_inside_a_subgraph_ends_the_call_and_resumes_without_rerunning_finished_tasks(checkpointer: Any) -> None:
    class S(TypedDict):
        log: Annotated[list, operator.add]

    calls: list[str] = []
    fail = [True]

    def first(state: S) -> dict:
        calls.append("first")
        return {"log": ["first"]}

    def flaky(state: S) -> dict:
        calls.append("flaky")
        if fail[0]:
            raise RuntimeError("boom")
        return {"log": ["flaky"]}

    inner = StateGraph(S)
    inner.add_node("first", first)
    inner.add_node("flaky", flaky)
    inner.add_edge(START, "first")
    inner.add_edge("first", "flaky")
    outer = StateGraph(S)
    outer.add_node("child", inner.compile())
    outer.add_edge(START, "child")
    g = outer.compile(checkpointer=checkpointer)
    with pytest.raises(RuntimeError, match="boom"):
        g.invoke({"log": []}, _cfg())
    fail[0] = False
    assert g.invoke(None, _cfg()) == {"log": ["first", "flaky"]}
    assert calls == ["first", "flaky", "flaky"]


def test_two_subgraph_runs_in_one_task_each_keep_their_versions() -> None:
    """As LangGraph 1.2: the second run of a subgraph in one task is stored under ``<task ns>|1``."""
    sub = _sub()

    def twice(state: Parent) -> dict:
        sub.invoke({"x": 1, "log": []})
        sub.invoke({"x": 2, "log": []})
        return {}

    b = StateGraph(Parent)
    b.add_node("twice", twice)
    b.add_edge(START, "twice")
    saver = InMemorySaver()
    assert b.compile(checkpointer=saver).invoke({"x": 1, "log": []}, _cfg()) == {"x": 1, "log": []}
    namespaces = {t.config["configurable"]["checkpoint_ns"] for t in saver.list(None)}
    first = next(ns for ns in namespaces if ns.startswith("twice:") and "|" not in ns)
    assert namespaces == {"", first, f"{first}|1"}
    assert b.compile().invoke({"x": 1, "log": []}) == {"x": 1, "log": []}


def test_a_subgraphs_static_breakpoint_stops_its_parent_which_then_goes_on() -> None:
    class S(TypedDict):
        log: Annotated[list, operator.add]

    inner = StateGraph(S)
    inner.add_node("first", lambda s: {"log": ["first"]})
    inner.add_node("leaf", lambda s: {"log": ["leaf"]})
    inner.add_edge(START, "first")
    inner.add_edge("first", "leaf")
    outer = StateGraph(S)
    outer.add_node("child", inner.compile(interrupt_before=["leaf"]))
    outer.add_node("side", lambda s: {"log": ["side"]})
    outer.add_edge(START, "child")
    outer.add_edge(START, "side")
    app = outer.compile(checkpointer=InMemorySaver())
    assert app.invoke({"log": []}, _cfg()) == {"log": ["side"]}
    state = app.get_state(_cfg())
    assert state.next == ("child",) and state.interrupts == ()
    # as LangGraph: the step ends with both tasks, applied by node name (child, then side)
    assert app.invoke(None, _cfg()) == {"log": ["first", "leaf", "side"]}


class Team(TypedDict):
    log: Annotated[list, operator.add]
    turn: int


def _supervisor_graph(checkpointer: Any):
    def supervisor(state: Team) -> Command:
        if state.get("turn", 0) >= 1:
            return Command(goto="__end__")
        return Command(goto="agent_a", update={"turn": 1})

    a = StateGraph(Team)
    a.add_node("work", lambda s: {"log": ["a worked"]})
    a.add_node("handoff", lambda s: Command(graph=Command.PARENT, goto="agent_b", update={"log": ["a hands off to b"]}))
    a.add_edge(START, "work")
    a.add_edge("work", "handoff")
    b = StateGraph(Team)
    b.add_node("answer", lambda s: {"log": ["b answered"]})
    b.add_edge(START, "answer")
    p = StateGraph(Team)
    p.add_node("supervisor", supervisor)
    p.add_node("agent_a", a.compile())
    p.add_node("agent_b", b.compile())
    p.add_edge(START, "supervisor")
    p.add_edge("agent_b", "supervisor")
    return p.compile(checkpointer=checkpointer)


def test_command_parent_hands_off_to_a_node_of_the_parent(checkpointer: Any) -> None:
    g = _supervisor_graph(checkpointer)
    out = g.invoke({"log": ["hi"]}, _cfg())
    # a's own "a worked" stays inside a: only the command's update reaches the parent
    assert out == {"log": ["hi", "a hands off to b", "hi", "a hands off to b", "b answered"], "turn": 1}
    steps = [(s.metadata["step"], s.next) for s in g.get_state_history(_cfg())]
    assert steps == [(4, ()), (3, ("supervisor",)), (2, ("agent_b",)), (1, ("agent_a",)), (0, ("supervisor",)), (-1, ("__start__",))]
    updates = list(g.stream({"log": ["hi"]}, _cfg("s"), stream_mode="updates"))
    assert [next(iter(u)) for u in updates] == ["supervisor", "agent_a", "agent_b", "supervisor"]
    assert updates[1] == {"agent_a": {"log": ["a hands off to b"]}}


def test_command_parent_from_the_root_graph_raises_parent_command() -> None:
    from engine.errors import GraphBubbleUp, ParentCommand

    b = StateGraph(Team)
    b.add_node("n", lambda s: Command(graph=Command.PARENT, goto="n"))
    b.add_edge(START, "n")
    with pytest.raises(ParentCommand) as raised:
        b.compile().invoke({"log": []})
    assert isinstance(raised.value, GraphBubbleUp)


def test_a_node_function_calling_a_subgraph_names_its_namespace_and_exit_keeps_no_subgraph_version() -> None:
    """As LangGraph: the called graph counts as the node's subgraph (get_state's task state, the checkpoints
    stream's tasks, under its namespace); with durability "exit" a subgraph that finished stores nothing."""
    sub = _sub()

    def calls(state: Parent) -> dict:
        out = sub.invoke({"x": state["x"], "log": []})
        return {"x": out["x"]}

    b = StateGraph(Parent)
    b.add_node("calls", calls)
    b.add_edge(START, "calls")
    saver = InMemorySaver()
    app = b.compile(checkpointer=saver, interrupt_before=["calls"])
    chunks = list(app.stream({"x": 1, "log": []}, _cfg(), stream_mode="checkpoints"))
    task = chunks[-1]["tasks"][0]
    assert task["name"] == "calls" and task["state"] == {"configurable": {"thread_id": "t", "checkpoint_ns": f"calls:{task['id']}"}}
    assert app.get_state(_cfg()).tasks[0].state == task["state"]
    chunks = list(app.stream(None, _cfg(), stream_mode="checkpoints", subgraphs=True))
    assert {ns for ns, _ in chunks} == {(), (f"calls:{task['id']}",)}
    inner = [c for ns, c in chunks if ns]
    assert inner and all(c["config"]["configurable"]["checkpoint_ns"] == f"calls:{task['id']}" for c in inner)
    app.invoke({"x": 5, "log": []}, _cfg("exit"), durability="exit")
    assert {t.config["configurable"]["checkpoint_ns"] for t in saver.list(_cfg("exit"))} == {""}
