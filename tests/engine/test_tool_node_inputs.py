"""What a ToolNode takes and gives back (issue 29, prebuilt): tool-call dicts, a Send of bare calls
that reads the graph's state, dataclass and Pydantic states, tools answering with lists, and the
list of Commands the node returns (applied in order by the graph).

Each expectation was observed on langgraph-prebuilt 1.1.3 (tests/sidebyside/tool_node_inputs.py
runs the same program there and here).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from pydantic import BaseModel

from engine import START, StateGraph
from engine.graph import MessagesState, add_messages
from engine.prebuilt import InjectedState, ToolNode
from engine.testing import thread
from engine.types import Command, Send


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def topic(x: int, value: Annotated[str, InjectedState("topic")]) -> str:
    """Reads one state key."""
    return f"{x} on {value}"


@tool
def two_steps(tool_call_id: Annotated[str, InjectedToolCallId]) -> list[Any]:
    """Answers, and sets the topic, in two results."""
    return [Command(update={"topic": "set by a tool"}), ToolMessage("done", tool_call_id=tool_call_id)]


@tool
def mute(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Updates the state without answering its call."""
    return Command(update={"topic": "x"})


class State(MessagesState):
    topic: str


def call(name: str, args: dict[str, Any], cid: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": cid, "type": "tool_call"}


def test_tool_call_dicts_run_and_answer_as_a_state_update() -> None:
    out = ToolNode([add]).invoke([call("add", {"a": 1, "b": 2}), call("add", {"a": 3, "b": 4}, "c2")])
    assert [(m.content, m.tool_call_id) for m in out["messages"]] == [("3", "c1"), ("7", "c2")]


def test_a_send_of_bare_tool_calls_shows_the_tools_the_graphs_state(checkpointer: Any) -> None:
    def agent(state: State) -> Command:
        ask = AIMessage("", tool_calls=[call("topic", {"x": 1}), call("topic", {"x": 2}, "c2")])
        return Command(update={"messages": [ask]}, goto=[Send("tools", [c]) for c in ask.tool_calls])

    g = StateGraph(State)
    g.add_node("agent", agent)
    g.add_node("tools", ToolNode([topic]))
    g.add_edge(START, "agent")
    app = g.compile(checkpointer=checkpointer)
    out = app.invoke({"messages": [HumanMessage("go")], "topic": "cats"}, thread("send"))
    assert [m.content for m in out["messages"]] == ["go", "", "1 on cats", "2 on cats"]


def test_a_tool_answering_with_a_list_updates_the_state_in_order(checkpointer: Any) -> None:
    g = StateGraph(State)
    g.add_node("tools", ToolNode([two_steps]))
    g.add_edge(START, "tools")
    ask = AIMessage("", tool_calls=[call("two_steps", {})])
    out = g.compile(checkpointer=checkpointer).invoke({"messages": [ask], "topic": "old"}, thread("list"))
    assert out["topic"] == "set by a tool"
    assert [(type(m).__name__, m.content, m.name) for m in out["messages"]][1:] == [("ToolMessage", "done", None)]  # a loose answer in a list keeps its name (none)
    # on its own the node returns what the graph applied: each result as its own update, in call order
    assert ToolNode([two_steps]).invoke({"messages": [ask]}) == [
        Command(update={"topic": "set by a tool"}),
        {"messages": [ToolMessage("done", tool_call_id="c1")]},
    ]


def test_a_command_must_answer_its_call() -> None:
    with pytest.raises(ValueError, match="Expected to have a matching ToolMessage in Command.update for tool 'mute'"):
        ToolNode([mute]).invoke({"messages": [AIMessage("", tool_calls=[call("mute", {})])]})


def test_a_node_returning_several_commands_has_them_applied_in_order_and_followed(checkpointer: Any) -> None:
    class Log(MessagesState):
        log: Annotated[list[str], lambda a, b: a + b]

    def fan(state: Log) -> list[Any]:
        return [Command(update={"log": ["a"]}, goto="left"), {"log": ["b"]}, Command(update={"log": ["c"]}, goto="right")]

    g = StateGraph(Log)
    g.add_node("fan", fan)
    g.add_node("left", lambda s: {"log": ["L"]})
    g.add_node("right", lambda s: {"log": ["R"]})
    g.add_edge(START, "fan")
    out = g.compile(checkpointer=checkpointer).invoke({"messages": [], "log": []}, thread("fan"))
    assert out["log"] == ["a", "b", "c", "L", "R"]


@dataclass
class DataState:
    messages: Annotated[list[AnyMessage], add_messages]
    topic: str = "dogs"
    notes: list[str] = field(default_factory=list)


class PydanticState(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages]
    topic: str = "birds"


@pytest.mark.parametrize("schema", [DataState, PydanticState])
def test_injected_state_reads_dataclass_and_pydantic_states(schema: Any, checkpointer: Any) -> None:
    g = StateGraph(schema)
    g.add_node("tools", ToolNode([topic]))
    g.add_edge(START, "tools")
    ask = AIMessage("", tool_calls=[call("topic", {"x": 5})])
    out = g.compile(checkpointer=checkpointer).invoke({"messages": [ask]}, thread("schemas"))
    expected = "dogs" if schema is DataState else "birds"
    assert out["messages"][-1].content == f"5 on {expected}"
