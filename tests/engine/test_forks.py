"""Going back: forks, new input on old versions, update_state."""

from __future__ import annotations

import asyncio

import operator
from typing import Annotated, TypedDict

import pytest

from engine import START, InvalidUpdateError, StateGraph
from engine.errors import EmptyInputError, NotFoundError
from engine.testing import checkpoint_ids, history_summary, thread


class X(TypedDict):
    x: int


class XLog(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def two_steps(checkpointer):
    g = StateGraph(X)
    g.add_sequence([("a", lambda s: {"x": s["x"] + 1}), ("b", lambda s: {"x": s["x"] + 10})])
    g.add_edge(START, "a")
    return g.compile(checkpointer=checkpointer)


def test_fork_from_an_older_version_keeps_the_old_branch(checkpointer):
    app = two_steps(checkpointer)
    app.invoke({"x": 0}, thread())
    old_ids = checkpoint_ids(app, thread())
    step0 = old_ids[2]  # loop step 0, next=('a',)
    assert app.invoke(None, thread(checkpoint_id=step0)) == {"x": 11}
    hist = list(app.get_state_history(thread()))
    assert len(hist) == 4 + 3
    fork = next(h for h in hist if h.metadata["source"] == "fork")
    assert fork.metadata["step"] == 1 and fork.next == ("a",) and fork.values == {"x": 0}
    assert fork.parent_config["configurable"]["checkpoint_id"] == step0
    # the old branch is still listed, unchanged
    assert set(old_ids) <= {h.config["configurable"]["checkpoint_id"] for h in hist}
    head = app.get_state(thread())
    assert head.metadata == {**head.metadata, "source": "loop", "step": 3}
    assert head.values == {"x": 11}


def test_naming_the_newest_version_still_forks(checkpointer):
    app = two_steps(checkpointer)
    app.invoke({"x": 0}, thread())
    head = checkpoint_ids(app, thread())[0]
    assert app.invoke(None, thread(checkpoint_id=head)) == {"x": 11}
    assert history_summary(app, thread())[0] == ("fork", 3, ())
    # without an id on a finished thread nothing runs and nothing is written
    assert app.invoke(None, thread()) == {"x": 11}
    assert len(list(app.get_state_history(thread()))) == 5


def test_new_input_on_an_older_version_starts_a_branch_from_it(checkpointer):
    app = two_steps(checkpointer)
    app.invoke({"x": 0}, thread())
    step0 = checkpoint_ids(app, thread())[2]
    assert app.invoke({"x": 100}, thread(checkpoint_id=step0)) == {"x": 111}
    hist = list(app.get_state_history(thread()))
    new_input = next(h for h in hist if h.metadata["source"] == "input" and h.metadata["step"] == 1)
    assert new_input.parent_config["configurable"]["checkpoint_id"] == step0
    assert not any(h.metadata["source"] == "fork" for h in hist)


def test_an_unknown_checkpoint_is_no_version_in_process_and_not_found_for_a_host(checkpointer):
    # As LangGraph 1.2 (tests/sidebyside/inprocess_leniency.py): get_state reads it as empty, None as
    # input is EmptyInputError, and new input starts from nothing, its version naming it as parent.
    app = two_steps(checkpointer)
    app.invoke({"x": 0}, thread())
    unknown = thread(checkpoint_id="1f000000-0000-6000-8000-000000000000")
    empty = app.get_state(unknown)
    assert (empty.values, empty.next, empty.metadata, empty.config) == ({}, (), None, unknown)
    with pytest.raises(EmptyInputError):
        app.invoke(None, unknown)
    assert app.invoke({"x": 10}, unknown) == app.invoke({"x": 10}, thread("fresh"))  # as on a new thread
    first = list(app.get_state_history(thread()))[3]
    assert first.metadata["source"] == "input" and first.parent_config["configurable"]["checkpoint_id"] == unknown["configurable"]["checkpoint_id"]

    async def as_a_host() -> None:  # the server's runs are strict: NOT_FOUND over the wire
        async for _ in app.aevents(None, unknown, strict=True):
            pass

    with pytest.raises(NotFoundError):
        asyncio.run(as_a_host())


def test_update_state_as_node_writes_an_update_version(checkpointer):
    app = two_steps(checkpointer)
    app.invoke({"x": 0}, thread())
    step0 = checkpoint_ids(app, thread())[2]
    new_cfg = app.update_state(thread(checkpoint_id=step0), {"x": 5}, as_node="a")
    state = app.get_state(new_cfg)
    assert state.metadata["source"] == "update" and state.metadata["step"] == 1
    assert state.next == ("b",) and state.values == {"x": 5}
    assert state.parent_config["configurable"]["checkpoint_id"] == step0
    # continuing from the update version does not fork it again
    assert app.invoke(None, new_cfg) == {"x": 15}
    assert history_summary(app, thread())[:2] == [("loop", 2, ()), ("update", 1, ("b",))]


def test_update_state_applies_reducers_and_infers_the_node(checkpointer):
    g = StateGraph(XLog)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(START, "a")
    app = g.compile(checkpointer=checkpointer)
    app.invoke({"x": 0, "log": ["in"]}, thread())
    app.update_state(thread(), {"log": ["upd"]})
    state = app.get_state(thread())
    assert state.values["log"] == ["in", "a", "upd"]
    assert state.metadata["source"] == "update" and state.next == ()
    with pytest.raises(InvalidUpdateError):
        app.update_state(thread(), {"x": 1}, as_node="nope")
    fresh = app.update_state(thread("fresh"), {"x": 1})
    assert app.get_state(fresh).metadata["step"] == 0 and app.get_state(fresh).next == ("a",)
