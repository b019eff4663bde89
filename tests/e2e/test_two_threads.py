"""Threads run at once: a thread waiting on the slow forecast tool does not
delay other threads' quick runs. These tests assert the order in which runs
finish, never how long they took."""

from __future__ import annotations

import asyncio
from typing import Any

from graphwire import FinishReason, RunFinished, TaskStarted

from examples.reminders import forecast_text


def _user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def _slow_and_quick(server: Any, graph: str, slow_tid: str, quick_tids: list[str], release: Any) -> list[Any]:
    """Start a forecast on ``slow_tid``; once its tool runs, run quick turns on
    ``quick_tids``; then ``release()`` the slow one. Returns completions in order."""
    done: list[Any] = []
    tool_running = asyncio.Event()
    async with server.async_client() as slow_client, server.async_client() as quick_client:

        async def slow() -> None:
            async for e in slow_client.stream(graph, slow_tid, _user("weather in Paris"), timeout=60):
                if isinstance(e, TaskStarted) and e.node == "tools":
                    tool_running.set()
                elif isinstance(e, RunFinished):
                    done.append(("slow", e.reason, e.values["messages"][-1]["content"]))

        async def quick(tid: str) -> None:
            r = await quick_client.invoke(graph, tid, _user("hi"), timeout=20)
            done.append(("quick", r.reason, r.values["messages"][-1]["content"]))

        async def quick_all() -> None:
            await tool_running.wait()
            try:
                await asyncio.gather(*(quick(t) for t in quick_tids))
            finally:
                # Released after the quick runs finished (or failed: a server that
                # serialised threads would time them out, and the order shows it).
                await release()

        await asyncio.wait_for(asyncio.gather(slow(), quick_all()), 90)
    return done


def test_gated_forecast_does_not_delay_other_threads(server: Any, thread_id: str) -> None:
    slow_tid = f"{thread_id}-slow"
    quick_tids = [f"{thread_id}-quick{i}" for i in range(4)]

    async def release() -> None:
        server.open_gate(f"forecast-{slow_tid}")

    done = asyncio.run(_slow_and_quick(server, "reminders_gated", slow_tid, quick_tids, release))

    assert [d[0] for d in done] == ["quick"] * 4 + ["slow"]
    assert {d[1] for d in done} == {FinishReason.END}
    assert done[0][2].startswith("You said: hi.")
    assert done[-1][2] == forecast_text("Paris")


def test_real_forecast_delay_does_not_delay_other_threads(start_server: Any, thread_id: str) -> None:
    # The reminders example itself, with a forecast that would take an hour:
    # the quick run finishes while it sleeps, and then CancelRun ends it.
    server = start_server(graphs={"reminders": "examples.reminders:graph"}, env={"GRAPHWIRE_FORECAST_DELAY": "3600"})
    slow_tid = f"{thread_id}-slow"

    async def release() -> None:
        async with server.async_client() as c:
            assert await c.cancel("reminders", slow_tid)

    done = asyncio.run(_slow_and_quick(server, "reminders", slow_tid, [f"{thread_id}-quick"], release))

    assert [(d[0], d[1]) for d in done] == [("quick", FinishReason.END), ("slow", FinishReason.CANCELLED)]
