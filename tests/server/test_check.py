"""``graphwire check``: a graph run on LangGraph and on the engine, turn by turn, differences printed (issue 31 item 3)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("langgraph.graph", reason="graphwire check compares with LangGraph, installed by the test extra")

GRAPHS = '''
import operator
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def ask(state: State) -> dict:
    answer = interrupt({"question": "go on?", "seen": len(state["log"])})
    if answer == "boom":
        raise ValueError("told to fail")
    return {"log": [f"answer:{answer}"]}


def work(state: State) -> dict:
    return {"log": ["worked"]}


builder = StateGraph(State)
builder.add_node(ask)
builder.add_node(work)
builder.add_edge(START, "ask")
builder.add_edge("ask", "work")
builder.add_edge("work", END)
graph = builder.compile()


def reply(state: MessagesState) -> dict:  # a message without an id: each runtime draws a uuid for it
    return {"messages": [AIMessage(f"you said {state['messages'][-1].content}")]}


chat = StateGraph(MessagesState)
chat.add_node(reply)
chat.add_edge(START, "reply")


def runtime(state: State) -> dict:  # answers differently on each runtime, as a real difference would
    return {"log": [StateGraph.__module__.split(".")[0]]}


other = StateGraph(State)
other.add_node(runtime)
other.add_edge(START, "runtime")
differs = other.compile()
'''


def _check(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "agent.py").write_text(GRAPHS)
    return subprocess.run([sys.executable, "-m", "server.cli", "check", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip


def test_a_graph_that_runs_alike_is_the_same_through_an_interrupt_an_error_and_a_chat(tmp_path: Path) -> None:
    done = _check(tmp_path, "./agent.py:graph", "--input", '{"log": ["hi"]}', "--resume", '"boom"', "--resume", '"yes"')
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("same: 3 turn(s), a history of ")
    # A builder named by module path, and messages whose ids each runtime draws: ids are masked, not compared.
    done = _check(tmp_path, "agent:chat", "--input", '{"messages": [["user", "hi"]]}', "--input", '{"messages": [["user", "again"]]}')
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("same: 2 turn(s)")


def test_a_difference_is_found_and_printed_by_path(tmp_path: Path) -> None:
    done = _check(tmp_path, "./agent.py:differs", "--input", '{"log": []}')
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "differ: 3 difference(s) over 1 turn(s)"
    assert 'turns[0].result.log[0]: langgraph "langgraph" vs engine "engine"' in lines
    assert 'history[0].values.log[0]: langgraph "langgraph" vs engine "engine"' in lines


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["./agent.py:graph"], "give at least one turn"),
        (["./agent.py:graph", "--input", "{nope"], "--input '{nope' is not JSON"),
        (["./agent.py:nothing", "--input", "{}"], "has no attribute 'nothing'"),
    ],
)
def test_a_check_that_cannot_run_says_why(tmp_path: Path, args: list[str], message: str) -> None:
    done = _check(tmp_path, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
