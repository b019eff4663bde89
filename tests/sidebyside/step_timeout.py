"""A graph's step_timeout: a superstep still running after it fails with TimeoutError.

Sync (invoke, the slow node on a thread that cannot be stopped) and async
(ainvoke and astream, the slow node cancelled): the error, the stream before
it, the state right after (what is due, the tasks' results and errors), and
the thread run on without the limit. The slow sync node blocks until the
state was read, so what it does after the step failed is never compared
(LangGraph keeps its late writes; the engine runs it again: docs/porting.md).
"""

import asyncio
import operator
import threading
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from observe import call, record


class S(TypedDict):
    log: Annotated[list, operator.add]


def fast(s):
    return {"log": ["fast"]}


def after(s):
    return {"log": ["after"]}


def build(slow):
    g = StateGraph(S).add_node("fast", fast).add_node("slow", slow).add_node("after", after)
    g.add_edge(START, "fast").add_edge(START, "slow").add_edge(["fast", "slow"], "after")
    return g.compile(checkpointer=InMemorySaver())


def seen(state):
    return {"next": state.next, "tasks": [(t.name, t.error, t.result) for t in state.tasks]}


release = threading.Event()


def slow_sync(s):
    release.wait(30)
    return {"log": ["slow"]}


g = build(slow_sync)
g.step_timeout = 0.5
record("default", type(build(slow_sync)).__dict__.get("step_timeout", "inherited"))
cfg = {"configurable": {"thread_id": "sync"}}
call("sync invoke", g.invoke, {"log": []}, cfg)
record("sync state", seen(g.get_state(cfg)))
release.set()
g.step_timeout = None
record("sync on", g.invoke(None, cfg)["log"][:1])


async def slow_async(s):
    await asyncio.Event().wait()


async def main():
    g = build(slow_async)
    g.step_timeout = 0.5
    cfg = {"configurable": {"thread_id": "async"}}
    try:
        await g.ainvoke({"log": []}, cfg)
    except Exception as e:
        record("async invoke", (type(e).__name__, str(e)))
    record("async state", seen(await g.aget_state(cfg)))
    chunks = []
    try:
        async for c in g.astream({"log": []}, {"configurable": {"thread_id": "stream"}}, stream_mode="updates"):
            chunks.append(c)
    except Exception as e:
        chunks.append(type(e).__name__)
    record("astream", chunks)
    record("stream state", seen(await g.aget_state({"configurable": {"thread_id": "stream"}})))


asyncio.run(main())
