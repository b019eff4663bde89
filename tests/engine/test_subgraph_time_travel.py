"""Running the graph from one of a subgraph's versions (issue 29): time travel into a subgraph.

A config naming a subgraph's version (``checkpoint_ns`` and ``checkpoint_id``,
with the ``checkpoint_map`` ``get_state(subgraphs=True)`` gives) runs the
graph from the parent version that subgraph version belongs to (a fork of
it), and the subgraph, a ``checkpointer=True`` one, from the version named: it
asks its question again, nothing before it runs again. A per-invocation
subgraph's fork tasks have new ids, so it starts afresh. Every expectation
was observed on LangGraph 1.2.22 running the same program
(tests/sidebyside/subgraph_time_travel.py prints ``same``).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine.graph import START, StateGraph
from engine.types import Command, interrupt


class State(TypedDict):
    value: Annotated[list, operator.add]


def _build(checkpointer: Any, mode: Any, called: list) -> Any:
    def node(name: str, question: str | None = None) -> Any:
        def run(state: State) -> dict:
            called.append(name)
            if question is None:
                return {"value": [name]}
            return {"value": [f"{name}:{interrupt(question)}"]}

        return run

    sub = StateGraph(State)
    sub.add_node("step_a", node("step_a"))
    sub.add_node("ask_1", node("ask_1", "Question 1?"))
    sub.add_node("ask_2", node("ask_2", "Question 2?"))
    sub.add_edge(START, "step_a").add_edge("step_a", "ask_1").add_edge("ask_1", "ask_2")
    parent = StateGraph(State)
    parent.add_node("before", node("before"))
    parent.add_node("executor", sub.compile(checkpointer=mode))
    parent.add_node("after", node("after"))
    parent.add_edge(START, "before").add_edge("before", "executor").add_edge("executor", "after")
    return parent.compile(checkpointer=checkpointer)


def _ran(called: list, fn: Any, *args: Any) -> tuple[dict, list, list]:
    """What a call returned (its values, its questions) and the nodes it ran."""
    called.clear()
    result = dict(fn(*args))
    asked = [i.value for i in result.pop("__interrupt__", ())]
    return result, asked, list(called)


def _history(g: Any, config: Any) -> list[tuple[str, tuple, list]]:
    return [(h.metadata["source"], h.next, h.values["value"]) for h in g.get_state_history(config)]


CFG = {"configurable": {"thread_id": "t"}}
DONE_1 = ["before", "before", "step_a", "ask_1:answer_1", "ask_2:answer_2", "after"]
DONE_2 = ["before", "before", "step_a", "ask_1:new_1", "ask_2:new_2", "after"]


@pytest.mark.parametrize("mode", [True, None])
def test_the_graph_run_from_a_subgraphs_version_at_its_first_question(checkpointer: Any, mode: Any) -> None:
    called: list = []
    g = _build(checkpointer, mode, called)
    assert _ran(called, g.invoke, {"value": []}, CFG) == ({"value": ["before"]}, ["Question 1?"], ["before", "step_a", "ask_1"])
    at_first = g.get_state(CFG, subgraphs=True).tasks[0].state
    conf = at_first.config["configurable"]
    parent_id = g.get_state(CFG).config["configurable"]["checkpoint_id"]
    assert conf["checkpoint_map"] == {"": parent_id, conf["checkpoint_ns"]: conf["checkpoint_id"]}
    g.invoke(Command(resume="answer_1"), CFG)
    assert g.invoke(Command(resume="answer_2"), CFG) == {"value": DONE_1}

    # back to the subgraph's first question: a checkpointer=True subgraph does not run step_a again
    again = ["ask_1"] if mode else ["step_a", "ask_1"]
    assert _ran(called, g.invoke, None, at_first.config) == ({"value": ["before"]}, ["Question 1?"], again)
    state = g.get_state(CFG)
    assert (state.metadata["source"], state.next, state.parent_config["configurable"]["checkpoint_id"]) == ("fork", ("executor",), parent_id)
    assert _ran(called, g.invoke, Command(resume="new_1"), CFG) == ({"value": ["before"]}, ["Question 2?"], ["ask_1", "ask_2"])
    assert _ran(called, g.invoke, Command(resume="new_2"), CFG) == ({"value": DONE_2}, [], ["ask_2", "after"])
    assert _history(g, CFG) == [
        ("loop", (), DONE_2),
        ("loop", ("after",), DONE_2[:-1]),
        ("fork", ("executor",), ["before"]),
        ("loop", (), DONE_1),
        ("loop", ("after",), DONE_1[:-1]),
        ("loop", ("executor",), ["before"]),
        ("loop", ("before",), []),
        ("input", ("__start__",), []),
    ]

    # a resume given with the subgraph version's config: the subgraph's first question takes it
    assert _ran(called, g.invoke, Command(resume="again_1"), at_first.config) == ({"value": ["before"]}, ["Question 2?"], ["ask_1", "ask_2"])

    # an update of that version names the parents' versions too, and runs from there
    fork = g.update_state(at_first.config, {"value": ["forked"]})
    assert fork["configurable"]["checkpoint_map"] == {"": parent_id, conf["checkpoint_ns"]: fork["configurable"]["checkpoint_id"]}
    assert _ran(called, g.invoke, None, fork) == ({"value": ["before"]}, ["Question 1?"], again)
    assert _ran(called, g.invoke, Command(resume="forked_1"), CFG) == ({"value": ["before"]}, ["Question 2?"], ["ask_1", "ask_2"])
    if mode:
        sub = {"configurable": {"thread_id": "t", "checkpoint_ns": "executor"}}
        assert _history(g, sub)[:3] == [
            ("loop", ("ask_2",), ["before", "step_a", "forked", "ask_1:forked_1"]),
            ("update", ("ask_1",), ["before", "step_a", "forked"]),
            ("loop", ("ask_2",), ["before", "step_a", "ask_1:again_1"]),
        ]


@pytest.mark.parametrize("mode", [True, None])
def test_the_stream_of_a_run_from_a_subgraphs_version(checkpointer: Any, mode: Any) -> None:
    called: list = []
    g = _build(checkpointer, mode, called)
    g.invoke({"value": []}, CFG)
    at_first = g.get_state(CFG, subgraphs=True).tasks[0].state
    g.invoke(Command(resume="answer_1"), CFG)
    g.invoke(Command(resume="answer_2"), CFG)
    called.clear()
    chunks = [
        (len(ns), kind, {k: v if k != "__interrupt__" else [i.value for i in v] for k, v in chunk.items()})
        for ns, kind, chunk in g.stream(None, at_first.config, stream_mode=["values", "updates"], subgraphs=True)
    ]
    asked = {"__interrupt__": ["Question 1?"]}
    inner = [(1, "values", {"value": ["before", "step_a"]})]
    if mode is None:  # starts afresh
        inner = [(1, "values", {"value": ["before"]}), (1, "updates", {"step_a": {"value": ["step_a"]}}), *inner]
    assert chunks == [
        (0, "values", {"value": ["before"]}),
        *inner,
        (1, "updates", asked),
        (1, "values", {"value": ["before", "step_a"], **asked}),
        (0, "updates", asked),
        (0, "values", {"value": ["before"], **asked}),
    ]
    assert called == (["ask_1"] if mode else ["step_a", "ask_1"])


@pytest.mark.parametrize("mode", [True, None])
def test_new_input_with_a_subgraphs_version(checkpointer: Any, mode: Any) -> None:
    # As LangGraph: the graph takes the input at the parent version, and a checkpointer=True
    # subgraph its task's input at the version named (from START again, on that state).
    called: list = []
    g = _build(checkpointer, mode, called)
    g.invoke({"value": []}, CFG)
    at_first = g.get_state(CFG, subgraphs=True).tasks[0].state
    g.invoke(Command(resume="answer_1"), CFG)
    g.invoke(Command(resume="answer_2"), CFG)
    assert _ran(called, g.invoke, {"value": ["new"]}, at_first.config) == (
        {"value": ["before", "new", "before"]}, ["Question 1?"], ["before", "step_a", "ask_1"]
    )  # fmt: skip
    if mode:
        sub = {"configurable": {"thread_id": "t", "checkpoint_ns": "executor"}}
        assert _history(g, sub)[:3] == [
            ("loop", ("ask_1",), ["before", "step_a", "before", "new", "before", "step_a"]),
            ("loop", ("step_a",), ["before", "step_a", "before", "new", "before"]),
            ("input", ("__start__",), ["before", "step_a"]),
        ]
