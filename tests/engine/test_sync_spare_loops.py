"""The sync face's loops outlive the threads that made them (engine._internal._sync).

A caller that makes a thread pool per call and calls a saver's sync face from
its workers (LangGraph's sync loop does, once per ``invoke``, for its puts)
used to build an event loop per worker per call and leave it, unclosed, to the
garbage collector. A thread's loop now goes back to a set of spares when the
thread ends, and the next thread without a loop takes it; a loop something is
still scheduled on is closed instead, never handed to another thread.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from engine._internal import _sync
from engine.checkpoint import InMemorySaver
from engine.graph import END, START, StateGraph


@pytest.fixture
def counted_loops(monkeypatch: pytest.MonkeyPatch) -> list[asyncio.AbstractEventLoop]:
    """Every loop the sync face creates from now on, with no spares to begin with."""
    made: list[asyncio.AbstractEventLoop] = []
    real = asyncio.new_event_loop

    def new_event_loop() -> asyncio.AbstractEventLoop:
        made.append(real())
        return made[-1]

    class Spares(list):  # type: ignore[type-arg]
        """The spares, from the test's own loops only: a thread of an earlier test that ends now
        (its locals collected late) hands back a loop this test did not make; it is closed instead."""

        def append(self, loop: asyncio.AbstractEventLoop) -> None:
            if any(loop is m for m in made):
                super().append(loop)
            else:
                loop.close()

    monkeypatch.setattr(_sync, "_spare", Spares())
    monkeypatch.setattr(asyncio, "new_event_loop", new_event_loop)
    yield made
    for loop in _sync._spare:
        loop.close()


def _graph() -> Any:
    g = StateGraph(dict)
    g.add_node("inc", lambda s: {"n": s.get("n", 0) + 1})
    g.add_edge(START, "inc")
    g.add_edge("inc", END)
    return g.compile(checkpointer=InMemorySaver())


def test_threads_of_pools_made_per_call_share_one_loop(counted_loops: list[asyncio.AbstractEventLoop]) -> None:
    saver = InMemorySaver()
    graph = _graph()
    for i in range(5):
        with ThreadPoolExecutor(1) as pool:  # a new worker thread each time, ended by the block's exit
            out = pool.submit(graph.invoke, {"n": i}, {"configurable": {"thread_id": f"t{i}"}}).result()
            assert out == {"n": i + 1}
            assert pool.submit(saver.get_tuple, {"configurable": {"thread_id": "none"}}).result() is None
    assert len(counted_loops) == 1
    assert _sync._spare == counted_loops and not counted_loops[0].is_closed()
    assert graph.get_state({"configurable": {"thread_id": "t4"}}).values == {"n": 5}


def test_a_loop_left_with_a_call_on_it_is_closed_not_handed_on(counted_loops: list[asyncio.AbstractEventLoop]) -> None:
    async def leave_a_call() -> None:
        asyncio.get_running_loop().call_later(3600, lambda: None)

    def call() -> None:
        _sync.run_sync(leave_a_call())

    with ThreadPoolExecutor(1) as pool:
        pool.submit(call).result()
    assert len(counted_loops) == 1 and counted_loops[0].is_closed() and not _sync._spare
    with ThreadPoolExecutor(1) as pool:
        pool.submit(_sync.run_sync, asyncio.sleep(0)).result()
    assert len(counted_loops) == 2 and _sync._spare == [counted_loops[1]]


def test_a_thread_keeps_its_own_loop_while_it_lives(counted_loops: list[asyncio.AbstractEventLoop]) -> None:
    async def which() -> asyncio.AbstractEventLoop:
        await asyncio.sleep(0)
        return asyncio.get_running_loop()

    with ThreadPoolExecutor(1) as pool:
        first, second = (pool.submit(_sync.run_sync, which()).result() for _ in range(2))
    assert first is second is counted_loops[0] and len(counted_loops) == 1
