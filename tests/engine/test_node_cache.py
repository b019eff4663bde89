"""Issue 18 item 3: node caches (``add_node(cache_policy=CachePolicy(...))`` with ``compile(cache=InMemoryCache())``).

As LangGraph 1.2.22 (tests/sidebyside/node_cache.py prints both): a task
whose input the cache has seen within the ttl does not run; its cached
writes are applied, stored as the task's result and streamed, its "updates"
chunk marked ``"__metadata__": {"cached": True}``. The cache is shared
across threads; ``key_func`` decides what counts as the same input;
``clear_cache`` forgets. A node that raised or interrupted is not cached.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

import engine.cache.memory as memory_cache
from engine.cache.memory import InMemoryCache
from engine.graph import START, StateGraph
from engine.types import CachePolicy, Command, Send, interrupt


class S(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]


def _thread(t: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": t}}


def _graph(checkpointer: Any, calls: list, policy: CachePolicy | None = None, cache: Any = None) -> Any:
    def slow(state: S) -> dict[str, Any]:
        calls.append(state["x"])
        return {"log": [f"slow {state['x']}"]}

    b = StateGraph(S).add_node("slow", slow, cache_policy=policy or CachePolicy(ttl=60))
    b.add_node("after", lambda s: {"log": ["after"]}).add_edge(START, "slow").add_edge("slow", "after")
    return b.compile(checkpointer=checkpointer, cache=InMemoryCache() if cache is None else cache)


def test_a_cached_node_does_not_run_again_and_its_writes_apply(checkpointer):
    calls: list[int] = []
    app = _graph(checkpointer, calls)
    assert app.invoke({"x": 1}, _thread("a")) == {"x": 1, "log": ["slow 1", "after"]}
    chunks = list(app.stream({"x": 1}, _thread("b"), stream_mode="updates"))
    assert chunks == [{"slow": {"log": ["slow 1"]}, "__metadata__": {"cached": True}}, {"after": {"log": ["after"]}}]
    assert calls == [1]
    # Stored as if it had run: the task's result in history, the values in the version.
    snaps = list(app.get_state_history(_thread("b")))
    assert [t.result for t in snaps[-2].tasks if t.name == "slow"] == [{"log": ["slow 1"]}]
    assert app.get_state(_thread("b")).values == {"x": 1, "log": ["slow 1", "after"]}
    assert list(app.stream({"x": 2}, _thread("b"), stream_mode="updates"))[0] == {"slow": {"log": ["slow 2"]}}
    assert calls == [1, 2]
    app.clear_cache()
    app.invoke({"x": 1}, _thread("c"))
    assert calls == [1, 2, 1]


def test_the_ttl_expires(checkpointer, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(memory_cache.time, "time", lambda: now[0])
    calls: list[int] = []
    app = _graph(checkpointer, calls, CachePolicy(ttl=10))
    app.invoke({"x": 1}, _thread("a"))
    now[0] += 9
    app.invoke({"x": 1}, _thread("b"))
    assert calls == [1]
    now[0] += 2  # 11 s after it was cached
    app.invoke({"x": 1}, _thread("c"))
    assert calls == [1, 1]


def test_key_func_decides_what_is_the_same_input(checkpointer):
    calls: list[int] = []
    app = _graph(checkpointer, calls, CachePolicy(key_func=lambda s: str(s["x"])))
    app.invoke({"x": 5, "log": ["a"]}, _thread("a"))
    assert app.invoke({"x": 5, "log": ["b"]}, _thread("b")) == {"x": 5, "log": ["b", "slow 5", "after"]}
    assert calls == [5]


def test_without_a_cache_the_policy_changes_nothing(checkpointer):
    calls: list[int] = []
    app = _graph(checkpointer, calls, cache=False or None)
    app.invoke({"x": 1}, _thread("a"))
    assert calls == [1]
    b = StateGraph(S).add_node("n", lambda s: {"log": ["n"]}, cache_policy=CachePolicy()).add_edge(START, "n")
    plain = b.compile(checkpointer=checkpointer)
    assert plain.invoke({"x": 1}, _thread("p")) == {"x": 1, "log": ["n"]}
    with pytest.raises(ValueError, match="No cache"):
        plain.clear_cache()


def test_sends_of_one_input_in_one_step_all_hit():
    """LangGraph reruns one of two same-input Sends on a hit (its lookup keeps one task per key); here neither runs."""
    calls: list[int] = []

    def slow(arg: dict[str, int]) -> dict[str, Any]:
        calls.append(arg["x"])
        return {"log": [arg["x"]]}

    b = StateGraph(S).add_node("slow", slow, cache_policy=CachePolicy())
    b.add_conditional_edges(START, lambda s: [Send("slow", {"x": i}) for i in (7, 8, 7)], ["slow"])
    app = b.compile(cache=InMemoryCache())
    assert app.invoke({"log": []}) == {"log": [7, 8, 7]}
    assert app.invoke({"log": []}) == {"log": [7, 8, 7]}
    assert sorted(calls) == [7, 7, 8]


def test_errors_and_interrupts_are_not_cached(checkpointer):
    attempts: list[int] = []

    def flaky(state: S) -> dict[str, Any]:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("once")
        return {"log": ["ok"]}

    app = StateGraph(S).add_node("n", flaky, cache_policy=CachePolicy()).add_edge(START, "n").compile(
        checkpointer=checkpointer, cache=InMemoryCache()
    )
    with pytest.raises(RuntimeError):
        app.invoke({"x": 1}, _thread("e1"))
    assert app.invoke({"x": 1}, _thread("e2"))["log"] == ["ok"]
    assert len(attempts) == 2

    asked: list[int] = []

    def ask(state: S) -> dict[str, Any]:
        asked.append(1)
        return {"log": [interrupt("ok?")]}

    q = StateGraph(S).add_node("ask", ask, cache_policy=CachePolicy()).add_edge(START, "ask").compile(
        checkpointer=checkpointer, cache=InMemoryCache()
    )
    q.invoke({"x": 1}, _thread("q"))
    assert q.invoke(Command(resume="yes"), _thread("q"))["log"] == ["yes"]
    assert len(asked) == 2  # the interrupted attempt was not cached; the resumed one ran


def test_the_cache_contract_directly():
    cache = InMemoryCache()
    ns = ("n",)
    cache.set({(ns, "k"): ({"a": [1, 2]}, None), (("other",), "k"): (3, None)})
    got = cache.get([(ns, "k"), (ns, "missing")])
    assert got == {(ns, "k"): {"a": [1, 2]}}
    got[(ns, "k")]["a"].append(3)  # a reader's mutation does not reach the cache
    assert asyncio.run(cache.aget([(ns, "k")])) == {(ns, "k"): {"a": [1, 2]}}
    cache.clear([ns])
    assert cache.get([(ns, "k"), (("other",), "k")]) == {(("other",), "k"): 3}
    asyncio.run(cache.aclear())
    assert cache.get([(("other",), "k")]) == {}


def test_a_hit_beside_a_failing_sibling_is_kept_as_a_pending_write(checkpointer):
    calls: list[str] = []
    fail = [True]

    def cached_node(state: S) -> dict[str, Any]:
        calls.append("cached")
        return {"log": ["cached"]}

    def boom(state: S) -> dict[str, Any]:
        if fail[0]:
            raise RuntimeError("boom")
        return {"log": ["boom ok"]}

    b = StateGraph(S).add_node("c", cached_node, cache_policy=CachePolicy()).add_node("boom", boom)
    app = b.add_edge(START, "c").add_edge(START, "boom").compile(checkpointer=checkpointer, cache=InMemoryCache())
    for t in ("f1", "f2"):  # f1 caches c's writes; on f2, c is a hit beside boom, which fails
        with pytest.raises(RuntimeError):
            app.invoke({"x": 1}, _thread(t))
    assert calls == ["cached"]
    fail[0] = False
    app.clear_cache()  # so only the stored pending write can keep c from running again
    assert app.invoke(None, _thread("f2"))["log"] == ["boom ok", "cached"]
    assert calls == ["cached"]
    snap = list(app.get_state_history(_thread("f2")))[0]
    assert snap.values["log"] == ["boom ok", "cached"]
