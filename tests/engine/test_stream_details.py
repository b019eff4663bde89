"""Stream modes as LangGraph 1.2.22 yields them (issue 14 items 7, 8).

tests/sidebyside: checkpoints_stream.py, stream_defaults.py, live_state.py.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from engine import START, Command, Interrupt, StateGraph, interrupt
from engine.testing import thread


class S(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def ask(state: S) -> dict:
    return {"log": ["ask:" + interrupt("q")]}


def graph(checkpointer):
    """a → (p, ask) in parallel."""
    g = StateGraph(S)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_node("p", lambda s: {"log": ["p"]})
    g.add_node("ask", ask)
    g.add_edge(START, "a")
    g.add_edge("a", "p")
    g.add_edge("a", "ask")
    return g.compile(checkpointer=checkpointer)


def ids(chunks):
    return [c["config"]["configurable"]["checkpoint_id"] for c in chunks]


# -- item 7 ---------------------------------------------------------------------------
def test_checkpoint_chunks_carry_the_tasks_due(checkpointer):
    app = graph(checkpointer)
    chunks = list(app.stream({"x": 1, "log": []}, thread(), stream_mode="checkpoints"))
    assert [c["next"] for c in chunks] == [["__start__"], ["a"], ["ask", "p"]]  # a run's task order: by name
    assert [[(t["name"], t["interrupts"], t["state"]) for t in c["tasks"]] for c in chunks] == [
        [("__start__", (), None)], [("a", (), None)], [("ask", (), None), ("p", (), None)],
    ]  # fmt: skip
    assert set(chunks[0]) == {"config", "parent_config", "values", "metadata", "next", "tasks"}
    assert ids(chunks) == [h.config["configurable"]["checkpoint_id"] for h in reversed(list(app.get_state_history(thread())))]


def test_a_continuing_run_first_yields_the_version_it_continues(checkpointer):
    app = graph(checkpointer)
    app.invoke({"x": 1, "log": []}, thread())
    head = app.get_state(thread()).config["configurable"]["checkpoint_id"]
    chunks = list(app.stream(Command(resume="y"), thread(), stream_mode="checkpoints"))
    assert ids(chunks)[0] == head and len(chunks) == 2
    ask_task, p_task = chunks[0]["tasks"]
    assert p_task["result"] == {"log": ["p"]}  # finished in the interrupted call
    assert [i["value"] for i in ask_task["interrupts"]] == ["q"] and "result" not in ask_task
    assert chunks[1]["next"] == [] and chunks[1]["values"]["log"] == ["ask:y", "p"]


def test_debug_mode_wraps_checkpoints_and_tasks(checkpointer):
    app = graph(checkpointer)
    debug = list(app.stream({"x": 1, "log": []}, thread(), stream_mode="debug"))
    assert [(d["type"], d["step"]) for d in debug][:4] == [("checkpoint", -1), ("checkpoint", 0), ("task", 1), ("task_result", 1)]
    assert debug[0]["payload"]["tasks"][0]["name"] == "__start__"


def test_with_exit_durability_each_chunks_parent_is_the_last_saved_version(checkpointer):
    app = graph(checkpointer)
    app.invoke({"x": 1, "log": []}, thread())
    app.invoke(Command(resume="y"), thread())
    head = app.get_state(thread()).config["configurable"]["checkpoint_id"]
    chunks = list(app.stream({"x": 5, "log": []}, thread(), stream_mode="checkpoints", durability="exit"))
    assert {c["parent_config"]["configurable"]["checkpoint_id"] for c in chunks} == {head}
    saved = app.get_state(thread())
    assert saved.config["configurable"]["checkpoint_id"] == ids(chunks)[-1]
    assert saved.parent_config["configurable"]["checkpoint_id"] == head


def test_no_checkpointer_no_checkpoint_chunks():
    assert list(graph(None).stream({"x": 1, "log": []}, stream_mode="checkpoints")) == []


# -- item 8 ---------------------------------------------------------------------------
def test_stream_yields_updates_by_default_and_interrupts_as_they_happen(checkpointer):
    app = graph(checkpointer)
    chunks = list(app.stream({"x": 1, "log": []}, thread()))
    assert chunks[0] == {"a": {"x": 2}}
    assert {"p": {"log": ["p"]}} in chunks
    [intr] = [c for c in chunks if "__interrupt__" in c]
    assert isinstance(intr["__interrupt__"][0], Interrupt) and intr["__interrupt__"][0].value == "q"


def test_invoke_honours_stream_mode(checkpointer):
    app = graph(checkpointer)
    updates = app.invoke({"x": 1, "log": []}, thread("u"), stream_mode="updates")
    assert isinstance(updates, list) and updates[0] == {"a": {"x": 2}}
    both = app.invoke({"x": 1, "log": []}, thread("b"), stream_mode=["updates", "values"])
    assert both[0] == ("values", {"x": 1, "log": []}) and ("updates", {"a": {"x": 2}}) in both
    assert app.invoke({"x": 1, "log": []}, thread("v"), stream_mode="values")["log"] == ["p"]


def test_the_tasks_mode_gives_an_interrupted_task_an_empty_result(checkpointer):
    app = graph(checkpointer)
    results = [t for t in app.stream({"x": 1, "log": []}, thread(), stream_mode="tasks") if "result" in t]
    asked = next(t for t in results if t["name"] == "ask")
    assert asked["result"] == {} and asked["error"] is None
    assert [(i["value"], sorted(i)) for i in asked["interrupts"]] == [("q", ["id", "response_schema", "value"])]


def test_values_at_an_interrupt_then_the_finished_siblings_applied(checkpointer):
    app = graph(checkpointer)
    values = list(app.stream({"x": 1, "log": []}, thread(), stream_mode="values"))
    assert values[-2]["__interrupt__"][0].value == "q" and values[-2]["log"] == []
    assert values[-1] == {"x": 2, "log": ["p"]}


def test_a_cached_task_update_says_so(checkpointer):
    app = graph(checkpointer)
    app.invoke({"x": 1, "log": []}, thread())
    chunks = list(app.stream(Command(resume="y"), thread(), stream_mode="updates"))
    assert {"p": {"log": ["p"]}, "__metadata__": {"cached": True}} in chunks
