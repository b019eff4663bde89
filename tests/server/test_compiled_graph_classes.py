"""A project's compiled graph whose state holds its own classes is served as LangGraph's server serves it.

A langgraph.json project usually ends its module with ``graph =
builder.compile()``: no checkpointer there, the server gives the compiled
graph its own. The classes its state schema names (a dataclass, a Pydantic
model; a LangChain agent's structured response) were allowed only on a saver
given to ``compile()``, so the server's first write of one failed with
SerializationError. Now a saver set on a compiled graph allows them too
(``Pregel.checkpointer``); a server started again on the same file reads the
thread back before writing anything.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Callable

from tests.conftest import ServerProcess

MODULE = '''
from dataclasses import dataclass
from typing import TypedDict

from langgraph.graph import START, StateGraph
from pydantic import BaseModel


@dataclass
class Point:
    x: int


class Label(BaseModel):
    text: str


class State(TypedDict, total=False):
    point: Point
    label: Label
    n: int


def place(state: State) -> dict:
    return {"point": Point(state["n"]), "label": Label(text=f"at {state['n']}")}


builder = StateGraph(State)
builder.add_node("place", place)
builder.add_edge(START, "place")
graph = builder.compile()
'''


def test_a_compiled_graphs_own_classes_are_stored_and_read_back_after_a_restart(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "places.py").write_text(MODULE)
    (project / "langgraph.json").write_text('{"dependencies": ["."], "graphs": {"places": "./places.py:graph"}}')
    srv = start_server(config=project / "langgraph.json")
    with srv.client() as client:
        result = client.invoke("places", "t1", {"n": 3}, timeout=30)
        assert result.error is None, result.error
        assert result.values == {"n": 3, "point": {"x": 3}, "label": {"text": "at 3"}}
    srv.proc.send_signal(signal.SIGTERM)
    assert srv.proc.wait(timeout=60) == 0
    again = start_server(config=project / "langgraph.json", db=srv.db)
    with again.client() as client:
        assert client.get_state("places", "t1").values == {"n": 3, "point": {"x": 3}, "label": {"text": "at 3"}}
