"""Issue 18: the functional API's caches: @task(cache_policy=) and @entrypoint(cache=, cache_policy=)."""

import asyncio
import operator
import os
import tempfile
from typing import Annotated, TypedDict

from langgraph.cache.memory import InMemoryCache
from langgraph.cache.sqlite import SqliteCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import CachePolicy, Command, interrupt

from observe import call, history, record

calls = []


def cfg(t):
    return {"configurable": {"thread_id": t}}


@task(cache_policy=CachePolicy(ttl=120))
def slow(x: int) -> int:
    calls.append(("slow", x))
    return x * 2


@task
def plain(x):
    calls.append(("plain", x))
    return x + 1


cache = InMemoryCache()


@entrypoint(checkpointer=InMemorySaver(), cache=cache)
def wf(x: int) -> dict:
    return {"a": slow(x).result(), "b": plain(x).result(), "c": slow(x).result()}


record("first", wf.invoke(1, cfg("1")))
record("first calls", list(calls))
record("other thread", list(wf.stream(1, cfg("2"), stream_mode="updates")))
record("other thread calls", list(calls))
history(wf, cfg("2"))
record("tasks mode", list(wf.stream(1, cfg("3"), stream_mode="tasks")))
slow.clear_cache(cache)
plain.clear_cache(cache)
wf.invoke(1, cfg("4"))
record("after clear_cache", list(calls))

calls.clear()


@entrypoint(checkpointer=InMemorySaver(), cache=InMemoryCache(), cache_policy=CachePolicy())
def wf2(x: int) -> int:
    calls.append(("wf2", x))
    return plain(x // 10).result()


record("entrypoint policy", wf2.invoke(51, cfg("a")))
record("entrypoint cached", list(wf2.stream(51, cfg("b"), stream_mode="updates")))
record("tasks default to it", list(wf2.stream(52, cfg("b"), stream_mode="updates")))
history(wf2, cfg("b"))
wf2.clear_cache()
record("after the entrypoint's clear_cache", wf2.invoke(51, cfg("c")))
record("entrypoint calls", list(calls))

calls.clear()


@task(cache_policy=CachePolicy(key_func=lambda x, tag=None: str(x)))
def keyed(x, tag=None):
    calls.append(("keyed", x, tag))
    return [x, tag]


@entrypoint(cache=InMemoryCache())
def wf3(x: int):
    return [keyed(x, tag="a").result(), keyed(x, tag="b").result()]


record("key_func", wf3.invoke(1))
record("key_func calls", list(calls))

calls.clear()


@task(cache_policy=CachePolicy())
def asks(x):
    calls.append(("asks", x))
    return interrupt("q?") + str(x)


n = [0]


@task(cache_policy=CachePolicy())
def flaky(x):
    n[0] += 1
    calls.append(("flaky", x))
    if n[0] == 1:
        raise ValueError("boom")
    return x


@entrypoint(checkpointer=InMemorySaver(), cache=InMemoryCache())
def wf4(x: int) -> str:
    return f"{flaky(x).result()}-{asks(x).result()}"


call("error", wf4.invoke, 1, cfg("a"))
record("interrupt", wf4.invoke(1, cfg("b")))
record("resume", wf4.invoke(Command(resume="yes"), cfg("b")))
record("after resume, other thread", wf4.invoke(1, cfg("c")))
record("error and interrupt calls", list(calls))

calls.clear()


class S(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]


@task(cache_policy=CachePolicy())
def sq(x):
    calls.append(("sq", x))
    return x * x


def node(s):
    return {"log": [sq(s["x"]).result()]}


g = StateGraph(S).add_node("node", node).add_edge(START, "node").compile(cache=InMemoryCache(), checkpointer=InMemorySaver())
record("in a graph node", g.invoke({"x": 3}, cfg("1")))
record("in a graph node, again", list(g.stream({"x": 3}, cfg("2"), stream_mode="updates")))
record("no cache", StateGraph(S).add_node("node", node).add_edge(START, "node").compile().invoke({"x": 3}))
record("graph node calls", list(calls))

calls.clear()


@task(cache_policy=CachePolicy(ttl=None))
async def aslow(x):
    calls.append(("aslow", x))
    return x * 3


sc = SqliteCache(path=os.path.join(tempfile.mkdtemp(), "cache.db"))


@entrypoint(checkpointer=InMemorySaver(), cache=sc)
async def awf(xs: list) -> list:
    # awaited one by one: LangGraph streams a hit twice when two gathered calls look the cache up at once
    return [await aslow(x) for x in xs]


async def main():
    r1 = await awf.ainvoke([1, 2], cfg("1"))
    r2 = [c async for c in awf.astream([2, 3], cfg("2"), stream_mode="updates")]
    await aslow.aclear_cache(sc)
    r3 = await awf.ainvoke([2], cfg("3"))
    return r1, r2, r3


record("async with SqliteCache", asyncio.run(main()))
record("async calls", list(calls))
