"""The reminders agent, in process: the conversation the server tests repeat over the wire."""

from __future__ import annotations

import asyncio

from engine import Command
from engine.testing import said, thread
from examples.reminders import build_graph, forecast_text


def contents(state):
    return [said(m) for m in state["messages"]]


def test_reminder_turn_asks_first_then_adds_on_yes(checkpointer):
    app = build_graph().compile(checkpointer=checkpointer)
    out = app.invoke({"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]}, thread())
    [intr] = out["__interrupt__"]
    assert intr.value == "Add a reminder to call mom at 5pm?"
    assert app.get_state(thread()).next == ("ask_user",)
    assert out["reminders"] == []

    asked = [c for c in app.stream(Command(resume="yes"), thread(), stream_mode="custom")]
    assert asked == [{"asking": out["messages"][-1].tool_calls[0]["id"]}]  # code before interrupt() ran again
    state = app.get_state(thread())
    assert state.next == ()
    assert state.values["reminders"] == [{"text": "call mom", "at": "5pm"}]
    assert contents(state.values)[-1] == ("assistant", "Done: I'll remind you to call mom at 5pm.")


def test_reminder_refused_goes_back_to_the_model(checkpointer):
    app = build_graph().compile(checkpointer=checkpointer)
    app.invoke({"messages": [{"role": "user", "content": "remind me to water plants at 8am"}]}, thread())
    out = app.invoke(Command(resume="no"), thread())
    assert out["reminders"] == []
    assert contents(out)[-1] == ("assistant", "OK, I won't remind you to water plants.")


def test_weather_uses_the_slow_async_tool_and_streams_tokens(checkpointer):
    app = build_graph(forecast_delay=0).compile(checkpointer=checkpointer)
    chunks = list(app.stream({"messages": [{"role": "user", "content": "weather in Paris?"}]}, thread(), stream_mode="messages"))
    text = "".join(c["content"] for c, meta in chunks if meta["langgraph_node"] == "model")
    assert text == forecast_text("Paris")
    assert contents(app.get_state(thread()).values)[-1] == ("assistant", forecast_text("Paris"))


def test_a_thread_on_the_slow_tool_does_not_delay_another(checkpointer):
    gate = asyncio.Event()
    app = build_graph(forecast_wait=gate.wait).compile(checkpointer=checkpointer)
    done: list[str] = []

    async def chat(tid: str, text: str):
        await app.ainvoke({"messages": [{"role": "user", "content": text}]}, thread(tid))
        done.append(tid)
        gate.set()

    async def main():
        await asyncio.gather(chat("weather", "weather in Oslo"), chat("hello", "hello there"))

    asyncio.run(main())
    assert done == ["hello", "weather"]
