"""A chat model that needs no network: it plays a fixed script, reading where the conversation is.

It decides from the messages alone (never from a counter), so a node that runs
again decides the same; and it streams its answers token by token, as a real
model does.
"""

from collections.abc import Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult


class ScriptedModel(BaseChatModel):
    """Quote the fare, then book, then say it is done."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedModel":
        return self

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        last = messages[-1]
        city = "Oslo"
        if not isinstance(last, ToolMessage):
            return AIMessage("", tool_calls=[{"name": "quote", "args": {"city": city}, "id": "call-quote"}])
        if last.name == "quote":
            return AIMessage("", tool_calls=[{"name": "book", "args": {"city": city}, "id": "call-book"}])
        return AIMessage(f"All set: {last.content}.")

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._reply(messages)
        if reply.tool_calls:
            yield ChatGenerationChunk(message=AIMessageChunk("", tool_call_chunks=[
                {"name": c["name"], "args": str(c["args"]).replace("'", '"'), "id": c["id"], "index": 0}
                for c in reply.tool_calls
            ]))
            return
        for i, word in enumerate(reply.content.split(" ")):
            chunk = ChatGenerationChunk(message=AIMessageChunk(word if i == 0 else " " + word))
            if run_manager is not None:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk
