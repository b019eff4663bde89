"""Issue 29: stream mode "messages" sends a message once per run: one a subgraph's task received
in its (Pydantic) state is not sent again when the subgraph's node returns it above."""

from typing import Annotated, Literal

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command, interrupt
from pydantic import BaseModel, Field

from observe import record


class State(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages] = Field(default_factory=list)


def proposal(state) -> Command[Literal["approval"]]:
    return Command(goto="approval", update={"messages": [AIMessage(content="Proposal", id="proposal_msg")]})


def approval(state) -> Command[Literal["__end__"]]:
    answer = interrupt({"message": "approve?"})
    return Command(goto="__end__", update={"messages": [HumanMessage(content=answer, id="answer_msg")]})


def finalize(state) -> dict:
    return {"messages": [AIMessage(content="Finalized", id="finalize_msg")]}


saver = InMemorySaver()
sub = StateGraph(State).add_node("proposal", proposal).add_node("approval", approval).add_edge(START, "proposal").compile(checkpointer=saver)
graph = (StateGraph(State).add_node("sub", sub).add_node("finalize", finalize)
         .add_edge(START, "sub").add_edge("sub", "finalize").compile(checkpointer=saver))
config = {"configurable": {"thread_id": "1"}}
first = [(len(ns), chunk[0].id) for ns, chunk in graph.stream(
    {"messages": [HumanMessage(content="hi", id="hi_msg")]}, config, stream_mode="messages", subgraphs=True)]
record("first", first)
record("resumed", [(len(ns), chunk[0].id) for ns, chunk in graph.stream(
    Command(resume="yes"), config, stream_mode="messages", subgraphs=True)])
