"""Issue 18 item 4: ``add_node(defer=True)``: a node that runs only when nothing else is left to run.

As LangGraph 1.2.22 (tests/sidebyside/defer.py prints both): the fan-in of
branches of different lengths runs once, after the longest; a join edge into
a deferred node waits for its sources and for the end; an interrupt in a
branch holds the deferred node back until the resume finishes it; pending
``Send`` tasks do not hold it back (LangGraph counts only node triggers).
The deferred trigger is stored with the version, so a run continued from a
saved version (on every saver) still runs it once.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine.graph import END, START, StateGraph
from engine.types import Command, Send, interrupt


class S(TypedDict, total=False):
    log: Annotated[list, operator.add]


def _step(name: str) -> Any:
    def node(state: S) -> dict[str, Any]:
        return {"log": [name]}

    return node


def _thread(t: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": t}}


def _branches(checkpointer: Any, *, defer: bool = True, join: bool = False) -> Any:
    b = StateGraph(S)
    for n in ["a", "b1", "b2"]:
        b.add_node(n, _step(n))
    b.add_node("agg", _step("agg"), defer=defer)
    b.add_edge(START, "a").add_edge(START, "b1").add_edge("b1", "b2")
    if join:
        b.add_edge(["a", "b2"], "agg")
    else:
        b.add_edge("a", "agg").add_edge("b2", "agg")
    b.add_edge("agg", END)
    return b.compile(checkpointer=checkpointer)


def test_a_deferred_fan_in_runs_once_after_the_longest_branch(checkpointer):
    app = _branches(checkpointer)
    assert app.invoke({"log": []}, _thread("t")) == {"log": ["a", "b1", "b2", "agg"]}
    steps = [(s.metadata["step"], s.next) for s in app.get_state_history(_thread("t"))]
    # As LangGraph: the waiting deferred node is not "next" until it is due.
    assert steps == [(3, ()), (2, ("agg",)), (1, ("b2",)), (0, ("a", "b1")), (-1, ("__start__",))]
    assert _branches(checkpointer, defer=False).invoke({"log": []}, _thread("u")) == {"log": ["a", "b1", "agg", "b2", "agg"]}


def test_a_join_edge_into_a_deferred_node(checkpointer):
    app = _branches(checkpointer, join=True)
    assert app.invoke({"log": []}, _thread("j")) == {"log": ["a", "b1", "b2", "agg"]}


def test_an_interrupt_in_a_branch_holds_it_back_until_the_resume(checkpointer):
    def ask(state: S) -> dict[str, Any]:
        return {"log": [interrupt("ok?")]}

    b = StateGraph(S).add_node("a", _step("a")).add_node("ask", ask).add_node("agg", _step("agg"), defer=True)
    b.add_edge(START, "a").add_edge(START, "ask").add_edge("a", "agg").add_edge("ask", "agg")
    app = b.compile(checkpointer=checkpointer)
    out = app.invoke({"log": []}, _thread("p"))
    assert out["log"] == ["a"] and app.get_state(_thread("p")).next == ("ask",)
    assert app.invoke(Command(resume="yes"), _thread("p")) == {"log": ["a", "yes", "agg"]}


def test_a_saved_deferred_trigger_survives_a_continued_run(checkpointer):
    app = _branches(checkpointer)
    app.invoke({"log": []}, _thread("c"), interrupt_after=["b1"])  # stop with agg's trigger written, not finished
    assert app.get_state(_thread("c")).next == ("b2",)
    assert app.invoke(None, _thread("c")) == {"log": ["a", "b1", "b2", "agg"]}


def test_pending_sends_do_not_hold_a_deferred_node_back(checkpointer):
    """LangGraph's rule, kept: only node triggers count, so a Send-only step lets the deferred node run."""

    def work(arg: dict[str, int]) -> Command:
        n = arg["item"]
        if n > 1:
            return Command(update={"log": [f"w{n}"]}, goto=Send("work", {"item": n - 1}))
        return Command(update={"log": [f"w{n}"]}, goto="reduce")

    b = StateGraph(S).add_node("work", work).add_node("reduce", _step("reduce"), defer=True)
    b.add_conditional_edges(START, lambda s: [Send("work", {"item": 2}), Send("work", {"item": 1})], ["work"])
    app = b.compile(checkpointer=checkpointer)
    assert app.invoke({"log": []}, _thread("m")) == {"log": ["w2", "w1", "reduce", "w1", "reduce"]}
