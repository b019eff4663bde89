"""interrupt(), resume, static breakpoints."""

from __future__ import annotations

import asyncio

import operator
from typing import Annotated, TypedDict

import pytest

from engine import END, START, Command, Interrupt, StateGraph, interrupt
from engine.errors import InvalidResumeError
from engine.checkpoint import InMemorySaver
from engine.testing import history_summary, thread


class X(TypedDict):
    x: int


class Log(TypedDict):
    log: Annotated[list, operator.add]


def asking_graph(checkpointer, calls):
    def ask(s):
        calls.append("before")
        answer = interrupt("q?")
        calls.append(("after", answer))
        return {"x": s["x"] + len(answer)}

    g = StateGraph(X)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    g.add_edge("ask", END)
    return g.compile(checkpointer=checkpointer)


def test_interrupt_stops_without_a_version_and_resume_runs_the_node_again(checkpointer):
    calls: list = []
    app = asking_graph(checkpointer, calls)
    out = app.invoke({"x": 1}, thread())
    assert out["x"] == 1
    [intr] = out["__interrupt__"]
    assert isinstance(intr, Interrupt) and intr.value == "q?" and intr.id
    state = app.get_state(thread())
    assert state.next == ("ask",)
    assert state.tasks[0].interrupts == (intr,)
    assert state.interrupts == (intr,)
    assert history_summary(app, thread()) == [("loop", 0, ("ask",)), ("input", -1, ("__start__",))]

    assert app.invoke(Command(resume="yes"), thread()) == {"x": 4}
    # code before interrupt() ran twice; the resume wrote no version of its own
    assert calls == ["before", "before", ("after", "yes")]
    assert history_summary(app, thread()) == [("loop", 1, ()), ("loop", 0, ("ask",)), ("input", -1, ("__start__",))]


def test_several_interrupts_in_one_node_match_answers_by_order(checkpointer):
    got = []

    def node(s):
        a = interrupt("q1")
        got.append(a)
        b = interrupt("q2")
        got.append(b)
        return {"x": len(a) + len(b)}

    g = StateGraph(X)
    g.add_node("n", node)
    g.add_edge(START, "n")
    app = g.compile(checkpointer=checkpointer)
    first = app.invoke({"x": 0}, thread())["__interrupt__"][0]
    second = app.invoke(Command(resume="A"), thread())["__interrupt__"][0]
    assert (first.value, second.value) == ("q1", "q2") and first.id != second.id
    assert app.invoke(Command(resume="BB"), thread()) == {"x": 3}
    assert got == ["A", "A", "BB"]
    assert len(list(app.get_state_history(thread()))) == 3


def test_parallel_interrupts_resume_by_id_map(checkpointer):
    g = StateGraph(Log)
    g.add_node("p", lambda s: {"log": ["p:" + interrupt("q-p")]})
    g.add_node("q", lambda s: {"log": ["q:" + interrupt("q-q")]})
    g.add_edge(START, "p")
    g.add_edge(START, "q")
    app = g.compile(checkpointer=checkpointer)
    ints = app.invoke({"log": []}, thread())["__interrupt__"]
    assert [i.value for i in ints] == ["q-p", "q-q"]
    with pytest.raises(InvalidResumeError, match="multiple pending interrupts, you must specify the interrupt id"):
        app.invoke(Command(resume="plain"), thread())
    by_value = {i.value: i.id for i in ints}
    out = app.invoke(Command(resume={by_value["q-p"]: "A", by_value["q-q"]: "B"}), thread())
    assert out == {"log": ["p:A", "q:B"]}


def test_a_subgraph_waiting_on_two_parallel_questions_needs_answers_by_id(checkpointer):
    """As LangGraph 1.2.22: two pending questions under one parent task are ambiguous to a bare answer."""
    child = StateGraph(Log)
    child.add_node("a", lambda s: {"log": ["a:" + interrupt("A")]})
    child.add_node("b", lambda s: {"log": ["b:" + interrupt("B")]})
    child.add_edge(START, "a")
    child.add_edge(START, "b")
    g = StateGraph(Log)
    g.add_node("child", child.compile())
    g.add_edge(START, "child")
    app = g.compile(checkpointer=checkpointer)
    ints = app.invoke({"log": []}, thread())["__interrupt__"]
    assert sorted(i.value for i in ints) == ["A", "B"]
    with pytest.raises(InvalidResumeError, match="multiple pending interrupts"):
        app.invoke(Command(resume="ambiguous"), thread())
    by_value = {i.value: i.id for i in ints}
    out = app.invoke(Command(resume={by_value["A"]: "x", by_value["B"]: "y"}), thread())
    assert sorted(out["log"]) == ["a:x", "b:y"]


def two_questions(checkpointer, runs):
    """ask → ask2, each asking one question (as LangGraph's resume-map checks use)."""

    def ask(s):
        return {"log": ["ask:" + interrupt("q1")]}

    def ask2(s):
        runs.append("ask2")
        return {"log": ["ask2:" + interrupt("q2")]}

    g = StateGraph(Log)
    g.add_node("ask", ask)
    g.add_node("ask2", ask2)
    g.add_edge(START, "ask")
    g.add_edge("ask", "ask2")
    g.add_edge("ask2", END)
    return g.compile(checkpointer=checkpointer)


def test_a_resume_map_naming_no_pending_interrupt_leaves_it_pending(checkpointer):
    # LangGraph 1.2: a dict whose keys all look like interrupt ids is a map of
    # answers, never one plain answer; an id not pending answers nothing, so the
    # waiting node runs again and asks again (no version is written).
    runs: list = []
    app = two_questions(checkpointer, runs)
    old = app.invoke({"log": []}, thread())["__interrupt__"][0]
    new = app.invoke(Command(resume={old.id: "A"}), thread())["__interrupt__"][0]
    versions = len(list(app.get_state_history(thread())))
    runs.clear()
    out = app.invoke(Command(resume={old.id: "stale"}), thread())
    assert out == {"log": ["ask:A"], "__interrupt__": [new]}
    assert runs == ["ask2"]
    assert app.get_state(thread()).interrupts == (new,)
    assert len(list(app.get_state_history(thread()))) == versions
    # A stale id beside the pending one: the pending one is answered, the stale one ignored.
    assert app.invoke(Command(resume={old.id: "X", new.id: "Y"}), thread()) == {"log": ["ask:A", "ask2:Y"]}


def test_a_dict_answer_whose_keys_are_not_interrupt_ids_is_one_plain_answer(checkpointer):
    g = StateGraph(Log)
    g.add_node("ask", lambda s: {"log": [interrupt("q")]})
    g.add_edge(START, "ask")
    app = g.compile(checkpointer=checkpointer)
    app.invoke({"log": []}, thread())
    assert app.invoke(Command(resume={"city": "Oslo"}), thread()) == {"log": [{"city": "Oslo"}]}


def test_resume_with_nothing_pending_runs_on_in_process_and_is_refused_for_a_host(checkpointer):
    # As LangGraph 1.2 (tests/sidebyside/inprocess_leniency.py): on a new thread the graph runs from
    # START with nothing written to its state; on a thread with nothing pending it runs on (here: to END).
    calls: list = []
    app = asking_graph(checkpointer, calls)
    app.invoke({"x": 1}, thread())
    done = app.invoke(Command(resume="y"), thread())
    versions = len(list(app.get_state_history(thread())))
    assert app.invoke(Command(resume="again"), thread()) == done
    assert len(list(app.get_state_history(thread()))) == versions  # nothing ran, nothing was written

    async def as_a_host(config: dict) -> None:  # the server's runs are strict: FAILED_PRECONDITION over the wire
        async for _ in app.aevents(Command(resume="x"), config, strict=True):
            pass

    with pytest.raises(InvalidResumeError, match="no pending interrupt"):
        asyncio.run(as_a_host(thread()))
    with pytest.raises(InvalidResumeError, match="does not exist"):
        asyncio.run(as_a_host(thread("new")))
    with pytest.raises(InvalidResumeError, match="without checkpointer"):
        asking_graph(None, calls).invoke(Command(resume="x"))


def test_new_input_on_a_waiting_thread_drops_the_interrupt(checkpointer):
    calls: list = []
    app = asking_graph(checkpointer, calls)
    old = app.invoke({"x": 1}, thread())["__interrupt__"][0]
    new = app.invoke({"x": 100}, thread())["__interrupt__"][0]
    assert new.id != old.id
    assert [s for s, *_ in history_summary(app, thread())] == ["loop", "input", "loop", "input"]
    assert app.invoke(Command(resume="ok"), thread()) == {"x": 102}


def chain_abc(checkpointer, **kw):
    g = StateGraph(X)
    g.add_sequence([("a", lambda s: {"x": s["x"] + 1}), ("b", lambda s: {"x": s["x"] + 1}), ("c", lambda s: {"x": s["x"] + 1})])
    g.add_edge(START, "a")
    return g.compile(checkpointer=checkpointer, **kw)


def test_interrupt_before_stops_and_none_continues(checkpointer):
    app = chain_abc(checkpointer, interrupt_before=["b"])
    assert app.invoke({"x": 0}, thread()) == {"x": 1}  # no __interrupt__ key for a static breakpoint
    assert app.get_state(thread()).next == ("b",)
    assert len(list(app.get_state_history(thread()))) == 3
    assert list(app.stream(None, thread(), stream_mode="updates")) == [{"b": {"x": 2}}, {"c": {"x": 3}}]


def test_interrupt_after_stops_after_the_node(checkpointer):
    app = chain_abc(checkpointer, interrupt_after=["a"])
    assert list(app.stream({"x": 0}, thread(), stream_mode="updates")) == [{"a": {"x": 1}}, {"__interrupt__": ()}]
    assert app.get_state(thread()).next == ("b",)
    assert app.invoke(None, thread()) == {"x": 3}


def test_breakpoint_works_without_a_checkpointer():
    assert chain_abc(None, interrupt_before=["b"]).invoke({"x": 0}) == {"x": 1}


def test_an_update_at_a_breakpoint_before_a_join_then_continuing_runs_the_join(checkpointer):
    """The update's version plans every node (as LangGraph's): the join, full before the update, still runs."""

    class Docs(TypedDict):
        docs: Annotated[list, operator.add]
        answer: str

    g = StateGraph(Docs)
    g.add_node("one", lambda s: {"docs": ["1"]})
    g.add_node("two", lambda s: {"docs": ["2"]})
    g.add_node("qa", lambda s: {"answer": ",".join(s["docs"])})
    g.add_edge(START, "one")
    g.add_edge(START, "two")
    g.add_edge(["one", "two"], "qa")
    app = g.compile(checkpointer=checkpointer, interrupt_before=["qa"])
    config = thread("join")
    app.invoke({"docs": []}, config)
    app.update_state(config, {"docs": ["5"]}, as_node="one")
    assert app.get_state(config).next == ("qa",)
    assert list(app.stream(None, config, stream_mode="updates")) == [{"qa": {"answer": "1,2,5"}}]


def test_a_router_at_start_reads_reducer_keys_never_written_as_empty():
    class Steps(TypedDict, total=False):
        input: str
        steps: Annotated[list, operator.add]

    def route(s: Steps) -> str:
        return "a" if s["steps"] == [] else END

    g = StateGraph(Steps)
    g.add_node("a", lambda s: {"steps": ["a"]})
    g.add_conditional_edges(START, route, ["a", END])
    assert g.compile().invoke({"input": "x"}) == {"input": "x", "steps": ["a"]}


def test_an_interrupts_response_schema_checks_the_answer_and_a_refused_one_can_be_given_again(checkpointer):
    import pydantic

    from engine.errors import is_invalid_resume

    class Decision(pydantic.BaseModel):
        approved: bool

    class Answer(TypedDict):
        answer: object

    def ask(s):
        return {"answer": interrupt("approve?", response_schema=Decision)}

    g = StateGraph(Answer)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    app = g.compile(checkpointer=checkpointer)
    config = thread("schema")
    (pending,) = app.invoke({"answer": None}, config)["__interrupt__"]
    assert pending.response_schema["properties"]["approved"]["type"] == "boolean"
    with pytest.raises(pydantic.ValidationError) as refused:
        app.invoke(Command(resume={"approved": "nope"}), config)
    assert is_invalid_resume(refused.value) and not is_invalid_resume(ValueError())
    waiting = app.get_state(config)
    assert waiting.interrupts[0].id == pending.id
    # as LangGraph's: the task shows the refusal beside its question, asked again
    assert waiting.tasks[0].interrupts[0].id == pending.id and "validation error for Decision" in waiting.tasks[0].error
    assert app.invoke(Command(resume={"approved": False}), config) == {"answer": Decision(approved=False)}


def test_a_single_answer_to_several_pending_interrupts_is_refused_in_langgraphs_words(checkpointer):
    def ask(s):
        return {"log": [interrupt("q?")]}

    g = StateGraph(Log)
    g.add_node("a", ask)
    g.add_node("b", ask)
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    app = g.compile(checkpointer=checkpointer)
    config = thread("several")
    app.invoke({"log": []}, config)
    with pytest.raises(RuntimeError, match="When there are multiple pending interrupts, you must specify the interrupt id"):
        app.invoke(Command(resume="one answer"), config)


def test_an_interrupt_takes_langgraphs_older_arguments_and_refuses_unknown_ones() -> None:
    from engine.types import Interrupt

    assert Interrupt("x").id == "placeholder-id"
    derived = Interrupt(value="abc", resumable=True, when="during", ns=["a:b", "c:d"])
    assert derived.id == Interrupt("other", ns=["a:b", "c:d"]).id != "placeholder-id"  # from ns alone
    assert Interrupt("v", "given", ns=["a:b"]).id == "given"
    with pytest.raises(TypeError, match="'bogus'"):
        Interrupt("v", bogus=1)


def test_breakpoints_set_by_langgraph_s_attribute_names_after_compile():
    class S(TypedDict):
        a: int

    g = StateGraph(S).add_node("one", lambda s: {"a": s["a"] + 1}).add_edge(START, "one").compile(checkpointer=InMemorySaver())
    assert g.interrupt_before_nodes == () and g.interrupt_after_nodes == ()
    g.interrupt_before_nodes = ["one"]
    cfg = {"configurable": {"thread_id": "t"}}
    assert g.invoke({"a": 1}, cfg) == {"a": 1}
    assert g.get_state(cfg).next == ("one",)
    g.interrupt_before_nodes, g.interrupt_after_nodes = [], "*"
    assert g.invoke(None, cfg) == {"a": 2}
    assert g.interrupt_after == "*"
