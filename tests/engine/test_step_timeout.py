"""A graph's ``step_timeout`` (LangGraph's): a superstep still running after it fails with TimeoutError.

The slow nodes outlive the step's time by far (an async one never ends, a
sync one ends by itself after twice it), so the timeout never races a
node that might finish; the fast node has the whole second.
"""

from __future__ import annotations

import asyncio
import operator
import threading
from typing import Annotated, TypedDict

import pytest

from engine import START, StateGraph
from engine.checkpoint import InMemorySaver
from engine.pregel import Pregel
from engine.pregel import NodeBuilder
from engine.channels import LastValue

STEP = 1.0  # seconds: the fast node's whole budget


class Log(TypedDict):
    log: Annotated[list, operator.add]


def graph(slow, checkpointer=None):
    def fast(s):
        return {"log": ["fast"]}

    def after(s):
        return {"log": ["after"]}

    g = StateGraph(Log).add_node("fast", fast).add_node("slow", slow).add_node("after", after)
    g.add_edge(START, "fast").add_edge(START, "slow").add_edge(["fast", "slow"], "after")
    return g.compile(checkpointer=checkpointer or InMemorySaver())


def test_invoke_fails_with_timeout_after_its_threads_finish_keeping_what_they_wrote():
    calls = []

    def slow(s):
        calls.append("slow")
        threading.Event().wait(2 * STEP)  # outlives the step's time, then ends by itself
        return {"log": ["slow"]}

    g = graph(slow)  # one saver: the test waits for the thread (what is kept is the ainvoke test's, on each)
    g.step_timeout = STEP
    cfg = {"configurable": {"thread_id": "t"}}
    # As LangGraph's thread pool: a thread cannot be stopped, so the call waits for it, then fails.
    with pytest.raises(TimeoutError, match="^Timed out$"):
        g.invoke({"log": []}, cfg)
    state = g.get_state(cfg)
    assert state.next == ()  # both tasks wrote: nothing is due again, the step is not applied yet
    assert {t.name: (t.error, t.result) for t in state.tasks} == {"fast": (None, {"log": ["fast"]}), "slow": (None, {"log": ["slow"]})}
    g.step_timeout = None
    assert g.invoke(None, cfg) == {"log": ["fast", "slow", "after"]}
    assert calls == ["slow"]  # its writes were kept: not run again


def test_ainvoke_cancels_the_slow_task_and_records_it_cancelled(checkpointer):
    cancelled = []

    async def slow(s):
        try:
            await asyncio.Event().wait()  # never set: only the timeout ends it
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return {"log": ["never"]}

    g = graph(slow, checkpointer)
    g.step_timeout = STEP
    cfg = {"configurable": {"thread_id": "t"}}

    async def body():
        chunks = []
        with pytest.raises(TimeoutError) as raised:
            async for c in g.astream({"log": []}, cfg, stream_mode="updates"):
                chunks.append(c)
        assert str(raised.value) == ""  # asyncio's, as LangGraph's async runner raises it
        assert chunks == [{"fast": {"log": ["fast"]}}]
        state = await g.aget_state(cfg)
        assert state.next == ("slow",)
        assert [(t.name, t.error) for t in state.tasks] == [("fast", None), ("slow", "CancelledError()")]  # as stored: its repr

    asyncio.run(body())
    assert cancelled == [True]


def test_a_single_task_step_is_bounded_too():
    async def slow(s):
        await asyncio.Event().wait()  # never set

    g = StateGraph(Log).add_node("slow", slow).add_edge(START, "slow").compile()
    g.step_timeout = STEP
    with pytest.raises(TimeoutError):
        g.invoke({"log": []})
    with pytest.raises(TimeoutError):
        asyncio.run(g.ainvoke({"log": []}))


def test_the_low_level_pregel_takes_step_timeout():
    p = Pregel(
        nodes={"one": NodeBuilder().subscribe_only("a").do(lambda x: x + 1).write_to("b")},
        channels={"a": LastValue(int), "b": LastValue(int)},
        input_channels="a", output_channels="b", step_timeout=5.0,
    )  # fmt: skip
    assert p.step_timeout == 5.0
    assert p.invoke(1) == 2
