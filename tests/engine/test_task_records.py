"""What a step records about its tasks, and how snapshots read it (issue 14 items 1, 3, 4).

As LangGraph 1.2.22 (tests/sidebyside: task_results.py, live_state.py,
partial_resume.py): every finished task's writes are stored as pending writes
of the version its step started from, single-task steps included; a snapshot
reports each task's ``result``; ``get_state`` of a thread is the live view.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from engine import START, Command, StateGraph, interrupt
from engine.errors import InvalidUpdateError
from engine.pregel._spec import NO_WRITES
from engine.testing import thread


class S(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def ask(state: S) -> dict:
    return {"log": ["ask:" + interrupt("go on?")]}


def stepped(checkpointer):
    """a (x+1) → quiet (writes nothing) → p, ask in parallel."""
    g = StateGraph(S)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_node("quiet", lambda s: None)
    g.add_node("p", lambda s: {"log": ["p"]})
    g.add_node("ask", ask)
    g.add_edge(START, "a")
    g.add_edge("a", "quiet")
    g.add_edge("quiet", "p")
    g.add_edge("quiet", "ask")
    return g.compile(checkpointer=checkpointer)


def results(snapshot):
    return [(t.name, t.result) for t in snapshot.tasks]


# -- item 1 ---------------------------------------------------------------------------
def test_every_version_reports_its_tasks_results(checkpointer):
    app = stepped(checkpointer)
    app.invoke({"x": 1, "log": []}, thread())
    hist = list(app.get_state_history(thread()))
    assert [results(h) for h in hist] == [
        [("p", {"log": ["p"]}), ("ask", None)],  # the interrupted task has not finished
        [("quiet", {})],  # finished without writing: {}
        [("a", {"x": 2})],
        [("__start__", {"x": 1, "log": []})],
    ]
    app.invoke(Command(resume="yes"), thread())
    hist = list(app.get_state_history(thread()))
    assert results(hist[0]) == []
    assert results(hist[1]) == [("p", {"log": ["p"]}), ("ask", {"log": ["ask:yes"]})]
    # the record keeps the interrupt the task raised, answered since
    assert [i.value for i in hist[1].tasks[1].interrupts] == ["go on?"]


def test_a_single_task_step_stores_its_writes_with_the_next_version(checkpointer):
    app = stepped(checkpointer)
    app.invoke({"x": 1, "log": []}, thread())
    by_step = {t.metadata["step"]: t for t in checkpointer.list(thread())}
    assert len({w.task_id for w in by_step[1].pending_writes}) == 1  # quiet's
    assert {(w.channel, w.value) for w in by_step[1].pending_writes} == {("branch:to:p", None), ("branch:to:ask", None)}
    assert {w.channel for w in by_step[0].pending_writes} == {"x", "branch:to:quiet"}


def test_a_task_that_writes_nothing_records_that_it_finished(checkpointer):
    g = StateGraph(S)
    g.add_node("end_quietly", lambda s: None)
    g.add_edge(START, "end_quietly")
    app = g.compile(checkpointer=checkpointer)
    app.invoke({"x": 1, "log": []}, thread())
    step0 = next(t for t in checkpointer.list(thread()) if t.metadata["step"] == 0)
    assert [(w.channel, w.value) for w in step0.pending_writes] == [(NO_WRITES, None)]
    assert results(app.get_state(step0.config)) == [("end_quietly", {})]


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_results_are_stored_in_every_durability_that_stores_steps(checkpointer, durability):
    app = stepped(checkpointer)
    app.invoke({"x": 1, "log": []}, thread(), durability=durability)
    assert [results(h) for h in app.get_state_history(thread())][1:] == [[("quiet", {})], [("a", {"x": 2})], [("__start__", {"x": 1, "log": []})]]


# -- item 3 ---------------------------------------------------------------------------
def fan(checkpointer, second):
    g = StateGraph(S)
    g.add_node("p", lambda s: {"log": ["p"], "x": 5})
    g.add_node("second", second)
    g.add_edge(START, "p")
    g.add_edge(START, "second")
    return g.compile(checkpointer=checkpointer)


def boom(state):
    raise ValueError("boom")


def test_get_state_of_a_thread_is_live_and_a_named_version_is_the_record(checkpointer):
    app = fan(checkpointer, ask)
    out = app.invoke({"x": 1, "log": []}, thread())
    assert (out["x"], out["log"]) == (5, ["p"])  # invoke returns the finished sibling's writes applied
    live = app.get_state(thread())
    assert (live.values, live.next) == ({"x": 5, "log": ["p"]}, ("second",))
    assert results(live) == [("p", {"log": ["p"], "x": 5}), ("second", None)]
    assert [i.value for i in live.interrupts] == ["go on?"]
    record = app.get_state(live.config)
    assert (record.values, record.next) == ({"x": 1, "log": []}, ("p", "second"))
    assert results(record) == results(live)


def test_the_live_view_after_an_error(checkpointer):
    app = fan(checkpointer, boom)
    with pytest.raises(ValueError, match="boom"):
        app.invoke({"x": 1, "log": []}, thread())
    live = app.get_state(thread())
    assert (live.values, live.next) == ({"x": 5, "log": ["p"]}, ("second",))
    assert live.tasks[1].error == "ValueError('boom')" and live.tasks[1].result is None
    assert app.get_state(live.config).values == {"x": 1, "log": []}


def test_conflicting_pending_writes_raise_on_the_live_view_and_read_as_the_record(checkpointer):
    g = StateGraph(S)
    g.add_node("p", lambda s: {"x": 5})
    g.add_node("q", lambda s: {"x": 6})
    g.add_node("ask", ask)
    for n in ("p", "q", "ask"):
        g.add_edge(START, n)
    app = g.compile(checkpointer=checkpointer)
    with pytest.raises(Exception, match="x"):  # as LangGraph, the step cannot end: InvalidUpdateError
        app.invoke({"x": 1, "log": []}, thread())
    with pytest.raises(InvalidUpdateError, match="At key 'x': Can receive only one value per step"):
        app.get_state(thread())  # as LangGraph's: the live view applies the finished tasks' writes
    state = next(iter(app.get_state_history(thread())))  # the record reads
    assert (state.values, state.next) == ({"x": 1, "log": []}, ("p", "q", "ask"))
    assert [i.value for i in state.interrupts] == ["go on?"]
    assert app.get_state(state.config).values == {"x": 1, "log": []}  # as does the version named by its id


# -- item 4 ---------------------------------------------------------------------------
def test_answering_one_of_two_interrupts_finishes_that_task_only(checkpointer):
    runs: list[str] = []

    def asker(name):
        def node(state):
            runs.append(name)
            return {"log": [f"{name}:" + interrupt(f"q-{name}")]}

        return node

    g = StateGraph(S)
    g.add_node("p", asker("p"))
    g.add_node("q", asker("q"))
    g.add_edge(START, "p")
    g.add_edge(START, "q")
    app = g.compile(checkpointer=checkpointer)
    first = app.invoke({"x": 0, "log": []}, thread())["__interrupt__"][0]
    assert first.value == "q-p"
    out = app.invoke(Command(resume={first.id: "A"}), thread())
    assert out["log"] == ["p:A"] and [i.value for i in out["__interrupt__"]] == ["q-q"]
    state = app.get_state(thread())
    assert state.next == ("q",) and [i.value for i in state.interrupts] == ["q-q"]
    assert app.invoke(Command(resume="B"), thread()) == {"x": 0, "log": ["p:A", "q:B"]}
    assert runs == ["p", "q", "p", "q", "q"]  # p ran once more to take its answer, never again


# -- item 5 ---------------------------------------------------------------------------
def commanded(checkpointer):
    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": [f"b{s['x']}"]})
    g.add_node("ask", ask)
    g.add_edge(START, "a")
    for n in ("a", "b", "ask"):
        g.add_edge(n, "__end__")
    return g.compile(checkpointer=checkpointer)


def test_a_command_as_input_continues_the_threads_version(checkpointer):
    from engine import Send

    app = commanded(checkpointer)
    app.invoke({"x": 1, "log": []}, thread())
    assert app.invoke(Command(update={"x": 7}, goto="b"), thread()) == {"x": 7, "log": ["a", "b7"]}
    # no "input" version: the update and the goto are pending writes of the head, then b's step
    assert [h.metadata["source"] for h in app.get_state_history(thread())] == ["loop", "loop", "loop", "input"]
    # an update that triggers nothing writes no version; it stays pending on the head
    assert app.invoke(Command(update={"log": ["u"]}), thread()) == {"x": 7, "log": ["a", "b7", "u"]}
    assert len(list(app.get_state_history(thread()))) == 4
    assert app.get_state(thread()).values["log"] == ["a", "b7", "u"]
    assert app.invoke(Command(goto=Send("b", {"x": 9, "log": []})), thread())["log"] == ["a", "b7", "u", "b9"]


def test_a_resume_with_update_and_goto_runs_them_in_the_resumed_step(checkpointer):
    app = commanded(checkpointer)
    app.invoke({"x": 1, "log": []}, thread())
    assert "__interrupt__" in app.invoke(Command(goto="ask"), thread())
    out = app.invoke(Command(resume="R", update={"x": 3}, goto="b"), thread())
    assert out == {"x": 3, "log": ["a", "ask:R", "b3"]}
    [top, *_] = app.get_state_history(thread())
    assert (top.metadata["source"], top.metadata["step"]) == ("loop", 2)


def test_a_command_on_a_thread_with_no_state_is_input(checkpointer):
    app = commanded(checkpointer)
    assert app.invoke(Command(update={"x": 2, "log": ["u"]}), thread("fresh")) == {"x": 2, "log": ["u", "a"]}
    assert [h.metadata["source"] for h in app.get_state_history(thread("fresh"))] == ["loop", "loop", "input"]
