"""State schemas as LangGraph 1.2 takes them: Pydantic and dataclass states, typing_extensions
TypedDicts with NotRequired/Required, Command[Literal] return annotations; all checkpointed."""

import dataclasses
import enum
import operator
from typing import Annotated, Literal, Optional

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph, add_messages
from langgraph.types import Command
from pydantic import BaseModel, Field
from typing_extensions import NotRequired, Required, TypedDict

from observe import call, record


class Mood(enum.Enum):
    HAPPY = "happy"
    SAD = "sad"


@dataclasses.dataclass
class Note:
    text: str
    mood: Mood


class Card(BaseModel):
    title: str
    note: Optional[Note] = None


class PydState(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages] = Field(default_factory=list)
    cards: Annotated[list[Card], operator.add] = Field(default_factory=list)
    mood: Mood = Mood.HAPPY


def pyd_node(state: PydState) -> dict:
    return {"messages": [AIMessage(f"{len(state.messages)} so far")], "cards": [Card(title="c", note=Note("n", Mood.SAD))],
            "mood": Mood.SAD}


g = StateGraph(PydState)
g.add_node("n", pyd_node)
g.add_edge(START, "n")
app = g.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "p"}}
call("pydantic", app.invoke, {"messages": [("user", "hi")]}, config)
record("pydantic state", app.get_state(config).values)


@dataclasses.dataclass
class DcState:
    messages: Annotated[list, add_messages]
    notes: Annotated[list[Note], operator.add] = dataclasses.field(default_factory=list)


def dc_node(state: DcState) -> dict:
    return {"messages": [AIMessage(state.messages[-1].content.upper())], "notes": [Note("x", Mood.HAPPY)]}


g = StateGraph(DcState)
g.add_node("n", dc_node)
g.add_edge(START, "n")
app = g.compile(checkpointer=InMemorySaver())
call("dataclass", app.invoke, {"messages": [("user", "hey")]}, config)
record("dataclass state", app.get_state(config).values)


class TdState(TypedDict, total=False):
    messages: Required[Annotated[list, add_messages]]
    log: Annotated[NotRequired[list], operator.add]
    count: NotRequired[int]


def first(state: TdState) -> Command[Literal["second", "__end__"]]:
    return Command(update={"log": ["first"], "count": 1}, goto="second")


def second(state: TdState) -> dict:
    return {"log": ["second"], "count": state["count"] + 1}


g = StateGraph(TdState)
g.add_node("first", first)
g.add_node("second", second)
g.add_edge(START, "first")
g.add_edge("second", END)
app = g.compile(checkpointer=InMemorySaver())
call("typed dict", app.invoke, {"messages": [("user", "go")]}, config)
record("typed dict edges", sorted((e.source, e.target, e.conditional) for e in app.get_graph().edges))
