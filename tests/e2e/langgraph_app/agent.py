"""A travel agent, written for LangGraph: its imports are LangGraph's, unchanged."""

import os

from fares import fare  # ./libs/fares, a local dependency in langgraph.json
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt

from scripted_model import ScriptedModel


@tool
def quote(city: str) -> str:
    """The fare of a flight to a city."""
    return f"{fare(city)} {os.environ['TRAVEL_CURRENCY']}"


@tool
def book(city: str) -> str:
    """Book a flight to a city, once the traveller agrees."""
    answer = interrupt({"question": f"Book the flight to {city}?"})
    if answer != "yes":
        return "not booked"
    return f"booked {city} with {os.environ['TRAVEL_AGENCY']}"


model = ScriptedModel().bind_tools([quote, book])


def agent(state: MessagesState) -> dict:
    return {"messages": [model.invoke(state["messages"])]}


builder = StateGraph(MessagesState)
builder.add_node("agent", agent)
builder.add_node("tools", ToolNode([quote, book]))
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", tools_condition)
builder.add_edge("tools", "agent")
graph = builder.compile()
