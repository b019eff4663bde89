"""A saver subclass's own ``get_next_version`` numbers a run's channel versions, as LangGraph's loop asks it."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from engine import START, StateGraph
from engine.checkpoint import InMemorySaver
from engine.testing import thread


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _graph(saver):
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(START, "a")
    return g.compile(checkpointer=saver)


def test_a_saver_numbering_versions_itself_gives_every_version():
    asked: list[int] = []

    class Counting(InMemorySaver):
        def get_next_version(self, current, channel=None):
            asked.append(current)
            return (current or 0) + 10

    app = _graph(Counting())
    assert app.invoke({"log": []}, thread()) == {"log": ["a"]}
    assert asked == [None, 10, 20]  # once per step, from the highest version so far (None: none yet)
    stored = [app.checkpointer.get_tuple(s.config).checkpoint["channel_versions"] for s in app.get_state_history(thread())]
    assert stored == [  # LangGraph 1.2.22 gives these too
        {"__start__": 20, "branch:to:a": 30, "log": 30},
        {"__start__": 20, "branch:to:a": 20, "log": 20},
        {"__start__": 10},
    ]


def test_a_saver_whose_get_next_version_fails_fails_the_run():
    class Faulty(InMemorySaver):
        def get_next_version(self, current, channel=None):
            raise ValueError("Faulty get_next_version")

    with pytest.raises(ValueError, match="Faulty get_next_version"):
        _graph(Faulty()).invoke({"log": []}, thread())


def test_a_saver_answering_langgraphs_strings_gets_the_engines_integers_said_once():
    # As the checkpointer packages written for LangGraph answer (its own savers' form): a warning, and
    # the run goes on with the engine's numbering.
    asked: list[object] = []

    class Strings(InMemorySaver):
        def get_next_version(self, current, channel=None):
            asked.append(current)
            return f"{int(current or 0) + 1:032}.0"

    app = _graph(Strings())
    with pytest.warns(UserWarning, match=r"Strings.get_next_version returned '0+1.0': graphwire's channel versions are integers"):
        assert app.invoke({"log": []}, thread()) == {"log": ["a"]}
    assert app.invoke({"log": []}, thread()) == {"log": ["a", "a"]}
    assert asked == [None]  # asked no more once it answered a string
    versions = app.checkpointer.get_tuple(thread()).checkpoint["channel_versions"]
    assert all(type(v) is int for v in versions.values())
