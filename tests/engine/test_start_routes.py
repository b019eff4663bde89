"""START with routers: the path START's task takes through the node machinery.

START's task without routers writes the input and nothing else (NodeSpec.bare);
with conditional edges or Sends from START it runs its routers. Every
expectation was observed on LangGraph 1.2.22 running the same program
(tests/sidebyside/start_router_command.py prints ``same``).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine.graph import END, START, StateGraph
from engine.types import Command, Send, interrupt


class State(TypedDict):
    topic: str
    log: Annotated[list, operator.add]


def _routed(checkpointer: Any) -> Any:
    def route(state: State) -> str:
        return "ask" if state["topic"] == "ask" else ("short" if len(state["topic"]) < 5 else "long")

    def ask(state: State) -> dict:
        return {"log": ["ask:" + interrupt(f"about {state['topic']}?")]}

    b = StateGraph(State)
    b.add_node("short", lambda s: {"log": [f"short {s['topic']}"]})
    b.add_node("long", lambda s: {"log": [f"long {s['topic']}"]})
    b.add_node("ask", ask)
    b.add_conditional_edges(START, route, {"short": "short", "long": "long", "ask": "ask"})
    for n in ["short", "long", "ask"]:
        b.add_edge(n, END)
    return b.compile(checkpointer=checkpointer)


def test_a_router_from_start_with_input_commands_and_resumes(checkpointer):
    app, cfg = _routed(checkpointer), {"configurable": {"thread_id": "t"}}
    assert app.invoke({"topic": "cat", "log": []}, cfg)["log"] == ["short cat"]
    assert app.invoke({"topic": "elephant"}, cfg)["log"][-1] == "long elephant"
    assert list(app.stream({"topic": "dog"}, cfg, stream_mode="updates")) == [{"short": {"log": ["short dog"]}}]
    # A Command continues the thread's version: START's router is not taken.
    assert app.invoke(Command(update={"topic": "zebra"}, goto="long"), cfg)["log"][-1] == "long zebra"
    assert app.invoke(Command(update={"log": ["u"]}), cfg)["log"][-1] == "u"
    asked = app.invoke({"topic": "ask"}, cfg)
    assert [i.value for i in asked["__interrupt__"]] == ["about ask?"]
    assert app.invoke(Command(resume="yes"), cfg)["log"][-1] == "ask:yes"
    app.invoke({"topic": "ask"}, cfg)
    assert app.invoke(Command(resume="no", update={"topic": "later"}), cfg) == {
        "topic": "later", "log": ["short cat", "long elephant", "short dog", "long zebra", "u", "ask:yes", "ask:no"]}
    sources = [(s.metadata["source"], s.metadata["step"], s.next) for s in app.get_state_history(cfg)][:4]
    assert sources == [("loop", 14, ()), ("loop", 13, ("ask",)), ("input", 12, ("__start__",)), ("loop", 11, ())]


def test_input_a_start_router_cannot_read_is_the_routers_error(checkpointer):
    with pytest.raises(KeyError):
        _routed(checkpointer).invoke({"nope": 1}, {"configurable": {"thread_id": "bad"}})


def test_sends_from_start(checkpointer):
    b = StateGraph(State)
    b.add_node("each", lambda st: {"log": [st["topic"].upper()]})
    b.add_conditional_edges(START, lambda s: [Send("each", {"topic": t, "log": []}) for t in s["topic"].split()], ["each"])
    b.add_edge("each", END)
    app, cfg = b.compile(checkpointer=checkpointer), {"configurable": {"thread_id": "s"}}
    assert app.invoke({"topic": "a b c", "log": []}, cfg) == {"topic": "a b c", "log": ["A", "B", "C"]}
    assert app.invoke({"topic": "d e"}, cfg)["log"] == ["A", "B", "C", "D", "E"]
    assert b.compile().invoke({"topic": "x y", "log": []}) == {"topic": "x y", "log": ["X", "Y"]}
    chunks = list(b.compile().stream({"topic": "p q", "log": []}, stream_mode=["updates", "tasks"]))
    assert [c[1] for c in chunks if c[0] == "updates"] == [{"each": {"log": ["P"]}}, {"each": {"log": ["Q"]}}]
    assert [c[1]["triggers"] for c in chunks if c[0] == "tasks" and "input" in c[1]] == [("__pregel_push",)] * 2
