"""Every graph spec form langgraph.json accepts: a builder, a compiled graph, a function taking
nothing or a config (sync or async) returning either, and the dict form's description; and what the
server says of the forms it cannot serve (a context manager, a function of two arguments, a graph
built with LangGraph itself while the import swap is off)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from engine.checkpoint import InMemorySaver
from server._registry import FACTORY_CONFIG, GraphEntry, load_graphs
from server._specs import SpecError

GRAPHS = '''
"""Graphs made every way a project makes them."""
import contextlib
from typing import TypedDict
from engine.graph import START, StateGraph

seen = []


class State(TypedDict):
    text: str


def _builder(suffix):
    return StateGraph(State).add_node("echo", lambda s: {"text": s["text"] + suffix}).add_edge(START, "echo")


builder = _builder("!")
compiled = _builder("?").compile()


def plain():
    """Made with no arguments."""
    return _builder(" plain")


def with_config(config):
    seen.append(config)
    return _builder(" " + str(config["configurable"].get("suffix", "configured")))


async def made_async(config):
    return _builder(" async").compile()


def two_needed(config, runtime):
    return builder


def number():
    return 42


@contextlib.contextmanager
def managed(config):
    yield builder
'''


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``project_graphs.py`` in a directory; sys.path and sys.modules as they were, after the test."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    (tmp_path / "project_graphs.py").write_text(GRAPHS)
    return tmp_path


def load(project: Path, specs: dict[str, str], descriptions: dict[str, str] | None = None) -> dict[str, GraphEntry]:
    return asyncio.run(load_graphs(specs, InMemorySaver(), base_dir=str(project), descriptions=descriptions))


def test_every_form_serves(project: Path) -> None:
    forms = ("builder", "compiled", "plain", "with_config", "made_async")
    graphs = load(project, {name: f"./project_graphs.py:{name}" for name in forms})
    answers = {name: entry.graph.invoke({"text": "hi"}, {"configurable": {"thread_id": "t"}})["text"] for name, entry in graphs.items()}
    assert answers == {"builder": "hi!", "compiled": "hi?", "plain": "hi plain", "with_config": "hi configured",
                       "made_async": "hi async"}  # fmt: skip
    assert all(entry.graph.checkpointer is not None for entry in graphs.values())
    assert sys.modules["project_graphs"].seen == [FACTORY_CONFIG] == [{"configurable": {}}]


def test_a_description_given_beats_the_docstring(project: Path) -> None:
    specs = {"a": "./project_graphs.py:plain", "b": "./project_graphs.py:builder"}
    graphs = load(project, specs, descriptions={"b": "Echoes, loudly."})
    assert (graphs["a"].description, graphs["b"].description) == ("Made with no arguments.", "Echoes, loudly.")


@pytest.mark.parametrize(
    ("attr", "said"),
    [
        ("two_needed", "names a function that needs config, runtime; graphwire calls it with a config (one parameter) "
                       "or with no arguments"),
        ("managed", "managed(config) (spec './project_graphs.py:managed') returned a context manager; graphwire does "
                    "not enter one: return the graph (or its builder) itself"),
        ("number", "number() (spec './project_graphs.py:number') returned a int, not a StateGraph builder"),
    ],
)  # fmt: skip
def test_what_cannot_be_served_is_said(project: Path, attr: str, said: str) -> None:
    with pytest.raises(SpecError) as failed:
        load(project, {"g": f"./project_graphs.py:{attr}"})
    assert said in str(failed.value)


def test_a_graph_built_with_langgraph_itself_is_served_by_langgraph_while_the_swap_is_off(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 31: with the import swap off (as in this process), a module that builds its graph with
    LangGraph's classes gets it run by LangGraph itself, said at start; a builder or a factory's too."""
    pytest.importorskip("langgraph.graph", reason="LangGraph is not installed here")
    from server._langgraph_runtime import LangGraphGraph

    (project / "real_langgraph.py").write_text(GRAPHS.replace("from engine.graph", "from langgraph.graph"))
    with caplog.at_level("INFO", logger="graphwire.server"):
        graphs = load(project, {"g": "./real_langgraph.py:compiled", "p": "./real_langgraph.py:plain"})
    assert {n: (e.runtime, type(e.graph)) for n, e in graphs.items()} == {"g": ("langgraph", LangGraphGraph), "p": ("langgraph", LangGraphGraph)}
    assert "graph 'g' runs on LangGraph itself (built with its classes, the import swap off)" in caplog.text
    compiled = graphs["p"].graph.graph  # LangGraph's own compiled graph, with the server's saver
    assert type(compiled).__module__.startswith("langgraph.") and compiled.invoke({"text": "hi"}, {"configurable": {"thread_id": "t"}}) == {"text": "hi plain"}