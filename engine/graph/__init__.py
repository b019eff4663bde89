"""Building graphs: StateGraph, add_messages, and drawing."""

from engine.graph._draw import DrawableGraph, Edge
from engine.graph._messages import REMOVE_ALL_MESSAGES, MessagesState, RemoveMessage, add_messages
from engine.graph._state import CompiledStateGraph, StateGraph
from engine.graph.message import MessageGraph
from engine.types import END, START

__all__ = [
    "StateGraph",
    "CompiledStateGraph",
    "MessageGraph",
    "add_messages",
    "MessagesState",
    "RemoveMessage",
    "REMOVE_ALL_MESSAGES",
    "DrawableGraph",
    "Edge",
    "START",
    "END",
]
