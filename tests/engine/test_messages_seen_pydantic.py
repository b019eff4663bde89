"""Stream mode "messages" sends a message once per run, Pydantic states and subgraphs included
(issue 29). Twin of tests/sidebyside/messages_seen_pydantic.py."""

from __future__ import annotations

from typing import Annotated, Literal

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from pydantic import BaseModel, Field

from engine.checkpoint import InMemorySaver
from engine.graph import START, StateGraph
from engine.graph.message import add_messages
from engine.types import Command, interrupt


class State(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages] = Field(default_factory=list)


def proposal(state: State) -> Command[Literal["approval"]]:
    return Command(goto="approval", update={"messages": [AIMessage(content="Proposal", id="proposal_msg")]})


def approval(state: State) -> Command[Literal["__end__"]]:
    answer = interrupt({"message": "approve?"})
    return Command(goto="__end__", update={"messages": [HumanMessage(content=answer, id="answer_msg")]})


def finalize(state: State) -> dict:
    return {"messages": [AIMessage(content="Finalized", id="finalize_msg")]}


def test_a_message_a_subgraph_task_received_is_not_sent_again_above() -> None:
    saver = InMemorySaver()
    sub = StateGraph(State).add_node("proposal", proposal).add_node("approval", approval)
    sub = sub.add_edge(START, "proposal").compile(checkpointer=saver)
    graph = StateGraph(State).add_node("sub", sub).add_node("finalize", finalize)
    graph = graph.add_edge(START, "sub").add_edge("sub", "finalize").compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "1"}}
    first = [(len(ns), c[0].id) for ns, c in graph.stream(
        {"messages": [HumanMessage(content="hi", id="hi_msg")]}, config, stream_mode="messages", subgraphs=True)]
    assert first == [(1, "proposal_msg")]
    resumed = [(len(ns), c[0].id) for ns, c in graph.stream(Command(resume="yes"), config, stream_mode="messages", subgraphs=True)]
    assert resumed == [(1, "answer_msg"), (0, "finalize_msg")]
