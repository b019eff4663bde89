"""Async nodes and routers that use asyncio's task machinery from their first lines.

``asyncio.current_task()``, ``asyncio.timeout()`` and ``asyncio.TaskGroup``
need a task; an ``asyncio.Lock`` held across an await by parallel branches; a
``wait_for``; a router with a timeout; a timeout that expires, caught and not.
LangGraph runs async nodes only from ainvoke/astream, so this program does
too; tests/engine/test_sync_drive.py checks that the engine's sync invoke and
stream (which run async nodes) give what ainvoke gives here.
"""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from observe import history, record


class State(TypedDict):
    n: int
    log: Annotated[list, operator.add]


async def first(state: State) -> dict:
    seen = asyncio.current_task() is not None  # before any await
    async with asyncio.timeout(5):
        async with asyncio.TaskGroup() as group:
            doubled = group.create_task(asyncio.sleep(0, result=state["n"] * 2))
    return {"log": [f"first task={seen}"], "n": doubled.result()}


def locked(name: str, lock: asyncio.Lock):
    async def node(state: State) -> dict:
        async with lock:
            held = lock.locked()
            await asyncio.sleep(0)
        return {"log": [f"{name} held={held}"]}

    return node


async def timed(state: State) -> dict:
    try:
        async with asyncio.timeout(0.001):
            await asyncio.Event().wait()
    except TimeoutError:
        return {"log": ["timed out"]}
    return {"log": ["not timed out"]}


async def route(state: State) -> str:
    async with asyncio.timeout(5):
        return "waits" if state["n"] > 4 else END


async def waits(state: State) -> dict:
    value = await asyncio.wait_for(asyncio.sleep(0, result=state["n"]), timeout=5)
    return {"log": [f"wait_for {value}"]}


def build(checkpointer=None):
    lock = asyncio.Lock()
    b = StateGraph(State)
    b.add_node("first", first)
    b.add_node("left", locked("left", lock))
    b.add_node("right", locked("right", lock))
    b.add_node("timed", timed)
    b.add_node("waits", waits)
    b.add_edge(START, "first")
    b.add_edge("first", "left")
    b.add_edge("first", "right")
    b.add_edge(["left", "right"], "timed")
    b.add_conditional_edges("timed", route, ["waits", END])
    b.add_edge("waits", END)
    return b.compile(checkpointer=checkpointer)


async def lone(state: State) -> dict:
    async with asyncio.timeout(5):
        return {"log": [f"lone task={asyncio.current_task() is not None}"]}


async def fails(state: State) -> dict:
    async with asyncio.timeout(0.001):
        await asyncio.Event().wait()
    return {}


def one(node):
    b = StateGraph(State)
    b.add_node(node.__name__, node)
    b.add_edge(START, node.__name__)
    return b.compile()


async def main() -> None:
    record("no saver", await build().ainvoke({"n": 1, "log": []}))
    record("no saver, past the router", await build().ainvoke({"n": 3, "log": []}))
    record("stream", [c async for c in build().astream({"n": 2, "log": []}, stream_mode="updates")])
    graph = build(InMemorySaver())
    config = {"configurable": {"thread_id": "async-nodes"}}
    record("memory saver", await graph.ainvoke({"n": 3, "log": []}, config))
    record("again", await graph.ainvoke({"n": 1}, config))
    history(graph, config)
    record("one async node", await one(lone).ainvoke({"n": 0, "log": []}))
    try:
        await one(fails).ainvoke({"n": 0, "log": []})
    except Exception as e:
        record("a timeout that expires", type(e).__name__)


asyncio.run(main())
