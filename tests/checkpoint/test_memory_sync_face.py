"""The in-memory saver's sync face runs its coroutines inline, with no event loop.

Nothing in ``InMemorySaver`` waits, so ``get_tuple``, ``put`` and
``put_writes`` run their coroutine to its end right where they are called:
LangGraph calls them from worker threads of a pool it makes per invoke, where
setting an event loop up cost more than the call. A subclass's own coroutine
may wait: it still runs through the base's sync face.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from engine._internal._sync import run_inline
from engine.checkpoint import InMemorySaver
from engine.checkpoint.base import empty_checkpoint


def _round_trip(saver: InMemorySaver) -> tuple[Any, Any]:
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"n": 1}
    checkpoint["channel_versions"] = {"n": 1}
    stored = saver.put(config, checkpoint, {"source": "loop", "step": 0}, {"n": 1})
    saver.put_writes(stored, [("n", 2)], "task-1")
    found = saver.get_tuple(config)
    assert found is not None
    return found.checkpoint["channel_values"], found.pending_writes


def test_put_writes_and_get_tuple_make_no_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_loop() -> asyncio.AbstractEventLoop:
        raise AssertionError("an event loop was made")

    monkeypatch.setattr(asyncio, "new_event_loop", no_loop)
    with ThreadPoolExecutor(1) as pool:  # a fresh thread, with no loop of its own
        values, writes = pool.submit(_round_trip, InMemorySaver()).result()
    assert values == {"n": 1} and writes == [("task-1", "n", 2)]


def test_a_subclass_whose_put_waits_still_runs_through_the_sync_face() -> None:
    class Waits(InMemorySaver):
        puts = 0

        async def aput(self, *args: Any) -> dict[str, Any]:
            await asyncio.sleep(0)
            self.puts += 1
            return await super().aput(*args)

    saver = Waits()
    assert _round_trip(saver) == ({"n": 1}, [("task-1", "n", 2)]) and saver.puts == 1


def test_the_sync_face_follows_each_coroutine_a_subclass_defines_down_its_own_subclasses() -> None:
    class WritesWait(InMemorySaver):
        writes = 0

        async def aput_writes(self, *args: Any) -> None:
            await asyncio.sleep(0)
            self.writes += 1
            await super().aput_writes(*args)

    class Below(WritesWait):  # defines neither: inherits its parent's routes
        puts = 0

        def put(self, *args: Any) -> dict[str, Any]:  # a sync override calling its parent's: the work done once
            self.puts += 1
            return super().put(*args)

    for saver in (WritesWait(), Below()):
        assert _round_trip(saver) == ({"n": 1}, [("task-1", "n", 2)]) and saver.writes == 1
    assert Below.puts == 0 and saver.puts == 1  # type: ignore[attr-defined]
    plain = InMemorySaver()
    assert _round_trip(plain) == ({"n": 1}, [("task-1", "n", 2)])


def test_a_coroutine_that_waits_cannot_run_inline() -> None:
    async def waits() -> None:
        await asyncio.sleep(0)

    with pytest.raises(RuntimeError, match="waited"):
        run_inline(waits())
