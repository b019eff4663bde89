"""The peers bench's graphs (bench/peers.py, bench/http_vs_langgraph_dev.py), written for LangGraph.

Served unchanged by every system the benches compare: graphwire (``graphwire
serve`` in this directory reads langgraph.json), ``langgraph dev`` and Aegra.

``chain3``: START → a → b → c → END, each node adds 1 to ``n``.

``chat``: a small tool-calling chat. Its model needs no network: it reads
the conversation and answers from it alone (the same answer each time), as
a model streaming tokens. A user message "book CITY" calls the tool ``book``,
which asks before it books (``interrupt``); any other message calls
``weather`` with the message's last word; after a tool's answer the model
says "Done: <the answer>." word by word.

Three more for bench/http_vs_langgraph_dev.py's programs (the peers bench runs only the two
above): ``failing`` (its one node raises ``ValueError("no way")``), ``nested`` (``before``, then
``team``, a subgraph whose ``ask`` stops at an interrupt) and ``fanout`` (``start`` sends three
``work`` tasks with ``Send``).
"""

from __future__ import annotations

from collections.abc import Iterator
import operator
from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Send, interrupt


class Count(TypedDict, total=False):
    n: int


def _add_one(state: Count) -> dict[str, Any]:
    return {"n": state.get("n", 0) + 1}


_chain = StateGraph(Count)
for _name in ("a", "b", "c"):
    _chain.add_node(_name, _add_one)
_chain.add_edge(START, "a")
_chain.add_edge("a", "b")
_chain.add_edge("b", "c")
_chain.add_edge("c", END)
chain3 = _chain.compile()


@tool
def weather(city: str) -> str:
    """Today's weather in a city."""
    return f"sunny in {city}"


@tool
def book(city: str) -> str:
    """Book a trip to a city, once the user agrees."""
    answer = interrupt({"question": f"Book {city}?"})
    return f"booked {city}" if answer == "yes" else "not booked"


class ReadingModel(BaseChatModel):
    """Calls a tool for each user message, then words the tool's answer."""

    @property
    def _llm_type(self) -> str:
        return "reading"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ReadingModel:
        return self

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            return AIMessage(f"Done: {last.content}.")
        words = str(last.content).split() or ["nowhere"]
        name = "book" if words[0] == "book" else "weather"
        call = {"name": name, "args": {"city": words[-1]}, "id": f"call-{len(messages)}"}
        return AIMessage("", tool_calls=[call])

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._reply(messages)
        if reply.tool_calls:
            call = reply.tool_calls[0]
            args = '{"city": "%s"}' % call["args"]["city"]
            chunk = AIMessageChunk("", tool_call_chunks=[{"name": call["name"], "args": args, "id": call["id"], "index": 0}])
            yield ChatGenerationChunk(message=chunk)
            return
        for i, word in enumerate(str(reply.content).split(" ")):
            piece = ChatGenerationChunk(message=AIMessageChunk(word if i == 0 else " " + word))
            if run_manager is not None:
                run_manager.on_llm_new_token(piece.text, chunk=piece)
            yield piece


_model = ReadingModel()


def agent(state: MessagesState) -> dict[str, Any]:
    return {"messages": [_model.invoke(state["messages"])]}


_chat = StateGraph(MessagesState)
_chat.add_node("agent", agent)
_chat.add_node("tools", ToolNode([weather, book]))
_chat.add_edge(START, "agent")
_chat.add_conditional_edges("agent", tools_condition)
_chat.add_edge("tools", "agent")
chat = _chat.compile()


class Log(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


def _boom(state: Log) -> dict[str, Any]:
    raise ValueError("no way")


_failing = StateGraph(Log)
_failing.add_node("boom", _boom)
_failing.add_edge(START, "boom")
failing = _failing.compile()


def _ask(state: Log) -> dict[str, Any]:
    return {"log": [f"answer {interrupt({'q': 'ok?'})}"]}


_team = StateGraph(Log)
_team.add_node("ask", _ask)
_team.add_edge(START, "ask")
_nested = StateGraph(Log)
_nested.add_node("before", lambda state: {"log": ["before"]})
_nested.add_node("team", _team.compile())
_nested.add_edge(START, "before")
_nested.add_edge("before", "team")
nested = _nested.compile()


def _fan(state: Log) -> list[Send]:
    return [Send("work", {"n": i}) for i in range(3)]


_fanout = StateGraph(Log)
_fanout.add_node("start", lambda state: {})
_fanout.add_node("work", lambda state: {"log": [f"w{state['n']}"]})
_fanout.add_edge(START, "start")
_fanout.add_conditional_edges("start", _fan, ["work"])
fanout = _fanout.compile()
