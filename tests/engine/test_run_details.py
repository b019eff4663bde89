"""Details of the run model, each as observed on LangGraph 1.2.22 (issue 14).

Every test runs on the three savers; tests/sidebyside has the same programs
run on LangGraph itself.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from engine import END, START, Command, Send, StateGraph, interrupt
from engine.errors import GraphRecursionError, InvalidRouteError, InvalidUpdateError
from engine.testing import history_summary, thread


class X(TypedDict):
    x: int


class Log(TypedDict):
    log: Annotated[list, operator.add]


def chain_ab(checkpointer, **kw):
    g = StateGraph(X)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_node("b", lambda s: {"x": s["x"] * 2})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    return g.compile(checkpointer=checkpointer, **kw)


# -- item 2: metadata ----------------------------------------------------------
def test_metadata_keeps_a_callers_run_id_and_a_host_reads_the_run_beside_it(checkpointer):
    """As LangGraph: the metadata holds the caller's keys (its run_id too) and no run id of the engine's;
    the run that wrote each version is recorded beside it, and a host (the server) reads it with run_ids=True."""
    app = chain_ab(checkpointer)
    cfg = thread(metadata={"user": "ann", "run_id": "mine"})
    app.invoke({"x": 1}, cfg)
    metas = [s.metadata for s in app.get_state_history(thread())]
    assert {m["run_id"] for m in metas} == {"mine"}
    assert all(m["user"] == "ann" and set(m) == {"source", "step", "parents", "user", "run_id"} for m in metas)
    app.invoke({"x": 1}, thread("other"))
    assert all(set(s.metadata) == {"source", "step", "parents"} for s in app.get_state_history(thread("other")))
    assert set(app.get_state(thread("other")).metadata) == {"source", "step", "parents"}
    assert all(set(t.metadata) == {"source", "step", "parents"} for t in checkpointer.list(thread("other")))  # the saver's own reads too
    assert "run_id" not in app.get_state(thread("other"), run_ids=True).metadata  # not kept: nothing to show
    checkpointer.keeps_run_ids = True  # a host's saver (engine.host.ScopedSaver sets it)
    [run_id] = {s.metadata["run_id"] for s in app.get_state_history(thread("other"), run_ids=True)}
    assert run_id and run_id != "mine"
    assert app.get_state(thread("other"), run_ids=True).metadata["run_id"] == run_id
    chunks = list(app.stream({"x": 1}, thread("third"), stream_mode="checkpoints"))
    assert chunks and all("run_id" not in c["metadata"] and not any(k.startswith("__") for k in c["metadata"]) for c in chunks)


def test_the_runs_id_is_the_callers_metadata_run_id(checkpointer):
    app = chain_ab(checkpointer)
    events = list(_events(app, {"x": 1}, thread(metadata={"run_id": "r-7"})))
    assert events[0].run_id == "r-7"


def _events(app, inp, cfg):
    from engine._internal._sync import iter_sync

    return iter_sync(app.aevents(inp, cfg))


# -- item 6: history of one version --------------------------------------------
def test_history_naming_a_checkpoint_returns_only_it(checkpointer):
    app = chain_ab(checkpointer)
    app.invoke({"x": 1}, thread())
    full = list(app.get_state_history(thread()))
    middle = full[1].config
    named = list(app.get_state_history(middle))
    assert [s.config["configurable"]["checkpoint_id"] for s in named] == [middle["configurable"]["checkpoint_id"]]
    assert list(app.get_state_history(middle, limit=5)) == named
    older = list(app.get_state_history(thread(), before=middle))
    assert [s.metadata["step"] for s in older] == [0, -1]


@pytest.mark.parametrize("config", [{}, {"configurable": {}}, {"configurable": {"checkpoint_id": "x"}}])
def test_history_without_a_thread_id_raises_key_error(checkpointer, config):
    app = chain_ab(checkpointer)
    app.invoke({"x": 1}, thread())
    with pytest.raises(KeyError):
        list(app.get_state_history(config))


# -- item 9: reducer keys read as empty ------------------------------------------
class Partial(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]
    total: Annotated[int, operator.add]


def test_a_node_reads_never_written_reducer_keys_as_empty(checkpointer):
    seen = []

    def a(state):
        seen.append({k: list(v) if isinstance(v, list) else v for k, v in state.items()})
        state["log"].append("mutated")  # a fresh value per read: the next read still gets []
        return {"log": [len(state["log"])]}

    g = StateGraph(Partial)
    g.add_node("a", a)
    g.add_edge(START, "a")
    app = g.compile(checkpointer=checkpointer)
    assert app.invoke({"x": 1}, thread()) == {"x": 1, "log": [1], "total": 0}
    assert app.invoke({}, thread("empty")) == {"log": [1], "total": 0}
    assert seen == [{"x": 1, "log": [], "total": 0}, {"log": [], "total": 0}]


# -- item 10: "*" breakpoints skip START ------------------------------------------
def test_interrupt_before_star_stops_before_the_first_real_node(checkpointer):
    app = chain_ab(checkpointer, interrupt_before="*")
    assert app.invoke({"x": 1}, thread()) == {"x": 1}
    assert app.get_state(thread()).next == ("a",)
    assert app.invoke(None, thread()) == {"x": 2}
    assert app.invoke(None, thread()) == {"x": 4}
    assert history_summary(app, thread()) == [
        ("loop", 2, ()), ("loop", 1, ("b",)), ("loop", 0, ("a",)), ("input", -1, ("__start__",)),
    ]  # fmt: skip


def test_interrupt_after_star_skips_the_input_step(checkpointer):
    app = chain_ab(checkpointer, interrupt_after="*")
    assert app.invoke({"x": 1}, thread()) == {"x": 2}
    assert app.get_state(thread()).next == ("b",)
    assert app.invoke(None, thread()) == {"x": 4}


# -- item 11: the recursion limit of a continuing call ------------------------------
def looping(checkpointer, **kw):
    g = StateGraph(TypedDict("N", {"n": int}))
    g.add_node("inc", lambda s: {"n": s["n"] + 1})
    g.add_conditional_edges("inc", lambda s: "inc" if s["n"] < 100 else END)
    g.add_edge(START, "inc")
    return g.compile(checkpointer=checkpointer, **kw)


def test_new_input_gets_limit_node_steps_and_continuing_gets_two_more(checkpointer):
    app = looping(checkpointer)
    cfg = thread(recursion_limit=3)
    with pytest.raises(GraphRecursionError):
        app.invoke({"n": 0}, cfg)
    assert app.get_state(cfg).values == {"n": 3}
    with pytest.raises(GraphRecursionError):
        app.invoke(None, cfg)
    assert app.get_state(cfg).values == {"n": 8}
    with pytest.raises(GraphRecursionError):
        app.invoke({"n": 0}, cfg)
    assert app.get_state(cfg).values == {"n": 3}


def test_a_limit_is_counted_from_the_version_a_call_starts_from(checkpointer):
    app = looping(checkpointer, interrupt_before=["inc"])
    cfg = thread(recursion_limit=2)
    assert app.invoke({"n": 0}, cfg) == {"n": 0}
    assert [app.invoke(None, cfg) for _ in range(3)] == [{"n": 1}, {"n": 2}, {"n": 3}]


# -- item 12: update_state(None, as_node=END) -----------------------------------------
def asking(checkpointer):
    g = StateGraph(X)
    g.add_node("ask", lambda s: {"x": interrupt("q")})
    g.add_edge(START, "ask")
    return g.compile(checkpointer=checkpointer)


def test_update_state_none_as_end_cancels_a_pending_interrupt(checkpointer):
    app = asking(checkpointer)
    app.invoke({"x": 1}, thread())
    cfg = app.update_state(thread(), None, as_node=END)
    state = app.get_state(thread())
    assert state.config["configurable"]["checkpoint_id"] == cfg["configurable"]["checkpoint_id"]
    assert (state.values, state.next, state.tasks, state.interrupts) == ({"x": 1}, (), (), ())
    assert (state.metadata["source"], state.metadata["step"]) == ("update", 1)
    assert app.invoke(Command(resume=5), thread()) == {"x": 1}  # nothing is pending: it runs on, as LangGraph
    with pytest.raises(InvalidUpdateError):
        app.update_state(thread(), {"x": 9}, as_node=END)


def test_ending_a_step_keeps_what_its_finished_tasks_wrote(checkpointer):
    g = StateGraph(Log)
    g.add_node("p", lambda s: {"log": ["p"]})
    g.add_node("ask", lambda s: {"log": [interrupt("q")]})
    g.add_edge(START, "p")
    g.add_edge(START, "ask")
    app = g.compile(checkpointer=checkpointer)
    app.invoke({"log": []}, thread())
    app.update_state(thread(), None, as_node=END)
    state = app.get_state(thread())
    assert (state.values, state.next) == ({"log": ["p"]}, ())


def test_update_state_none_as_end_on_a_new_thread(checkpointer):
    app = asking(checkpointer)
    app.update_state(thread("fresh"), None, as_node=END)
    state = app.get_state(thread("fresh"))
    assert (state.values, state.next, state.metadata["step"]) == ({}, (), 0)


# -- item 13: routes to nowhere ----------------------------------------------------------
def routed(checkpointer, route, path_map=None):
    g = StateGraph(X)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_node("b", lambda s: {"x": s["x"] * 2})
    g.add_edge(START, "a")
    g.add_conditional_edges("a", route, path_map)
    g.add_edge("b", END)
    return g.compile(checkpointer=checkpointer)


@pytest.mark.parametrize("route", [lambda s: "nowhere", lambda s: 42, lambda s: [Send("nowhere", s), END]])
def test_a_route_to_no_node_leads_nowhere(checkpointer, route, caplog):
    app = routed(checkpointer, route)
    assert app.invoke({"x": 1}, thread()) == {"x": 2}
    assert app.get_state(thread()).next == ()
    assert "unknown node" in caplog.text


def test_a_goto_to_no_node_leads_nowhere(checkpointer):
    g = StateGraph(X)
    g.add_node("a", lambda s: Command(update={"x": 5}, goto=["nowhere", Send("nor-here", {})]))
    g.add_edge(START, "a")
    app = g.compile(checkpointer=checkpointer)
    assert app.invoke({"x": 1}, thread()) == {"x": 5}


@pytest.mark.parametrize("path_map", [{"go": "b", "stop": END}, ["b", END]])
def test_a_route_missing_from_the_path_map_is_a_key_error(checkpointer, path_map):
    app = routed(checkpointer, lambda s: "nowhere", path_map)
    with pytest.raises(KeyError) as caught:
        app.invoke({"x": 1}, thread())
    assert isinstance(caught.value, InvalidRouteError) and isinstance(caught.value, InvalidUpdateError)
    assert str(caught.value).startswith("conditional edge from 'a' returned 'nowhere', which is not in its path_map")


# -- item 14: LangGraph's exception bases ------------------------------------------------
def test_refused_resumes_are_runtime_errors(checkpointer):
    g = StateGraph(Log)
    g.add_node("p", lambda s: {"log": [interrupt("p?")]})
    g.add_node("q", lambda s: {"log": [interrupt("q?")]})
    g.add_edge(START, "p")
    g.add_edge(START, "q")
    app = g.compile(checkpointer=checkpointer)
    app.invoke({"log": []}, thread())
    with pytest.raises(RuntimeError, match="multiple pending interrupts, you must specify the interrupt id"):
        app.invoke(Command(resume="plain"), thread())
    with pytest.raises(RuntimeError):
        g.compile().invoke(Command(resume="x"))
