"""A node on a thread cannot outrun its run's reader, nor write into memory once its run is over (issue 28 item 2).

A sync node runs on a thread; its writer hands each event to the run's event
loop. The run's queue paces it (engine/pregel/_queue.py): while the events it
handed over and the reader did not take reach
:data:`~engine.pregel._queue.MAX_WAITING_EVENTS`, the writer waits. When the
run ends (its reader closed it, or it was cancelled) the writer drops what it
is given, as nobody will read it. Whether the node's thread waits is read
from the thread's own stack (it sits in the queue's wait), never guessed from
time.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import weakref
from contextlib import aclosing
from typing import Any, TypedDict

import pytest

from engine import END, START, StateGraph, get_stream_writer
from engine.events import CustomEvent
from engine.pregel import _queue
from engine.pregel._queue import MAX_WAITING_EVENTS, EventQueue
from tests.hardening.conftest import until


class S(TypedDict, total=False):
    n: int


def one_node(node: Any) -> Any:
    g = StateGraph(S)
    g.add_node("write", node)
    g.add_edge(START, "write")
    g.add_edge("write", END)
    return g.compile()


def waits_in_its_writer(ident: int) -> bool:
    """Whether thread ``ident`` is blocked in the run's queue, waiting for its reader."""
    frame = sys._current_frames().get(ident)
    if frame is None or frame.f_code.co_name != "wait":  # threading.Condition.wait
        return False
    while frame is not None:
        if frame.f_code is EventQueue.room.__code__:
            return True
        frame = frame.f_back
    return False


class Token:
    """A payload whose life the test follows (weak references)."""


def test_a_sync_node_writing_in_a_tight_loop_waits_for_its_reader() -> None:
    count = 5_000
    written = [0]
    idents: list[int] = []

    def write(state: S) -> dict[str, Any]:
        idents.append(threading.get_ident())
        writer = get_stream_writer()
        for i in range(count):
            writer(i)
            written[0] += 1
        return {"n": count}

    async def body() -> list[Any]:
        events = one_node(write).aevents({"n": 0}, kinds={CustomEvent})
        async with aclosing(events):
            async for ev in events:
                if isinstance(ev, CustomEvent):
                    break  # one taken; then the reader takes nothing for a while
            await until(lambda: written[0] == count or (idents and waits_in_its_writer(idents[0])),
                        "the node to finish writing, or to wait for its reader")
            held = written[0]
            rest = [ev.payload async for ev in events if isinstance(ev, CustomEvent)]
        # What the reader's queue holds, what the loop took from it and hands out, and one more.
        assert held <= 2 * MAX_WAITING_EVENTS + 1, f"{held} events written while the reader took one"
        return rest

    assert asyncio.run(body()) == list(range(1, count))  # all of it, in order, once read


def test_a_sync_node_of_a_run_that_ended_writes_into_nothing() -> None:
    alive: weakref.WeakSet[Token] = weakref.WeakSet()
    closed = threading.Event()
    after: list[int] = []

    def write(state: S) -> dict[str, Any]:
        writer = get_stream_writer()
        for _ in range(200):
            token = Token()
            alive.add(token)
            writer(token)
        closed.wait(60)
        for _ in range(1_000):  # the run is over: nobody reads these
            token = Token()
            alive.add(token)
            writer(token)
        del token
        after.append(len(alive))
        return {"n": 1}

    async def body() -> None:
        events = one_node(write).aevents({"n": 0}, kinds={CustomEvent})
        async with aclosing(events):
            async for ev in events:
                if isinstance(ev, CustomEvent):
                    break
        del ev
        closed.set()
        await until(lambda: after, "the node to end")

    asyncio.run(body())
    # Before, each event went on to the run's queue, which nothing drained: all 1,000 were kept.
    assert after[0] <= 2 * MAX_WAITING_EVENTS, f"{after[0]} events still held once the node was done"


def test_a_writer_whose_loop_is_blocked_on_it_stops_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    """An async node that blocks its event loop on a thread that writes: waiting would never end."""
    monkeypatch.setattr(_queue, "STALLED_SECONDS", 0.05)
    count = 3 * MAX_WAITING_EVENTS

    async def write(state: S) -> dict[str, Any]:
        writer = get_stream_writer()
        worker = threading.Thread(target=lambda: [writer(i) for i in range(count)])
        worker.start()
        worker.join()  # the loop waits here, and drains nothing meanwhile
        return {"n": count}

    async def body() -> list[Any]:
        events = one_node(write).aevents({"n": 0}, kinds={CustomEvent})
        return [ev.payload async for ev in events if isinstance(ev, CustomEvent)]

    assert asyncio.run(body()) == list(range(count))
