"""Sync nodes run on the engine's own bounded threads (issue 13, item 8).

A cancelled run's sync node cannot be stopped; it must not starve other runs:
its thread stops counting and is replaced (up to ``size`` such threads), so
later runs' sync nodes still find a thread. When every thread is busy, a
warning says so. Nodes block on a ``threading.Event`` the test sets, so which
thread is busy when is the test's decision, not the scheduler's.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypedDict

import pytest

from engine import START, StateGraph
from engine.pregel import NodeThreads, _threads, node_threads, set_node_threads
from engine.pregel._threads import DEFAULT_SIZE

DEADLINE = 30.0


class X(TypedDict):
    x: int


async def until(condition: Callable[[], Any], what: str) -> None:
    loop = asyncio.get_running_loop()
    give_up = loop.time() + DEADLINE
    while not condition():
        if loop.time() > give_up:
            raise AssertionError(f"timed out after {DEADLINE}s waiting for {what}")
        await asyncio.sleep(0.005)


def one_node(node: Callable[[X], dict[str, Any]]) -> Any:
    g = StateGraph(X)
    g.add_node("n", node)
    g.add_edge(START, "n")
    return g.compile()


def test_sync_nodes_of_cancelled_runs_do_not_starve_later_runs() -> None:
    release = threading.Event()
    entered: list[int] = []

    def stuck(s: X) -> dict[str, Any]:
        entered.append(1)
        release.wait(DEADLINE * 2)
        return {"x": 1}

    stuck_app, quick_app = one_node(stuck), one_node(lambda s: {"x": s["x"] + 2})

    async def body() -> None:
        # As many stuck nodes as there are threads (the default executor's size too).
        runs = [asyncio.ensure_future(stuck_app.ainvoke({"x": 0})) for _ in range(DEFAULT_SIZE)]
        await until(lambda: len(entered) == DEFAULT_SIZE, "every stuck node to hold a thread")
        for r in runs:
            r.cancel()
        await asyncio.gather(*runs, return_exceptions=True)
        assert await asyncio.wait_for(quick_app.ainvoke({"x": 0}), DEADLINE) == {"x": 2}

    try:
        asyncio.run(body())
    finally:
        release.set()


def test_idle_threads_each_take_one_node() -> None:
    """Nodes arriving together each get a thread, whether it sleeps or must be started."""
    threads = NodeThreads(4)
    release = threading.Event()
    entered: list[int] = []

    def stuck() -> None:
        entered.append(1)
        release.wait(DEADLINE * 2)

    async def body() -> None:
        await asyncio.gather(*(threads.run(lambda: None) for _ in range(2)))  # two threads now sleep
        jobs = [asyncio.ensure_future(threads.run(stuck)) for _ in range(4)]
        await until(lambda: len(entered) == 4, "all four nodes to run at once")
        assert threads.threads == 4
        release.set()
        await asyncio.gather(*jobs)

    try:
        asyncio.run(body())
    finally:
        release.set()
        threads.close()


def test_a_saturated_pool_says_so_and_catches_up(caplog: pytest.LogCaptureFixture) -> None:
    threads = NodeThreads(2)
    release = threading.Event()

    async def body() -> None:
        jobs = [asyncio.ensure_future(threads.run(release.wait, DEADLINE)) for _ in range(3)]
        await until(lambda: "all 2 sync node threads are busy" in caplog.text, "the saturation warning")
        assert threads.threads == 2  # the third waits for a thread; none more is started
        release.set()
        assert await asyncio.gather(*jobs) == [True, True, True]

    with caplog.at_level(logging.WARNING, logger="graphwire.engine"):
        asyncio.run(body())
    threads.close()


def test_busy_spells_warn_at_most_once_a_minute_and_the_next_warning_counts_them(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server under steady load has many short busy spells a second: one warning a minute, not one each."""
    clock = [1000.0]
    monkeypatch.setattr(_threads, "_clock", lambda: clock[0])
    threads = NodeThreads(1)

    async def spell() -> None:
        gates = [threading.Event(), threading.Event()]
        jobs = [asyncio.ensure_future(threads.run(g.wait, DEADLINE)) for g in gates]
        await until(lambda: threads._saturated, "the pool to saturate")
        for g in gates:
            g.set()
        assert await asyncio.gather(*jobs) == [True, True]
        await until(lambda: threads._idle == 1, "the thread to go idle (the spell's end)")

    def warnings() -> list[str]:
        return [r.getMessage() for r in caplog.records if "sync node threads are busy" in r.getMessage()]

    async def body() -> None:
        await spell()
        assert len(warnings()) == 1 and "since the last warning" not in warnings()[0]
        for _ in range(3):
            await spell()
        assert len(warnings()) == 1  # within the minute: counted, not logged
        clock[0] += _threads.WARN_EVERY_SECONDS
        await spell()
        assert len(warnings()) == 2
        assert warnings()[1].endswith("; 4 busy spells since the last warning")

    with caplog.at_level(logging.WARNING, logger="graphwire.engine"):
        asyncio.run(body())
    threads.close()


def test_abandoned_threads_are_replaced_up_to_the_size_and_then_end(caplog: pytest.LogCaptureFixture) -> None:
    threads = NodeThreads(1)
    release = threading.Event()
    entered: list[int] = []

    def stuck() -> str:
        entered.append(1)
        release.wait(DEADLINE * 2)
        return "late"

    async def body() -> None:
        first = asyncio.ensure_future(threads.run(stuck))
        await until(lambda: len(entered) == 1, "the first node to run")
        first.cancel()
        second = asyncio.ensure_future(threads.run(stuck))  # gets the replacement thread
        await until(lambda: len(entered) == 2, "the second node to run on a new thread")
        assert threads.abandoned == 1 and threads.threads == 2
        second.cancel()  # past the cap: this thread keeps counting
        await asyncio.gather(first, second, return_exceptions=True)
        await until(lambda: "the most the engine replaces" in caplog.text, "the cap warning")
        assert threads.threads == 2  # never more than twice the size
        release.set()
        await until(lambda: threads.abandoned == 0 and threads.threads == 1, "the abandoned thread to end")
        assert await threads.run(lambda: "again") == "again"

    with caplog.at_level(logging.WARNING, logger="graphwire.engine"):
        try:
            asyncio.run(body())
        finally:
            release.set()
    threads.close()


def test_errors_reach_the_run_and_the_size_is_checked() -> None:
    threads = NodeThreads(1)

    def boom() -> None:
        raise KeyError("inside")

    async def body() -> None:
        with pytest.raises(KeyError, match="inside"):
            await threads.run(boom)

    asyncio.run(body())
    threads.close()
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="sync node threads"):
            NodeThreads(bad)  # type: ignore[arg-type]
    before = node_threads()
    try:
        assert set_node_threads(3).size == 3 and node_threads().size == 3
    finally:
        set_node_threads(before.size)


def test_a_thread_waiting_for_work_holds_nothing_of_its_last_node() -> None:
    # An idle thread kept its last node's input, result and failure (whose traceback holds the
    # node's frames) until its next node: a large state stayed alive, and a failure's cycle became
    # garbage whenever that next node came.
    threads = NodeThreads(1)

    class Value:
        pass

    def echo(v: Value) -> Value:
        return v

    def fail(v: Value) -> None:
        raise ValueError(v)

    for node in (echo, fail):
        v = Value()
        kept = weakref.ref(v)

        async def body(v: Value) -> None:
            try:
                assert await threads.run(node, v) is v
            except ValueError as e:
                assert e.args == (v,)

        asyncio.run(body(v))  # the loop is gone with it: what still holds v is the thread
        del v
        asyncio.run(until(lambda: threads._idle == 1, "the thread to wait for work"))  # past its last node
        gc.collect()  # a failure's own cycle (its traceback holds the awaiting frame, which holds the job)
        assert kept() is None, node.__name__
    threads.close()
