"""The reminders agent: model → (ask_user →) tools → model.

* ``model`` asks the (scripted) model for the next message and streams its
  words as message chunks.
* ``ask_user`` runs before any ``add_reminder`` call: it ``interrupt()``\\s
  with the question, and on "yes" lets the tool run; otherwise it answers the
  call with a refusal and goes back to the model.
* ``tools`` runs the tool calls: ``add_reminder`` (records the reminder in
  state) and ``forecast`` (async and slow on purpose: ``forecast_delay``
  seconds, default from ``GRAPHWIRE_FORECAST_DELAY`` or 0.2).
"""

from __future__ import annotations

import asyncio
import hashlib
import operator
import os
from typing import Annotated, Any, Awaitable, Callable, Literal, TypedDict

from engine import END, START, Command, StateGraph, add_messages, get_message_writer, get_stream_writer, interrupt
from examples.reminders._model import scripted_model

__all__ = ["State", "build_graph", "forecast_text", "YES"]

YES = {"y", "yes", "ok", "okay", "sure", "yep", "please do"}


class State(TypedDict):
    messages: Annotated[list, add_messages]
    reminders: Annotated[list, operator.add]


def _get(m: Any, key: str, default: Any = None) -> Any:
    return m.get(key, default) if isinstance(m, dict) else getattr(m, key, default)


def forecast_text(city: str) -> str:
    """A deterministic forecast, so tests can check it."""
    h = int(hashlib.sha256(city.lower().encode()).hexdigest(), 16)
    sky = ["sunny", "cloudy", "rainy", "windy", "snowy"][h % 5]
    return f"The forecast for {city}: {sky}, {h % 30 + 1}°C."


def build_graph(
    *,
    model: Callable[[list[Any]], Any] = scripted_model,
    forecast_delay: float | None = None,
    forecast_wait: Callable[[], Awaitable[Any]] | None = None,
) -> StateGraph:
    """The reminders agent's builder; compile it with a checkpointer.

    ``forecast_wait``, when given, is awaited instead of sleeping: tests use it
    to hold the slow tool until something else has happened.
    """
    delay = float(os.environ.get("GRAPHWIRE_FORECAST_DELAY", "0.2")) if forecast_delay is None else forecast_delay

    def call_model(state: State) -> dict[str, Any]:
        reply = model(list(state["messages"]))
        text = str(_get(reply, "content", ""))
        if text:
            write = get_message_writer()
            words = text.split(" ")
            for i, w in enumerate(words):
                write({"id": _get(reply, "id"), "content": w + (" " if i < len(words) - 1 else "")})
        return {"messages": [reply]}

    def route(state: State) -> str:
        calls = _get(state["messages"][-1], "tool_calls") or []
        if not calls:
            return END
        if any(c["name"] == "add_reminder" for c in calls):
            return "ask_user"
        return "tools"

    def ask_user(state: State) -> Command[Literal["tools", "model"]]:  # the annotation draws its edges
        calls = _get(state["messages"][-1], "tool_calls") or []
        call = next(c for c in calls if c["name"] == "add_reminder")
        get_stream_writer()({"asking": call["id"]})
        answer = interrupt(f"Add a reminder to {call['args']['text']} at {call['args']['at']}?")
        if str(answer).strip().lower() in YES:
            return Command(goto="tools")
        refusal = {
            "role": "tool",
            "tool_call_id": call["id"],
            "content": f"OK, I won't remind you to {call['args']['text']}.",
        }
        return Command(update={"messages": [refusal]}, goto="model")

    async def tools(state: State) -> dict[str, Any]:
        out: dict[str, Any] = {"messages": [], "reminders": []}
        for call in _get(state["messages"][-1], "tool_calls") or []:
            args = call["args"]
            if call["name"] == "add_reminder":
                out["reminders"].append({"text": args["text"], "at": args["at"]})
                result = f"Done: I'll remind you to {args['text']} at {args['at']}."
            elif call["name"] == "forecast":
                await (forecast_wait() if forecast_wait is not None else asyncio.sleep(delay))
                result = forecast_text(args["city"])
            else:
                result = f"unknown tool {call['name']!r}"
            out["messages"].append({"role": "tool", "tool_call_id": call["id"], "content": result})
        return out

    g = StateGraph(State)
    g.add_node("model", call_model)
    g.add_node("ask_user", ask_user)
    g.add_node("tools", tools)
    g.add_edge(START, "model")
    g.add_conditional_edges("model", route, ["ask_user", "tools", END])
    g.add_edge("tools", "model")
    return g
