"""What the v3 stream's ``run.messages`` takes from LangChain: langchain-core's chat model streams.

A ``ChatModelStream`` (sync) or ``AsyncChatModelStream`` is what a v3 run
hands out per chat model call (:mod:`engine.stream._messages`); a whole
message a node returned becomes one by replaying it as the protocol events a
streaming model would have sent. Only imported where langchain-core is.
"""

from __future__ import annotations

from typing import Any, Iterator

from langchain_core.language_models._compat_bridge import message_to_events
from langchain_core.language_models.chat_model_stream import AsyncChatModelStream, ChatModelStream
from langchain_core.messages import AIMessageChunk, BaseMessage, ToolMessage

__all__ = ["is_whole_reply", "make_stream", "replayed"]


def make_stream(*, is_async: bool, namespace: list[str], node: str | None, message_id: str | None) -> Any:
    """A fresh chat model stream for one model call (its pump wired by the caller)."""
    cls = AsyncChatModelStream if is_async else ChatModelStream
    return cls(namespace=namespace, node=node, message_id=message_id)


def is_whole_reply(payload: Any) -> bool:
    """A whole message a node returned (not a chunk, not a tool's result): replayed as a stream."""
    return isinstance(payload, BaseMessage) and not isinstance(payload, (AIMessageChunk, ToolMessage))


def replayed(message: BaseMessage) -> Iterator[Any]:
    """The protocol events of ``message``, as a model streaming it would have sent them."""
    return iter(message_to_events(message, message_id=message.id))
