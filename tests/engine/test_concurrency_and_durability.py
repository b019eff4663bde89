"""Many threads at once; durability modes."""

from __future__ import annotations

import asyncio
import operator
import threading
import time
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, StateGraph
from engine.errors import CheckpointError
from engine.pregel import _writer
from engine.testing import checkpoint_ids, history_summary, thread


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


class WriteLog:
    """Instruments a real saver's writes: the first ``aput`` waits for ``gate``;
    every call is logged as ("put", id) or ("many", [ids])."""

    def __init__(self, saver, *, fail_many: bool = False) -> None:
        self.gate = asyncio.Event()
        self.calls: list[tuple[str, object]] = []
        put, many = saver.aput, saver.aput_many

        async def aput(config, checkpoint, metadata, new_versions):
            if not self.calls:
                self.calls.append(("put", checkpoint["id"]))
                await self.gate.wait()
            else:
                self.calls.append(("put", checkpoint["id"]))
            return await put(config, checkpoint, metadata, new_versions)

        async def aput_many(puts, *, writes=()):
            self.calls.append(("many", [cp["id"] for _, cp, _, _ in puts]))
            if fail_many and len(puts) > 1:  # a batch of versions (one version with its step's writes passes)
                raise CheckpointError("injected: the batch did not commit")
            return await many(puts, writes=writes)

        saver.aput, saver.aput_many = aput, aput_many


def gated_chain(checkpointer, log: WriteLog, length: int, open_at: int):
    """START → n0 → … → END with async nodes (they run inline: nothing yields to the
    writer between steps); node ``n{open_at}`` opens the saver's gate."""

    def node(i):
        async def run(s):
            if i == open_at:
                log.gate.set()
            return {"x": s["x"] + 1}

        return run

    g = StateGraph(X)
    g.add_sequence([(f"n{i}", node(i)) for i in range(length)])
    g.add_edge(START, "n0")
    g.add_edge(f"n{length - 1}", END)
    return g.compile(checkpointer=checkpointer)


def test_async_durability_writes_the_versions_that_queued_behind_a_write_in_one_call(checkpointer):
    log = WriteLog(checkpointer)
    app = gated_chain(checkpointer, log, 6, open_at=5)
    assert asyncio.run(app.ainvoke({"x": 0}, thread())) == {"x": 6}
    ids = list(reversed(checkpoint_ids(app, thread())))  # input, __start__, n0 … n5
    assert len(ids) == 8
    # The input version's write was in flight (held at the gate) while every step ran.
    assert log.calls[:2] == [("put", ids[0]), ("many", ids[1:])]
    assert [s for _, s, _ in history_summary(app, thread())] == [6, 5, 4, 3, 2, 1, 0, -1]


def test_the_write_queue_is_bounded(checkpointer, monkeypatch):
    monkeypatch.setattr(_writer, "MAX_QUEUED", 2)
    log = WriteLog(checkpointer)
    app = gated_chain(checkpointer, log, 6, open_at=1)
    assert asyncio.run(app.ainvoke({"x": 0}, thread())) == {"x": 6}
    ids = list(reversed(checkpoint_ids(app, thread())))
    # n1 opens the gate in step 2, whose version finds two queued: the run waits
    # for them to land before it goes on (unbounded, they would join later ones).
    assert log.calls[:2] == [("put", ids[0]), ("many", ids[1:3])]
    assert len(ids) == 8


def test_a_batch_that_fails_ends_the_run_and_stores_none_of_it(checkpointer):
    log = WriteLog(checkpointer, fail_many=True)
    app = gated_chain(checkpointer, log, 4, open_at=3)
    with pytest.raises(CheckpointError, match="injected"):
        asyncio.run(app.ainvoke({"x": 0}, thread()))
    # Only the version that landed before the batch: the input.
    assert history_summary(app, thread()) == [("input", -1, ("__start__",))]
    assert log.calls[1][0] == "many" and len(log.calls[1][1]) == 5
    # The thread goes on from there.
    log.calls.clear()
    assert asyncio.run(app.ainvoke(None, thread(), durability="sync")) == {"x": 4}


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


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _chain(checkpointer: Any) -> Any:
    g = StateGraph(Log)
    for name in ["a", "b", "c", "d"]:
        g.add_node(name, lambda s, name=name: {"log": [name]})
    g.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c").add_edge("c", "d").add_edge("d", END)
    return g.compile(checkpointer=checkpointer)


@pytest.mark.parametrize("durability", ["async", "sync", "exit"])
def test_a_stream_left_early_stores_what_it_did_before_the_loop_is_left(checkpointer, durability):
    """As LangGraph 1.2.22 (tests/sidebyside/stream_break.py): breaking out of ``stream()``
    closes the run there, so the thread holds the last step's version as soon as the loop is
    left (with "exit" too: its one version), and the thread goes on from it."""
    app, config = _chain(checkpointer), thread(f"break-{durability}")
    for chunk in app.stream({"log": []}, config, stream_mode="updates", durability=durability):
        if "b" in chunk:
            break
    state = app.get_state(config)
    assert (state.values, state.next) == ({"log": ["a", "b"]}, ("c",))
    expected = [("loop", 2, ("c",))] if durability == "exit" else [
        ("loop", 2, ("c",)), ("loop", 1, ("b",)), ("loop", 0, ("a",)), ("input", -1, ("__start__",))]
    assert history_summary(app, config) == expected
    assert app.invoke(None, config, durability=durability) == {"log": ["a", "b", "c", "d"]}
