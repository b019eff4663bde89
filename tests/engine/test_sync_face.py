"""The sync face (engine._internal._sync): what any way of deriving it must keep.

* sync ``invoke`` calls from several threads run at the same time: a node
  that blocks (here: waits for the other thread's node) does not hold up the
  other thread's call;
* so do sync ``stream`` calls;
* a sync call made from inside a running event loop (a sync API used from
  async code) works, and sees the caller's context variables; it runs on the
  caller's thread, the caller's loop set aside meanwhile (LangGraph's sync
  run blocks that loop too), and leaves that loop running as it was.

Each wait is a ``threading.Barrier`` with a generous timeout: calls that were
serialised would break it (BrokenBarrierError), never pass slowly.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypedDict

import pytest

from engine.checkpoint import InMemorySaver
from engine.graph import END, START, StateGraph

WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


class S(TypedDict, total=False):
    name: str
    seen: str


def _meeting(barrier: threading.Barrier) -> Any:
    def meet(state: S) -> dict[str, Any]:
        barrier.wait()  # both threads' nodes must be running at once to get past this
        return {"seen": state["name"]}

    g = StateGraph(S)
    g.add_node("meet", meet)
    g.add_edge(START, "meet")
    g.add_edge("meet", END)
    return g


@pytest.mark.parametrize("saver", [None, "memory"])
def test_sync_invokes_from_two_threads_run_concurrently(saver: str | None) -> None:
    barrier = threading.Barrier(2, timeout=30)
    graph = _meeting(barrier).compile(checkpointer=InMemorySaver() if saver else None)

    def call(name: str) -> Any:
        config = {"configurable": {"thread_id": name}} if saver else None
        return graph.invoke({"name": name}, config)

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(call, ["a", "b"]))
    assert [r["seen"] for r in results] == ["a", "b"]
    assert not barrier.broken


def test_sync_streams_from_two_threads_run_concurrently() -> None:
    barrier = threading.Barrier(2, timeout=30)
    graph = _meeting(barrier).compile()

    def call(name: str) -> list[Any]:
        return list(graph.stream({"name": name}, stream_mode="updates"))

    with ThreadPoolExecutor(2) as pool:
        chunks = list(pool.map(call, ["a", "b"]))
    assert chunks == [[{"meet": {"seen": "a"}}], [{"meet": {"seen": "b"}}]]


def test_a_sync_call_inside_a_running_loop_sees_the_callers_context() -> None:
    def read(state: S) -> dict[str, Any]:
        return {"seen": WHO.get()}

    g = StateGraph(S)
    g.add_node("read", read)
    g.add_edge(START, "read")
    g.add_edge("read", END)
    saver = InMemorySaver()
    graph = g.compile(checkpointer=saver)

    async def main() -> tuple[Any, Any]:
        WHO.set("caller")
        out = graph.invoke({"name": "x"}, {"configurable": {"thread_id": "t"}})  # sync, on a running loop
        state = graph.get_state({"configurable": {"thread_id": "t"}})
        return out, state

    out, state = asyncio.run(main())
    assert out["seen"] == "caller"
    assert state.values["seen"] == "caller" and state.next == ()


def test_a_sync_call_inside_a_running_loop_runs_on_the_callers_thread_and_leaves_its_loop_as_it_was() -> None:
    """A notebook's cell or an async test calling ``invoke``: no thread of its own, nothing blocked on a lock."""
    threads: list[int] = []

    async def a_node(state: S) -> dict[str, Any]:
        threads.append(threading.get_ident())
        await asyncio.sleep(0)  # a real wait: the rest of the call runs as a task of the thread's own loop
        return {"seen": "async"}

    g = StateGraph(S)
    g.add_node("a", a_node)
    g.add_edge(START, "a")
    g.add_edge("a", END)
    graph = g.compile(checkpointer=InMemorySaver())

    async def main() -> tuple[Any, Any, Any, int]:
        caller = asyncio.get_running_loop()
        out = graph.invoke({"name": "x"}, {"configurable": {"thread_id": "t"}})
        after = asyncio.get_running_loop()
        await asyncio.sleep(0)  # the caller's loop still runs its own tasks
        return out, caller, after, threading.get_ident()

    out, caller, after, here = asyncio.run(main())
    assert out["seen"] == "async"
    assert threads == [here]
    assert after is caller
