"""The reminders agent on LangChain: model → (ask_user →) tools → model.

The same conversation as ``examples.reminders``, built the way a LangGraph
user builds one: ``MessagesState``, a LangChain chat model
(:class:`ScriptedChatModel`, which streams its words as tokens), ``@tool``
functions run by a ``ToolNode``, and an ``ask_user`` node that
``interrupt()``\\s with the question before any ``add_reminder`` call runs.
Every import is the engine's LangGraph-compatible one, so this file runs on
LangGraph too with ``engine`` replaced by ``langgraph``.
"""

from __future__ import annotations

import asyncio
import operator
import os
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool

from engine.graph import END, START, MessagesState, StateGraph
from engine.prebuilt import ToolNode
from engine.types import Command, interrupt
from examples.reminders import YES, forecast_text
from examples.reminders_langchain._model import ScriptedChatModel

__all__ = ["State", "build_graph"]


class State(MessagesState):
    reminders: Annotated[list, operator.add]


@tool
def add_reminder(text: str, at: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Remind the user to do ``text`` at ``at``."""
    done = ToolMessage(f"Done: I'll remind you to {text} at {at}.", tool_call_id=tool_call_id)
    return Command(update={"reminders": [{"text": text, "at": at}], "messages": [done]})


def build_graph(
    *, model: Any = None, forecast_delay: float | None = None, forecast_wait: Callable[[], Awaitable[Any]] | None = None
) -> StateGraph:
    """The agent's builder; compile it with a checkpointer.

    ``forecast_wait``, when given, is awaited instead of sleeping: tests use it
    to hold the slow tool until something else has happened.
    """
    delay = float(os.environ.get("GRAPHWIRE_FORECAST_DELAY", "0.2")) if forecast_delay is None else forecast_delay

    @tool
    async def forecast(city: str) -> str:
        """The weather forecast for ``city`` (slow on purpose)."""
        await (forecast_wait() if forecast_wait is not None else asyncio.sleep(delay))
        return forecast_text(city)

    tools = [add_reminder, forecast]
    chat = (model or ScriptedChatModel()).bind_tools(tools)

    def call_model(state: State) -> dict[str, Any]:
        return {"messages": [chat.invoke(state["messages"])]}

    def route(state: State) -> Literal["ask_user", "tools", "__end__"]:
        last = state["messages"][-1]
        calls = last.tool_calls if isinstance(last, AIMessage) else []
        if not calls:
            return END
        return "ask_user" if any(c["name"] == "add_reminder" for c in calls) else "tools"

    def ask_user(state: State) -> Command[Literal["tools", "model"]]:
        call = next(c for c in state["messages"][-1].tool_calls if c["name"] == "add_reminder")
        answer = interrupt(f"Add a reminder to {call['args']['text']} at {call['args']['at']}?")
        if str(answer).strip().lower() in YES:
            return Command(goto="tools")
        refusal = ToolMessage(f"OK, I won't remind you to {call['args']['text']}.", tool_call_id=call["id"])
        return Command(update={"messages": [refusal]}, goto="model")

    g = StateGraph(State)
    g.add_node("model", call_model)
    g.add_node("ask_user", ask_user)
    g.add_node("tools", ToolNode(tools))
    g.add_edge(START, "model")
    g.add_conditional_edges("model", route)
    g.add_edge("tools", "model")
    return g
