"""``langgraph.graph.message``'s names: the message reducers and state, ``push_message`` and ``MessageGraph``."""

from __future__ import annotations

import warnings
from typing import Annotated, Any

from engine._internal._task import _ctx
from engine._langchain import messages as langchain_messages
from engine.graph._delta_messages import messages_delta_reducer as _messages_delta_reducer
from engine.graph._messages import REMOVE_ALL_MESSAGES, MessagesState, RemoveMessage, add_messages
from engine.graph._state import StateGraph
from engine.pregel._timeout import stale
from engine.warnings import LangGraphDeprecatedSinceV10

# ``_messages_delta_reducer``: LangGraph's experimental batch reducer for a DeltaChannel of messages, under its name.
__all__ = ["add_messages", "MessageGraph", "MessagesState", "push_message", "REMOVE_ALL_MESSAGES", "RemoveMessage", "_messages_delta_reducer"]


def push_message(message: Any, *, state_key: str | None = "messages") -> Any:
    """Send ``message`` to the caller now, in the "messages" stream mode, and write it to ``state_key``.

    For a node that makes a whole message itself (not through a chat model's
    callbacks) and wants it streamed before the node returns. The message
    (anything LangChain's ``convert_to_messages`` takes: a message, a chunk,
    a ``(role, text)`` pair, a dict) must have an id; it is sent once even if
    the node also returns it. Unless ``state_key`` is None the message is also
    one of the node's writes to that key, made before those of its return
    value (a retried attempt pushes again, from nothing). Returns the message
    as sent. Called outside a node, it raises as ``get_config()`` does.
    """
    lc = langchain_messages()
    if lc is None:
        raise ImportError("push_message() needs langchain-core: pip install 'langchain-core>=1,<2'")
    ctx = _ctx("push_message()")
    pushed = lc.convert_to_messages([message])[0]
    if pushed.id is None:
        raise ValueError("Message ID is required")
    if stale():  # an attempt that timed out and goes on: what it sends is dropped (engine.pregel._timeout)
        return pushed
    if ctx.messages is not None:
        ctx.messages.pushed(pushed)
    if state_key:
        ctx.pushed = [*(ctx.pushed or ()), (state_key, pushed)]
    return pushed


class MessageGraph(StateGraph):
    """A graph whose state is one message list, merged by ``add_messages`` (deprecated in LangGraph 1.0)."""

    def __init__(self) -> None:
        warnings.warn(_MESSAGE_GRAPH, category=LangGraphDeprecatedSinceV10, stacklevel=2)
        super().__init__(_message_list())


_MESSAGE_GRAPH = (
    "MessageGraph is deprecated in LangGraph v1.0.0, to be removed in v2.0.0. "
    "Please use StateGraph with a `messages` key instead."
)


def _message_list() -> Any:
    """The state of a :class:`MessageGraph` (what new code writes instead: ``StateGraph(Annotated[list, add_messages])``)."""
    lc = langchain_messages()
    return Annotated[list, add_messages] if lc is None else Annotated[list[lc.AnyMessage], add_messages]  # type: ignore[name-defined]
