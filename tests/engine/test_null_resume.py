"""Command(resume=...) when no interrupt waits: LangGraph's "null resume" (issue 29).

Twin of tests/sidebyside/null_resume.py.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine.checkpoint import InMemorySaver
from engine.graph import START, StateGraph
from engine.types import Command, interrupt


class State(TypedDict):
    log: Annotated[list, operator.add]


def twice(state: State) -> dict:
    first = interrupt("first?")
    second = interrupt("second?")
    return {"log": [f"twice:{first}:{second}"]}


def once(state: State) -> dict:
    return {"log": ["once:" + interrupt("once?")]}


def _graph() -> Any:
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("twice", twice)
    builder.add_node("once", once)
    builder.add_edge(START, "a")
    builder.add_edge("a", "twice")
    builder.add_edge("twice", "once")
    return builder.compile(checkpointer=InMemorySaver(), interrupt_before=["twice"])


def _asking(graph: Any, config: dict) -> list[tuple[str, list[Any]]]:
    return [(t.name, [i.value for i in t.interrupts]) for t in graph.get_state(config).tasks]


def test_the_first_question_of_the_step_takes_an_answer_no_task_waited_for() -> None:
    graph, config = _graph(), {"configurable": {"thread_id": "t"}}
    assert graph.invoke({"log": []}, config) == {"log": ["a"]}  # at the breakpoint: no question yet
    out = graph.invoke(Command(resume="x"), config)
    assert [i.value for i in out["__interrupt__"]] == ["second?"]  # "first?" took "x"
    assert _asking(graph, config) == [("twice", ["second?"])]
    # its first answer was kept with its second question
    out = graph.invoke(Command(resume="y"), config)
    assert out["log"] == ["a", "twice:x:y"] and [i.value for i in out["__interrupt__"]] == ["once?"]
    assert graph.invoke(Command(resume="z"), config) == {"log": ["a", "twice:x:y", "once:z"]}


def test_an_answer_nothing_takes_is_not_kept_for_a_later_step() -> None:
    graph, config = _graph(), {"configurable": {"thread_id": "t"}}
    graph.invoke({"log": []}, config)
    graph.invoke(Command(resume="x"), config)
    graph.invoke(Command(resume="y"), config)
    graph.invoke(Command(resume="z"), config)
    assert graph.invoke(Command(resume="w"), config) == {"log": ["a", "twice:x:y", "once:z"]}
    assert graph.get_state(config).next == ()
