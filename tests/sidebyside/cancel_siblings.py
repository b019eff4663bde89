"""A node that fails ends its step: under ainvoke/astream its siblings still running are cancelled
(recorded as CancelledError, run again when the thread goes on), and the tasks that finished report in
the order they finished (tests/engine/test_errors.py). Under invoke, a sibling on a thread that finishes
as the failure is raised is kept or not by LangGraph depending on timing (docs/porting.md); the engine
keeps it."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from observe import history, record


class State(TypedDict):
    log: Annotated[list, operator.add]


def fan_out(*nodes):
    builder = StateGraph(State)
    for name, fn in nodes:
        builder.add_node(name, fn)
        builder.add_edge(START, name)
    return builder


seen = []
broken = {"on": True}


async def main():
    started = asyncio.Event()

    async def slow(s):
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("slow cancelled")
            raise

    async def done(s):
        return {"log": ["done"]}

    async def bad(s):
        await started.wait()
        if broken["on"]:
            raise ValueError("boom")
        return {"log": ["bad"]}

    config = {"configurable": {"thread_id": "async"}}
    builder = fan_out(("slow", slow), ("done", done), ("bad", bad))
    graph = builder.compile(checkpointer=InMemorySaver())
    chunks = []
    try:
        async for mode, chunk in graph.astream({"log": []}, config, stream_mode=["updates", "tasks"]):
            if mode == "tasks":
                chunk = {k: v for k, v in chunk.items() if k in ("name", "error", "result")}
            chunks.append((mode, chunk))
    except ValueError as e:
        record("error", repr(e))
    record("chunks", chunks)
    record("seen", seen)
    record("state", await graph.aget_state(config))
    broken["on"] = False

    async def slow_again(s):
        return {"log": ["slow"]}

    again = fan_out(("slow", slow_again), ("done", done), ("bad", bad)).compile(checkpointer=graph.checkpointer)
    record("going on", await again.ainvoke(None, config))
    history(again, config)


asyncio.run(main())
