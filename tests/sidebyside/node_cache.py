"""Issue 18 item 3: node caches: a cached node does not run again for the same input; its writes apply as if it had."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.cache.memory import InMemoryCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import CachePolicy, Send

from observe import history, record


class S(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]


calls = []


def slow(state):
    calls.append(state["x"])
    return {"log": [f"slow {state['x']}"]}


def after(state):
    return {"log": ["after"]}


def build(policy, cache):
    b = StateGraph(S).add_node("slow", slow, cache_policy=policy).add_node("after", after)
    b.add_edge(START, "slow").add_edge("slow", "after")
    return b.compile(cache=cache, checkpointer=InMemorySaver())


g = build(CachePolicy(ttl=600), InMemoryCache())
record("first", g.invoke({"x": 1}, {"configurable": {"thread_id": "1"}}))
record("again, other thread", list(g.stream({"x": 1}, {"configurable": {"thread_id": "2"}}, stream_mode="updates")))
record("other input", list(g.stream({"x": 2}, {"configurable": {"thread_id": "2"}}, stream_mode="updates")))
history(g, {"configurable": {"thread_id": "2"}})
record("values", list(g.stream({"x": 1}, {"configurable": {"thread_id": "3"}}, stream_mode=["values", "updates"])))
record("calls", list(calls))
g.clear_cache()
g.invoke({"x": 1}, {"configurable": {"thread_id": "4"}})
record("after clear_cache", list(calls))

calls.clear()
by_x = build(CachePolicy(key_func=lambda s: str(s["x"])), InMemoryCache())
by_x.invoke({"x": 5, "log": ["a"]}, {"configurable": {"thread_id": "k1"}})
record("key_func ignores log", by_x.invoke({"x": 5, "log": ["b"]}, {"configurable": {"thread_id": "k2"}}))
record("key_func calls", list(calls))
record("no cache: runs", build(CachePolicy(), None).invoke({"x": 5}, {"configurable": {"thread_id": "n"}}))
record("no cache calls", list(calls))


def fan(state):
    # Not two Sends of one input in one step: LangGraph then reruns one of them on a cache hit
    # (README "Where it differs"; tests/engine/test_node_cache.py pins the engine's answer).
    return [Send("slow", {"x": i}) for i in (7, 8)]


calls.clear()
m = StateGraph(S).add_node("slow", slow, cache_policy=CachePolicy()).add_conditional_edges(START, fan, ["slow"])
mc = m.compile(cache=InMemoryCache())
record("sends", mc.invoke({"log": []}))
record("sends again", mc.invoke({"log": []}))
record("send calls", sorted(calls))


async def main():
    a = build(CachePolicy(), InMemoryCache())
    await a.ainvoke({"x": 9}, {"configurable": {"thread_id": "a1"}})
    return [c async for c in a.astream({"x": 9}, {"configurable": {"thread_id": "a2"}}, stream_mode="updates")]


calls.clear()
record("async", asyncio.run(main()))
record("async calls", list(calls))
