"""Under a sync call, the async-durability writer needs no task until the call first waits.

The sync face starts a call in place (engine._internal._sync._drive): no
loop runs a task until the call waits for something real. A writer task
made before then could not run anyway; making it cost a task and turns of the
loop every invoke (~13 % of a one-node invoke on the in-memory saver). So the
writer defers its task to the call's first wait, where it starts beside the
call, as before; a call that never waits stores its versions itself when it
flushes. These tests pin both halves: nothing is lost and nothing waits longer.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, TypedDict

from engine import END, START, StateGraph
from engine._internal._sync import _thread_loop
from engine.checkpoint import InMemorySaver


class State(TypedDict):
    n: int


def _inc(state: State) -> dict:
    return {"n": state["n"] + 1}


def _chain(saver: Any, *nodes: Any) -> Any:
    g = StateGraph(State)
    names = [f"n{i}" for i in range(len(nodes))]
    for name, fn in zip(names, nodes):
        g.add_node(name, fn)
    g.add_edge(START, names[0])
    for a, b in zip(names, names[1:]):
        g.add_edge(a, b)
    g.add_edge(names[-1], END)
    return g.compile(checkpointer=saver)


def test_a_call_that_never_waits_stores_every_version_without_a_task() -> None:
    saver = InMemorySaver()
    graph = _chain(saver, _inc, _inc, _inc)
    made: list[Any] = []
    loop = _thread_loop()
    loop.set_task_factory(lambda lp, coro, **kw: made.append(coro) or asyncio.Task(coro, loop=lp, **kw))
    try:
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        assert graph.invoke({"n": 0}, config) == {"n": 3}
    finally:
        loop.set_task_factory(None)
    assert made == []
    history = list(graph.get_state_history(config))
    assert [h.metadata["step"] for h in history] == [3, 2, 1, 0, -1]
    assert history[0].values == {"n": 3} and history[0].next == ()


def test_versions_queued_before_a_wait_are_stored_while_the_call_waits() -> None:
    saver = InMemorySaver()
    thread = uuid.uuid4().hex
    seen: list[Any] = []

    async def waits(state: State) -> dict:
        # The writer started at this node's first wait: a few turns of the loop later the
        # versions before this step have landed, before the node returns.
        for _ in range(5):
            await asyncio.sleep(0)
        stored = await saver.aget_tuple({"configurable": {"thread_id": thread}})
        seen.append(stored and stored.metadata["step"])
        return {"n": state["n"] + 10}

    graph = _chain(saver, _inc, waits)
    assert graph.invoke({"n": 0}, {"configurable": {"thread_id": thread}}) == {"n": 11}
    assert seen == [1]  # input (-1), START (0) and n0 (1) stored while n1 waited
    assert [h.metadata["step"] for h in graph.get_state_history({"configurable": {"thread_id": thread}})] == [2, 1, 0, -1]


def test_a_stream_stopped_early_keeps_what_it_ran() -> None:
    saver = InMemorySaver()
    graph = _chain(saver, _inc, _inc, _inc)
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    for chunk in graph.stream({"n": 0}, config, stream_mode="updates"):
        if "n1" in chunk:
            break
    assert graph.get_state(config).values == {"n": 2}
    assert graph.get_state(config).next == ("n2",)
