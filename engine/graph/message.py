"""``langgraph.graph.message``'s names: the message reducers and state."""

from __future__ import annotations

from engine.graph._delta_messages import messages_delta_reducer as _messages_delta_reducer
from engine.graph._messages import REMOVE_ALL_MESSAGES, MessagesState, RemoveMessage, add_messages

# ``_messages_delta_reducer``: LangGraph's experimental batch reducer for a DeltaChannel of messages, under its name.
__all__ = ["add_messages", "MessagesState", "REMOVE_ALL_MESSAGES", "RemoveMessage", "_messages_delta_reducer"]
