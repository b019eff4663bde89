"""The hop between a run's engine and its bookkeeping (server/_transit.py, issue 28 item 2).

While the bookkeeping waits for the database it holds the hop, and the task
driving the engine waits for it outside the engine. A cancellation then
(``CancelRun``, the caller leaving) must still reach the engine, which ends
the run as cancelled (RunFinished CANCELLED) only if it sees it. The
"engine" here is a plain async generator that yields events, waits now and
then as the engine does, and reports where the cancellation reached it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from engine.events import CustomEvent, Event, RunFinished
from server._transit import DONE, Transit
from tests.hardening.conftest import until


def test_a_cancellation_while_the_hop_is_held_reaches_the_engine() -> None:
    seen: list[str] = []

    async def engine() -> AsyncIterator[Event]:
        i = 0
        try:
            while True:
                yield CustomEvent(0, "task", "node", i)
                i += 1
                if i % 8 == 0:
                    await asyncio.sleep(0)  # the engine's own waits, where a cancellation lands
        except asyncio.CancelledError:
            seen.append("cancelled in the engine")
            yield RunFinished("CANCELLED", None)
            raise

    async def body() -> list[object]:
        transit = Transit(max_events=16)
        transit.hold()  # as the bookkeeping does while it waits for its store
        task = asyncio.get_running_loop().create_task(transit.pump(engine()))
        await until(lambda: len(transit) >= 16, "the hop to fill")
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        items = []
        while (item := await transit.get()) is not DONE:
            items.append(item)
        return items

    items = asyncio.run(body())
    assert seen == ["cancelled in the engine"]  # before: the cancellation ended the wait for room, and the run never saw it
    assert isinstance(items[-2], RunFinished) and items[-2].reason == "CANCELLED"
    assert isinstance(items[-1], asyncio.CancelledError)
    assert [e.payload for e in items[:-2]] == list(range(len(items) - 2))  # every event, in order
