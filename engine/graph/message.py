"""``langgraph.graph.message``'s names: the message reducer and state."""

from __future__ import annotations

from engine.graph._messages import REMOVE_ALL_MESSAGES, MessagesState, RemoveMessage, add_messages

__all__ = ["add_messages", "MessagesState", "REMOVE_ALL_MESSAGES", "RemoveMessage"]
