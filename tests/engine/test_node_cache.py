"""Issue 18 item 3: node caches (``add_node(cache_policy=CachePolicy(...))`` with ``compile(cache=InMemoryCache())``).

As LangGraph 1.2.22 (tests/sidebyside/node_cache.py prints both): a task
whose input the cache has seen within the ttl does not run; its cached
writes are applied, stored as the task's result and streamed, its "updates"
chunk marked ``"__metadata__": {"cached": True}``. The cache is shared
across threads; ``key_func`` decides what counts as the same input;
``clear_cache`` forgets. A node that raised or interrupted is not cached.

Each test that takes ``checkpointer`` runs on the three savers, with the
cache of the same kind on the same database (``node_cache``): an
``InMemoryCache``, a ``SqliteCache`` in the saver's file, a
``PostgresCache`` in the saver's schema.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, Iterator, TypedDict

import pytest

from psycopg import sql

from engine.cache.memory import InMemoryCache
from engine.graph import START, StateGraph
from engine.types import CachePolicy, Command, Send, interrupt


class S(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]


@pytest.fixture
def node_cache(checkpointer: Any, request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    """A cache of the saver's kind, on the saver's database, emptied, on a clock the test moves (``cache.now``)."""
    kind = request.node.callspec.params["checkpointer"]
    if kind == "memory":
        cache: Any = InMemoryCache()
    elif kind == "sqlite":
        from engine.cache.sqlite import SqliteCache

        cache = SqliteCache(path=str(tmp_path / "engine.db"))
    else:
        from engine.cache.postgres import PostgresCache

        schema = request.getfixturevalue("pg_schema")
        cache = PostgresCache.from_dsn(request.getfixturevalue("pg_dsn"), schema=schema, max_size=2)
        request.getfixturevalue("pg_admin").execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(schema, "cache_entries")))
    cache.now = [1000.0]
    cache._now = lambda: cache.now[0]
    yield cache
    cache.close()


def _thread(t: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": t}}


def _graph(checkpointer: Any, calls: list, cache: Any, policy: CachePolicy | None = None) -> Any:
    def slow(state: S) -> dict[str, Any]:
        calls.append(state["x"])
        return {"log": [f"slow {state['x']}"]}

    b = StateGraph(S).add_node("slow", slow, cache_policy=policy or CachePolicy(ttl=60))
    b.add_node("after", lambda s: {"log": ["after"]}).add_edge(START, "slow").add_edge("slow", "after")
    return b.compile(checkpointer=checkpointer, cache=cache)


def test_a_cached_node_does_not_run_again_and_its_writes_apply(checkpointer, node_cache):
    calls: list[int] = []
    app = _graph(checkpointer, calls, node_cache)
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


def test_the_ttl_expires(checkpointer, node_cache):
    now = node_cache.now
    calls: list[int] = []
    app = _graph(checkpointer, calls, node_cache, CachePolicy(ttl=10))
    app.invoke({"x": 1}, _thread("a"))
    now[0] += 9
    app.invoke({"x": 1}, _thread("b"))
    assert calls == [1]
    now[0] += 2  # 11 s after it was cached
    app.invoke({"x": 1}, _thread("c"))
    assert calls == [1, 1]


def test_key_func_decides_what_is_the_same_input(checkpointer, node_cache):
    calls: list[int] = []
    app = _graph(checkpointer, calls, node_cache, CachePolicy(key_func=lambda s: str(s["x"])))
    app.invoke({"x": 5, "log": ["a"]}, _thread("a"))
    assert app.invoke({"x": 5, "log": ["b"]}, _thread("b")) == {"x": 5, "log": ["b", "slow 5", "after"]}
    assert calls == [5]


def test_without_a_cache_the_policy_changes_nothing(checkpointer):
    calls: list[int] = []
    app = _graph(checkpointer, calls, None)
    app.invoke({"x": 1}, _thread("a"))
    app.invoke({"x": 1}, _thread("b"))
    assert calls == [1, 1]
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


def test_errors_and_interrupts_are_not_cached(checkpointer, node_cache):
    attempts: list[int] = []

    def flaky(state: S) -> dict[str, Any]:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("once")
        return {"log": ["ok"]}

    app = StateGraph(S).add_node("n", flaky, cache_policy=CachePolicy()).add_edge(START, "n").compile(
        checkpointer=checkpointer, cache=node_cache
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
        checkpointer=checkpointer, cache=node_cache
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


def test_a_hit_beside_a_failing_sibling_is_kept_as_a_pending_write(checkpointer, node_cache):
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
    app = b.add_edge(START, "c").add_edge(START, "boom").compile(checkpointer=checkpointer, cache=node_cache)
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


def test_a_sql_cache_outlives_its_object(checkpointer, node_cache, request, tmp_path):
    """A new cache on the same database (a restart, another replica) has the entries the first one wrote."""
    kind = request.node.callspec.params["checkpointer"]
    if kind == "memory":
        pytest.skip("an InMemoryCache is its object's memory")
    calls: list[int] = []
    _graph(checkpointer, calls, node_cache).invoke({"x": 3}, _thread("r1"))
    if kind == "sqlite":
        from engine.cache.sqlite import SqliteCache

        again: Any = SqliteCache(path=str(tmp_path / "engine.db"))
    else:
        from engine.cache.postgres import PostgresCache

        again = PostgresCache.from_dsn(request.getfixturevalue("pg_dsn"), schema=node_cache.schema, max_size=2)
    again._now = node_cache._now  # the test's clock, which wrote the entry's expiry
    try:
        assert _graph(checkpointer, calls, again).invoke({"x": 3}, _thread("r2")) == {"x": 3, "log": ["slow 3", "after"]}
        assert calls == [3]
    finally:
        again.close()
