"""Sync nodes that call async code themselves, under a sync invoke/stream.

A plain ``def`` node runs with no event loop of its own on LangGraph, so it
may call ``asyncio.run()`` (an async client library from sync code), see
that no loop runs, and call another graph's sync ``invoke``.
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


async def fetch(n: int) -> int:
    async with asyncio.timeout(5):
        await asyncio.sleep(0)
        return n * 10


def loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def calls_async(state: State) -> dict:
    return {"log": [f"fetched {asyncio.run(fetch(state['n']))} loop={loop_running()}"]}


inner = StateGraph(State)
inner.add_node("double", lambda s: {"n": s["n"] * 2, "log": ["inner"]})
inner.add_edge(START, "double")
inner_graph = inner.compile()


def calls_a_graph(state: State) -> dict:
    out = inner_graph.invoke({"n": state["n"], "log": []})
    return {"log": [f"inner gave {out['n']} loop={loop_running()}"]}


def build(checkpointer=None, parallel=False):
    b = StateGraph(State)
    b.add_node("calls_async", calls_async)
    b.add_node("calls_a_graph", calls_a_graph)
    if parallel:
        b.add_edge(START, "calls_async")
        b.add_edge(START, "calls_a_graph")
    else:
        b.add_edge(START, "calls_async")
        b.add_edge("calls_async", "calls_a_graph")
    b.add_edge("calls_a_graph", END)
    return b.compile(checkpointer=checkpointer)


record("one at a time", build().invoke({"n": 1, "log": []}))
record("in parallel", build(parallel=True).invoke({"n": 2, "log": []}))
record("stream", list(build().stream({"n": 3, "log": []}, stream_mode="updates")))
graph = build(InMemorySaver())
config = {"configurable": {"thread_id": "sync-asyncio"}}
record("with a saver", graph.invoke({"n": 4, "log": []}, config))
history(graph, config)
