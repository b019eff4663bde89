"""Issue 18: the functional API's caches (``@task(cache_policy=)``, ``@entrypoint(cache=, cache_policy=)``).

As LangGraph 1.2.22 (tests/sidebyside/task_cache.py prints both): in a
graph with a cache, a call of a task with a cache policy whose arguments'
key was seen within the ttl does not run; the cached result is returned,
stored as the call's result and streamed, its "updates" chunk marked
``"__metadata__": {"cached": True}`` ("tasks" mode shows its start, no
result). The entrypoint's ``cache_policy`` caches the workflow itself and is
the default of its tasks. A call that raised or interrupted is not cached.

Each test runs on the three savers with the cache of the same kind
(``node_cache`` of tests/engine/test_node_cache.py).
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from engine.func import entrypoint, task
from engine.graph import START, StateGraph
from engine.types import CachePolicy, Command, interrupt
from tests.engine.test_node_cache import node_cache  # noqa: F401 - fixture


def _thread(t: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": t}}


def test_a_cached_task_does_not_run_again_across_calls(checkpointer, node_cache):
    calls: list = []

    @task(cache_policy=CachePolicy(ttl=120))
    def slow(x: int) -> int:
        calls.append(("slow", x))
        return x * 2

    @task
    def plain(x: int) -> int:
        calls.append(("plain", x))
        return x + 1

    @entrypoint(checkpointer=checkpointer, cache=node_cache)
    def wf(x: int) -> dict:
        return {"a": slow(x).result(), "b": plain(x).result(), "c": slow(x).result()}

    assert wf.invoke(1, _thread("1")) == {"a": 2, "b": 2, "c": 2}
    assert calls == [("slow", 1), ("plain", 1)]  # the second call in the run found the first's result
    chunks = list(wf.stream(1, _thread("2"), stream_mode="updates"))
    assert chunks == [
        {"slow": 2, "__metadata__": {"cached": True}},
        {"plain": 2},
        {"slow": 2, "__metadata__": {"cached": True}},
        {"wf": {"a": 2, "b": 2, "c": 2}},
    ]
    assert calls == [("slow", 1), ("plain", 1), ("plain", 1)]
    wf.invoke(2, _thread("3"))
    assert calls[-2:] == [("slow", 2), ("plain", 2)]
    slow.clear_cache(node_cache)
    plain.clear_cache(node_cache)  # no policy: nothing to clear, as LangGraph
    wf.invoke(1, _thread("4"))
    assert calls[-2:] == [("slow", 1), ("plain", 1)]


def test_a_cache_hit_is_stored_as_the_calls_result(checkpointer, node_cache):
    """A resumed workflow finds a cached call's result in its pending writes, like any finished call."""
    calls: list = []

    @task(cache_policy=CachePolicy())
    def slow(x: int) -> int:
        calls.append(x)
        return x * 2

    @entrypoint(checkpointer=checkpointer, cache=node_cache)
    def wf(x: int) -> str:
        return f"{slow(x).result()}:{interrupt('ok?')}"

    wf.invoke(3, _thread("a"))
    wf.invoke(3, _thread("b"))
    assert calls == [3]
    node_cache.clear()  # the resume must not need the cache
    assert wf.invoke(Command(resume="yes"), _thread("b")) == "6:yes"
    assert calls == [3]


def test_the_ttl_expires(checkpointer, node_cache):
    calls: list = []

    @task(cache_policy=CachePolicy(ttl=10))
    def slow(x: int) -> int:
        calls.append(x)
        return x

    @entrypoint(checkpointer=checkpointer, cache=node_cache)
    def wf(x: int) -> int:
        return slow(x).result()

    wf.invoke(1, _thread("a"))
    node_cache.now[0] += 9
    wf.invoke(1, _thread("b"))
    assert calls == [1]
    node_cache.now[0] += 2
    wf.invoke(1, _thread("c"))
    assert calls == [1, 1]


def test_key_func_takes_the_calls_arguments(checkpointer, node_cache):
    calls: list = []

    @task(cache_policy=CachePolicy(key_func=lambda x, tag=None: str(x)))
    def keyed(x: int, tag: str | None = None) -> list:
        calls.append((x, tag))
        return [x, tag]

    @entrypoint(checkpointer=checkpointer, cache=node_cache)
    def wf(x: int) -> list:
        return [keyed(x, tag="a").result(), keyed(x, tag="b").result(), keyed(x + 1, tag="b").result()]

    assert wf.invoke(1, _thread("a")) == [[1, "a"], [1, "a"], [2, "b"]]
    assert calls == [(1, "a"), (2, "b")]


def test_the_entrypoints_cache_policy_caches_it_and_is_its_tasks_default(checkpointer, node_cache):
    calls: list = []

    @task
    def plain(x: int) -> int:
        calls.append(("plain", x))
        return x + 1

    @entrypoint(checkpointer=checkpointer, cache=node_cache, cache_policy=CachePolicy())
    def wf(x: int) -> int:
        calls.append(("wf", x))
        return plain(x // 10).result()

    assert wf.invoke(51, _thread("a")) == 6
    assert list(wf.stream(51, _thread("b"), stream_mode="updates")) == [{"wf": 6, "__metadata__": {"cached": True}}]
    assert calls == [("wf", 51), ("plain", 5)]
    assert wf.get_state(_thread("b")).values == 6
    assert list(wf.stream(52, _thread("b"), stream_mode="updates")) == [
        {"plain": 6, "__metadata__": {"cached": True}},
        {"wf": 6},
    ]
    assert calls == [("wf", 51), ("plain", 5), ("wf", 52)]
    wf.clear_cache()  # the workflow's own entries; its tasks' stay
    assert wf.invoke(51, _thread("c")) == 6
    assert calls[3:] == [("wf", 51)]


def test_errors_and_interrupts_are_not_cached(checkpointer, node_cache):
    calls: list = []

    @task(cache_policy=CachePolicy())
    def flaky(x: int) -> int:
        calls.append(("flaky", x))
        if len(calls) == 1:
            raise ValueError("boom")
        return x

    @task(cache_policy=CachePolicy())
    def asks(x: int) -> str:
        calls.append(("asks", x))
        return f"{interrupt('q?')}{x}"

    @entrypoint(checkpointer=checkpointer, cache=node_cache)
    def wf(x: int) -> str:
        return f"{flaky(x).result()}-{asks(x).result()}"

    with pytest.raises(ValueError, match="boom"):
        wf.invoke(1, _thread("a"))
    assert "__interrupt__" in wf.invoke(1, _thread("b"))
    assert calls == [("flaky", 1), ("flaky", 1), ("asks", 1)]
    assert wf.invoke(Command(resume="yes"), _thread("b")) == "1-yes1"
    assert wf.invoke(1, _thread("c")) == "1-yes1"  # the resumed call's result was cached
    assert calls == [("flaky", 1), ("flaky", 1), ("asks", 1), ("asks", 1)]


def test_without_a_cache_the_policy_changes_nothing(checkpointer):
    calls: list = []

    @task(cache_policy=CachePolicy())
    def slow(x: int) -> int:
        calls.append(x)
        return x

    @entrypoint(checkpointer=checkpointer)
    def wf(x: int) -> int:
        return slow(x).result()

    wf.invoke(3, _thread("a"))
    wf.invoke(3, _thread("b"))
    assert calls == [3, 3]


class S(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]


def test_a_cached_task_called_by_a_graph_node(checkpointer, node_cache):
    """A lone sync node of a sync call (which would run inline on the loop's thread) calls a cached task."""
    calls: list = []

    @task(cache_policy=CachePolicy())
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    def node(s: S) -> dict:
        return {"log": [square(s["x"]).result()]}

    g = StateGraph(S).add_node("node", node).add_edge(START, "node").compile(checkpointer=checkpointer, cache=node_cache)
    assert g.invoke({"x": 3}, _thread("a")) == {"x": 3, "log": [9]}
    assert list(g.stream({"x": 3}, _thread("b"), stream_mode="updates")) == [
        {"square": 9, "__metadata__": {"cached": True}},
        {"node": {"log": [9]}},
    ]
    assert calls == [3]
    plain = StateGraph(S).add_node("node", node).add_edge(START, "node").compile(checkpointer=checkpointer)
    assert plain.invoke({"x": 3}, _thread("c")) == {"x": 3, "log": [9]}
    assert calls == [3, 3]


def test_async_tasks_and_the_tasks_mode(checkpointer, node_cache):
    calls: list = []

    @task(cache_policy=CachePolicy(ttl=None))
    async def triple(x: int) -> int:
        calls.append(x)
        return x * 3

    @entrypoint(checkpointer=checkpointer, cache=node_cache)
    async def wf(xs: list) -> list:
        return list(await asyncio.gather(*[triple(x) for x in xs]))

    async def main() -> Any:
        first = await wf.ainvoke([1, 2], _thread("a"))
        again = [c async for c in wf.astream([2, 3], _thread("b"), stream_mode="updates")]
        tasks = [c async for c in wf.astream([1], _thread("c"), stream_mode="tasks")]
        await triple.aclear_cache(node_cache)
        await wf.ainvoke([1], _thread("d"))
        return first, again, tasks

    first, again, tasks = asyncio.run(main())
    assert first == [3, 6]
    # the two tasks run at once: their updates come as each finishes (a hit need not be first)
    assert sorted(again[:2], key=repr) == [{"triple": 6, "__metadata__": {"cached": True}}, {"triple": 9}]
    assert again[2:] == [{"wf": [6, 9]}]
    # "tasks" shows a cached call's start, and no result (as LangGraph)
    assert [(c["name"], "input" in c, "result" in c) for c in tasks] == [("wf", True, False), ("triple", True, False),
                                                                      ("wf", False, True)]
    # the first call's two tasks look the cache up at once: either may reach the function first
    assert sorted(calls[:2]) == [1, 2] and calls[2:] == [3, 1]
