"""Many threads at once; durability modes."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import TypedDict

import pytest

from engine import END, START, StateGraph
from engine.testing import history_summary, thread


class X(TypedDict):
    x: int


def test_two_threads_with_ainvoke_the_quick_one_finishes_first(checkpointer):
    gate = asyncio.Event()

    async def slow(s):
        await gate.wait()  # released only once the quick thread is done
        return {"x": s["x"] + 1}

    async def quick(s):
        return {"x": s["x"] + 2}

    g = StateGraph(X)
    g.add_node("slow", slow)
    g.add_node("quick", quick)
    g.add_conditional_edges(START, lambda s: "slow" if s["x"] == 0 else "quick")
    app = g.compile(checkpointer=checkpointer)
    done: list[str] = []

    async def run(name: str, x: int):
        await app.ainvoke({"x": x}, thread(name))
        done.append(name)
        if name == "quick":
            gate.set()

    async def main():
        await asyncio.gather(run("slow", 0), run("quick", 1))

    asyncio.run(main())
    assert done == ["quick", "slow"]


def test_a_sync_node_does_not_block_other_runs_under_the_async_driver():
    release = threading.Event()

    def blocking(s):
        assert release.wait(10), "the other run never got to run"
        return {"x": 1}

    async def other(s):
        release.set()  # only reachable if the blocking node is off the event loop
        return {"x": 2}

    g = StateGraph(X)
    g.add_node("blocking", blocking)
    g.add_node("other", other)
    g.add_conditional_edges(START, lambda s: "blocking" if s["x"] == 0 else "other")
    app = g.compile()

    async def main():
        return await asyncio.gather(app.ainvoke({"x": 0}), app.ainvoke({"x": 5}))

    assert asyncio.run(main()) == [{"x": 1}, {"x": 2}]


def three(checkpointer):
    g = StateGraph(X)
    g.add_sequence([(f"n{i}", lambda s: {"x": s["x"] + 1}) for i in range(3)])
    g.add_edge(START, "n0")
    g.add_edge("n2", END)
    return g.compile(checkpointer=checkpointer)


@pytest.mark.parametrize("durability,count", [("sync", 5), ("async", 5), ("exit", 1)])
def test_durability_modes_save_the_expected_versions(checkpointer, durability, count):
    app = three(checkpointer)
    assert app.invoke({"x": 0}, thread(), durability=durability) == {"x": 3}
    hist = list(app.get_state_history(thread()))
    assert len(hist) == count
    assert hist[0].metadata["step"] == 3 and hist[0].values == {"x": 3}
    if durability == "exit":
        assert hist[0].parent_config is None
        app.invoke({"x": 0}, thread(), durability="exit")
        assert [s for _, s, _ in history_summary(app, thread())] == [8, 3]


def test_sync_invoke_works_inside_a_running_event_loop(checkpointer):
    app = three(checkpointer)

    async def main():
        return app.invoke({"x": 0}, thread())

    assert asyncio.run(main()) == {"x": 3}
    assert app.get_state(thread()).values == {"x": 3}


def test_bad_durability():
    with pytest.raises(ValueError, match="durability"):
        three(None).invoke({"x": 0}, durability="later")
    _ = time
