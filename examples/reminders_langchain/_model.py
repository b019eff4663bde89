"""A scripted chat model on LangChain's BaseChatModel: tokens and tool calls, no network.

It answers as the reminders demo's scripted model does (``examples.reminders``:
"remind me to X at T" → an ``add_reminder`` call, "weather in C" → a
``forecast`` call, a tool result → a sentence about it), but as a real
LangChain chat model: ``invoke`` returns an AIMessage, ``stream`` yields
AIMessageChunks word by word (the last one carries the tool calls), so a
graph calling it streams tokens in ``stream_mode="messages"`` as with any
provider's model.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from examples.reminders import scripted_model

__all__ = ["ScriptedChatModel"]


class ScriptedChatModel(BaseChatModel):
    """The reminders demo's script as a LangChain chat model."""

    @property
    def _llm_type(self) -> str:
        return "graphwire-scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "ScriptedChatModel":
        return self  # the script knows its two tools already

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        reply = scripted_model(messages)
        calls = [{"id": c["id"], "name": c["name"], "args": c["args"]} for c in reply.get("tool_calls") or ()]
        return AIMessage(content=reply["content"], tool_calls=calls)

    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _stream(
        self, messages: list[BaseMessage], stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._reply(messages)
        words = reply.content.split(" ") if reply.content else []
        pieces = [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)] or [""]
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            chunk = AIMessageChunk(
                content=piece,
                tool_call_chunks=[
                    {"id": c["id"], "name": c["name"], "args": _json(c["args"]), "index": n}
                    for n, c in enumerate(reply.tool_calls)
                ] if last else [],
                chunk_position="last" if last else None,
            )
            yield ChatGenerationChunk(message=chunk)


def _json(args: dict[str, Any]) -> str:
    import json

    return json.dumps(args)
