"""Resumes that answer questions on one interrupted version: strict resume mode (LangGraph 1.2's
``configurable["__pregel_strict_resume"]``: a resume that does not match the interrupts pending is refused
with UnknownInterruptError before anything is written), and Commands whose updates pile up there."""

from __future__ import annotations

import operator
import uuid
from typing import Annotated, Any, TypedDict

import pytest

from engine import START, StateGraph
from engine.errors import InvalidResumeError, UnknownInterruptError
from engine.types import Command, interrupt

STRICT = "__pregel_strict_resume"
UNKNOWN = "0" * 32


class Log(TypedDict, total=False):
    log: Annotated[list, operator.add]


def _config(strict: bool = True) -> dict[str, Any]:
    return {"configurable": {"thread_id": str(uuid.uuid4()), STRICT: strict}}


def _two_askers(checkpointer: Any) -> Any:
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": [f"a:{interrupt('a?')}"]})
    g.add_node("b", lambda s: {"log": [f"b:{interrupt('b?')}"]})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    return g.compile(checkpointer=checkpointer)


def test_an_unknown_id_is_refused_and_nothing_is_written(checkpointer: Any) -> None:
    app = _two_askers(checkpointer)
    config = _config()
    app.invoke({"log": []}, config)
    before = app.get_state(config)
    pending = sorted(i.id for i in before.interrupts)
    with pytest.raises(UnknownInterruptError) as refused:
        app.invoke(Command(resume={UNKNOWN: "x", pending[0]: "y"}), config)
    assert (refused.value.reason, refused.value.interrupt_ids, refused.value.pending_ids) == ("not_pending", (UNKNOWN,), tuple(pending))
    assert isinstance(refused.value, InvalidResumeError)  # in the engine's tree, where refused resumes are
    after = app.get_state(config)
    assert after.config == before.config and after.tasks == before.tasks
    out = app.invoke(Command(resume={i.id: i.value[0] for i in before.interrupts}), config)
    assert sorted(out["log"]) == ["a:a", "b:b"]


def test_an_empty_map_and_one_answer_for_two_questions_are_refused(checkpointer: Any) -> None:
    app = _two_askers(checkpointer)
    config = _config()
    app.invoke({"log": []}, config)
    pending = tuple(sorted(i.id for i in app.get_state(config).interrupts))
    with pytest.raises(UnknownInterruptError) as empty:
        app.invoke(Command(resume={}), config)
    assert (empty.value.reason, empty.value.pending_ids) == ("empty_map", pending)
    with pytest.raises(UnknownInterruptError) as ambiguous:
        app.invoke(Command(resume="yes"), config)
    assert (ambiguous.value.reason, ambiguous.value.pending_ids) == ("ambiguous", pending)


def test_one_answer_goes_on_from_a_static_breakpoint(checkpointer: Any) -> None:
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(START, "a")
    app = g.compile(checkpointer=checkpointer, interrupt_before=["a"])
    config = _config()
    app.invoke({"log": []}, config)
    assert app.invoke(Command(resume="go"), config) == {"log": ["a"]}


def test_without_strict_mode_an_unknown_id_answers_nothing(checkpointer: Any) -> None:
    app = _two_askers(checkpointer)
    config = _config(strict=False)
    app.invoke({"log": []}, config)
    out = app.invoke(Command(resume={UNKNOWN: "x"}), config)  # as LangGraph: the questions are asked again
    assert sorted(i.value for i in out["__interrupt__"]) == ["a?", "b?"]


def test_each_commands_update_on_one_interrupted_version_is_kept(checkpointer: Any) -> None:
    # A Command(resume=, update=) on a version whose task asks again stores its update beside those of
    # the Commands before it (the null task's writes): none may be lost, on any saver (the SQL savers
    # packed a call's writes in one row, and a second call's longer list was dropped).
    def ask_three_times(state: Log) -> dict[str, Any]:
        return {"log": ["a:" + "".join(interrupt(str(q)) for q in range(1, 4))]}

    app = StateGraph(Log).add_node("a", ask_three_times).add_edge(START, "a").compile(checkpointer=checkpointer)
    config = _config(strict=False)
    app.invoke({"log": []}, config)
    for i in range(1, 4):
        out = app.invoke(Command(resume=str(i), update={"log": [f"u{i}"]}), config)
    assert out["log"] == ["u1", "u2", "u3", "a:123"]
    assert app.get_state(config).values["log"] == out["log"]
