"""An entrypoint's @task calls stream their updates as each one finishes, as LangGraph's do
(LangGraph's test_sync/async_streaming_with_functional_api): before, a lone task ran inline and
its calls' updates reached the caller only when the entrypoint returned.

No clock here: the entrypoint waits, after its first call, for the caller to have read that
call's update (the wait gives up after a long while, and then the entrypoint says so)."""

from __future__ import annotations

import asyncio
import threading

from engine.func import entrypoint, task


def test_a_sync_entrypoints_call_updates_reach_the_stream_while_it_runs() -> None:
    seen = threading.Event()

    @task()
    def slow(n: int) -> int:
        return n

    @entrypoint()
    def graph(_: dict) -> dict:
        first = slow(1).result()
        read_in_time = seen.wait(timeout=30)  # set by the caller on reading the first call's update
        return {"first": first, "second": slow(2).result(), "read_in_time": read_in_time}

    chunks = []
    for chunk in graph.stream({}, stream_mode="updates"):
        chunks.append(chunk)
        if "slow" in chunk:
            seen.set()
    assert chunks == [{"slow": 1}, {"slow": 2}, {"graph": {"first": 1, "second": 2, "read_in_time": True}}]


def test_an_async_entrypoints_call_updates_and_starts_reach_the_stream_while_it_runs() -> None:
    async def scenario() -> list:
        seen = asyncio.Event()

        @task()
        async def slow(n: int) -> int:
            return n

        @entrypoint()
        async def graph(_: dict) -> bool:
            await slow(1)
            try:
                await asyncio.wait_for(seen.wait(), timeout=30)
            except TimeoutError:
                return False
            await slow(2)
            return True

        out = []
        async for mode, chunk in graph.astream({}, stream_mode=["updates", "tasks"]):
            out.append((mode, chunk.get("name") if mode == "tasks" else chunk))
            if mode == "updates" and "slow" in chunk:
                seen.set()
        return out

    got = asyncio.run(scenario())
    assert [c for m, c in got if m == "updates"] == [{"slow": 1}, {"slow": 2}, {"graph": True}]
    assert [c for m, c in got if m == "tasks"][:3] == ["graph", "slow", "slow"]
