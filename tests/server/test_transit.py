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


def test_events_put_while_the_hop_flowed_count_in_its_byte_bound_once_it_is_held() -> None:
    """Events are weighed only while the hop is held, and those already waiting when it is held are weighed
    then: three large events put while it flowed fill a bound of 100 KB, so the engine is asked for no more."""
    from engine.pregel._queue import weigh_event

    big = "x" * 40_000
    asked: list[int] = []
    gate = asyncio.Event()

    async def engine() -> AsyncIterator[Event]:
        for i in range(10):
            if i == 3:
                await gate.wait()  # three events wait in the hop, put while it flowed
            asked.append(i)
            yield CustomEvent(0, "task", "node", big)

    async def body() -> None:
        transit = Transit(max_events=1000, max_bytes=100_000)
        events = engine()
        pumped = asyncio.get_running_loop().create_task(transit.pump(events))
        await until(lambda: len(transit) >= 3, "three events in the hop")
        transit.hold()  # while they wait: weighed now
        assert transit.peak >= 3 * weigh_event(CustomEvent(0, "task", "node", big)) >= 100_000
        gate.set()
        await until(lambda: len(transit) >= 4, "the engine's fourth event in the hop")
        for _ in range(20):
            await asyncio.sleep(0)  # turns of the loop, no time: the held, full hop asks for no more
        assert len(asked) == 4 and not pumped.done()
        transit.release()
        await pumped
        got = 0
        while (item := await transit.get()) is not DONE:
            got += isinstance(item, CustomEvent)
        assert got == 10

    asyncio.run(body())
