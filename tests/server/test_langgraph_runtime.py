"""Graphs LangGraph itself runs, served by graphwire (issue 31 item 1: ``runtimes``, ``--runtime``).

The server process turns the import swap off (one graph runs on LangGraph), has
LangGraph compile the graph with graphwire's saver, and drives it through the
seam the engine's graphs are driven by (:mod:`server._langgraph_runtime`). Over
gRPC a turn, its interrupt, the resume and the history are what the same
program gives run in process on LangGraph 1.2.22 (ids and times aside), on
SQLite and on PostgreSQL; a graph the engine runs is served beside it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

from tests.server._langgraph_graphs import backend  # noqa: E402, F401 - SQLite, then PostgreSQL
from tests.inspector.conftest import api  # noqa: E402

GRAPH = '''
"""A two-step graph with a subgraph that asks a question (LangGraph's own imports)."""
import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class State(TypedDict):
    log: Annotated[list, operator.add]


def ask(state: State) -> dict:
    return {"log": ["ask:" + interrupt({"question": "go on?", "seen": len(state["log"])})]}


sub = StateGraph(State)
sub.add_node("ask", ask)
sub.add_edge(START, "ask")

builder = StateGraph(State)
builder.add_node("first", lambda s: {"log": ["first"]})
builder.add_node("sub", sub.compile())
builder.add_node("last", lambda s: {"log": ["last"]})
builder.add_edge(START, "first")
builder.add_edge("first", "sub")
builder.add_edge("sub", "last")
builder.add_edge("last", END)
graph = builder
'''

ENGINE_GRAPH = '''
from typing import TypedDict
from engine.graph import START, StateGraph


class State(TypedDict):
    text: str


graph = StateGraph(State).add_node("echo", lambda s: {"text": s["text"] + "!"}).add_edge(START, "echo")
'''


def _in_process(directory: Path) -> dict[str, Any]:
    """The program's turns run in process on LangGraph itself (a fresh interpreter: no import swap)."""
    code = textwrap.dedent(
        """
        import json, sys
        sys.path.insert(0, sys.argv[1])
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.types import Command
        from lg_graph import graph
        app = graph.compile(checkpointer=InMemorySaver())
        cfg = {"configurable": {"thread_id": "t"}}
        first = app.invoke({"log": []}, cfg)
        second = app.invoke(Command(resume="yes"), cfg)
        history = [(s.metadata["source"], s.metadata["step"], list(s.next), s.values) for s in app.get_state_history(cfg)]
        print(json.dumps({"first": {"log": first["log"], "asked": [i.value for i in first["__interrupt__"]]},
                          "second": second, "history": history}))
        """
    )
    out = subprocess.run([sys.executable, "-c", code, str(directory)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]




def test_a_langgraph_graph_served_over_grpc_runs_as_in_process(start_server: Any, tmp_path: Path, backend: dict[str, Any]) -> None:
    (tmp_path / "lg_graph.py").write_text(GRAPH)
    (tmp_path / "engine_graph.py").write_text(ENGINE_GRAPH)
    srv = start_server(
        graphs={"lg": f"{tmp_path}/lg_graph.py:graph", "echo": f"{tmp_path}/engine_graph.py:graph"},
        args=["--runtime", "lg=langgraph"],
        inspector=True,
        **backend,
    )
    log = srv.log()
    assert "import swap off (graph(s) lg run on LangGraph itself" in log
    assert "graph(s) lg run on LangGraph 1.2.22 itself" in log
    expected = _in_process(tmp_path)
    with srv.client() as client:
        first = client.invoke("lg", "t", {"log": []})
        assert first.reason == "INTERRUPT"
        assert {"log": first.values["log"], "asked": [i.value for i in first.interrupts]} == expected["first"]
        second = client.resume("lg", "t", "yes")
        assert second.reason == "END" and second.values == expected["second"]
        history = [(s.metadata["source"], s.metadata["step"], list(s.next), s.values) for s in client.history("lg", "t")]
        assert history == [tuple(h) for h in expected["history"]]
        assert all(s.metadata.get("run_id") in (first.run_id, second.run_id) for s in client.history("lg", "t"))
        # the engine serves its own graph beside it, in the same process
        assert client.invoke("echo", "t", {"text": "hi"}).values == {"text": "hi!"}
        drawn = client.graph("lg")
        assert [n.name for n in drawn.nodes] == ["__start__", "first", "sub", "last", "__end__"]
    # the inspector draws it and opens its versions, as an engine graph's
    status, graph, _ = api(srv, "/api/graph?name=lg", token=None)
    assert status == 200 and [n["name"] for n in graph["nodes"]][1:4] == ["first", "sub", "last"]
    asked = next(h for h in expected["history"] if h[0] == "loop" and h[2] == ["sub"])
    found = [v for v in api(srv, "/api/history?graph=lg&thread=t", token=None)[1]["versions"] if v["step"] == asked[1]]
    status, version, _ = api(srv, f"/api/version?graph=lg&thread=t&checkpoint={found[0]['checkpoint_id']}", token=None)
    assert status == 200 and version["values"] == asked[3] and version["writes"]["ran"] == ["first"]


def test_a_graph_named_for_langgraph_must_be_built_with_it(start_server: Any, tmp_path: Path) -> None:
    (tmp_path / "engine_graph.py").write_text(ENGINE_GRAPH)
    with pytest.raises(RuntimeError) as info:
        start_server(graphs={"echo": f"{tmp_path}/engine_graph.py:graph"}, args=["--runtime", "langgraph"])
    assert "graph 'echo' runs on LangGraph itself (runtimes), but" in str(info.value)
