"""ToolNode's inputs and outputs: tool-call dicts, a Send of bare calls reading the graph's state, dataclass and
Pydantic states, a tool answering with a list, a Command without its answer; a node returning several Commands."""

from dataclasses import dataclass, field
from typing import Annotated

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph, add_messages
from langgraph.prebuilt import InjectedState, ToolNode
from langgraph.runtime import Runtime
from langgraph.types import Command, Send
from pydantic import BaseModel

from observe import call, history, record

RT = {"configurable": {"__pregel_runtime": Runtime()}}


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def topic(x: int, value: Annotated[str, InjectedState("topic")]) -> str:
    """Reads one state key."""
    return f"{x} on {value}"


@tool
def two_steps(tool_call_id: Annotated[str, InjectedToolCallId]) -> list:
    """Answers, and sets the topic, in two results."""
    return [Command(update={"topic": "set by a tool"}), ToolMessage("done", tool_call_id=tool_call_id)]


@tool
def mute(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Updates the state without answering its call."""
    return Command(update={"topic": "x"})


class State(MessagesState):
    topic: str


def tc(name, args, cid="c1"):
    return {"name": name, "args": args, "id": cid, "type": "tool_call"}


record("dicts", ToolNode([add]).invoke([tc("add", {"a": 1, "b": 2}), tc("add", {"a": 3, "b": 4}, "c2")], RT))


def agent(state):
    ask = AIMessage("", tool_calls=[tc("topic", {"x": 1}), tc("topic", {"x": 2}, "c2")])
    return Command(update={"messages": [ask]}, goto=[Send("tools", [c]) for c in ask.tool_calls])


g = StateGraph(State)
g.add_node("agent", agent)
g.add_node("tools", ToolNode([topic]))
g.add_edge(START, "agent")
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "send"}}
record("send bare calls", app.invoke({"messages": [HumanMessage("go")], "topic": "cats"}, cfg))
history(app, cfg)

g = StateGraph(State)
g.add_node("tools", ToolNode([two_steps]))
g.add_edge(START, "tools")
ask = AIMessage("", tool_calls=[tc("two_steps", {})])
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "list"}}
record("list answer", app.invoke({"messages": [ask], "topic": "old"}, cfg))
history(app, cfg)
record("list answer alone", ToolNode([two_steps]).invoke({"messages": [ask]}, RT))
call("no answer", ToolNode([mute]).invoke, {"messages": [AIMessage("", tool_calls=[tc("mute", {})])]}, RT)


class Log(MessagesState):
    log: Annotated[list, lambda a, b: a + b]


g = StateGraph(Log)
g.add_node("fan", lambda s: [Command(update={"log": ["a"]}, goto="left"), {"log": ["b"]}, Command(update={"log": ["c"]}, goto="right")])
g.add_node("left", lambda s: {"log": ["L"]})
g.add_node("right", lambda s: {"log": ["R"]})
g.add_edge(START, "fan")
record("several commands", g.compile().invoke({"messages": [], "log": []}))


@dataclass
class DataState:
    messages: Annotated[list[AnyMessage], add_messages]
    topic: str = "dogs"
    notes: list = field(default_factory=list)


class PydanticState(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages]
    topic: str = "birds"


for schema in (DataState, PydanticState):
    g = StateGraph(schema)
    g.add_node("tools", ToolNode([topic]))
    g.add_edge(START, "tools")
    record(f"state {schema.__name__}", g.compile().invoke({"messages": [AIMessage("", tool_calls=[tc("topic", {"x": 5})])]}))
