"""Node errors, pending writes of siblings, the recursion limit, retries."""

from __future__ import annotations

import asyncio
import operator
import threading
from typing import Annotated, TypedDict

import pytest

from engine import END, START, GraphRecursionError, RetryPolicy, StateGraph
from engine.checkpoint import InMemorySaver
from engine.testing import history_summary, thread


class Log(TypedDict):
    log: Annotated[list, operator.add]


class X(TypedDict):
    x: int


def test_error_keeps_sibling_writes_and_does_not_rerun_them(checkpointer):
    runs: list[str] = []
    broken = {"on": True}

    def ok(s):
        runs.append("ok")
        return {"log": ["ok"]}

    def bad(s):
        runs.append("bad")
        if broken["on"]:
            raise ValueError("boom")
        return {"log": ["bad"]}

    g = StateGraph(Log)
    g.add_node("ok", ok)
    g.add_node("bad", bad)
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(START, "ok")
    g.add_edge(START, "bad")
    g.add_edge(["ok", "bad"], "after")
    app = g.compile(checkpointer=checkpointer)
    with pytest.raises(ValueError, match="boom"):
        app.invoke({"log": []}, thread())
    assert history_summary(app, thread()) == [("loop", 0, ("ok", "bad")), ("input", -1, ("__start__",))]
    errors = {t.name: t.error for t in app.get_state(thread()).tasks}
    assert errors == {"ok": None, "bad": "ValueError('boom')"}
    broken["on"] = False
    runs.clear()
    assert app.invoke(None, thread()) == {"log": ["bad", "ok", "after"]}
    assert runs == ["bad"]  # ok's saved writes were reused


def _fan_out(*nodes):
    g = StateGraph(Log)
    for name, fn in nodes:
        g.add_node(name, fn)
        g.add_edge(START, name)
    return g


def test_a_failure_cancels_the_async_siblings_still_running(checkpointer):
    # As LangGraph's runner: the first failure ends the step; a sibling still awaiting is cancelled,
    # recorded with a CancelledError, and runs again when the thread goes on. A sibling that finished
    # keeps its writes.
    seen: list[str] = []
    broken = {"on": True}

    async def main():
        started = asyncio.Event()

        async def slow(s):
            started.set()
            try:
                await asyncio.Event().wait()  # never set: only a cancellation ends it
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

        app = _fan_out(("slow", slow), ("done", done), ("bad", bad)).compile(checkpointer=checkpointer)
        with pytest.raises(ValueError, match="boom"):
            await asyncio.wait_for(app.ainvoke({"log": []}, thread()), 60)  # a bound, not a timing
        assert seen == ["slow cancelled"]
        state = await app.aget_state(thread())
        assert {t.name: t.error for t in state.tasks} == {"bad": "ValueError('boom')", "done": None, "slow": "CancelledError()"}
        assert state.values == {"log": ["done"]} and set(state.next) == {"bad", "slow"}

        # Going on runs the failed and the cancelled tasks, not the finished one.
        broken["on"] = False

        async def slow_again(s):
            return {"log": ["slow"]}

        again = _fan_out(("slow", slow_again), ("done", done), ("bad", bad)).compile(checkpointer=checkpointer)
        assert await again.ainvoke(None, thread()) == {"log": ["bad", "done", "slow"]}

    asyncio.run(main())


def test_a_failure_leaves_a_sync_sibling_thread_behind_under_the_async_face():
    # The thread cannot be stopped: it finishes its call, and what it returns is dropped.
    release = threading.Event()
    returned: list[str] = []

    async def main():
        loop = asyncio.get_running_loop()
        started = asyncio.Event()

        def slow(s):
            loop.call_soon_threadsafe(started.set)
            release.wait()
            returned.append("slow")
            return {"log": ["slow"]}

        async def bad(s):
            await started.wait()
            raise ValueError("boom")

        app = _fan_out(("slow", slow), ("bad", bad)).compile(checkpointer=InMemorySaver())
        with pytest.raises(ValueError, match="boom"):
            await asyncio.wait_for(app.ainvoke({"log": []}, thread()), 60)
        assert returned == []  # the run did not wait for it
        release.set()
        state = await app.aget_state(thread())
        assert {t.name: t.error for t in state.tasks} == {"bad": "ValueError('boom')", "slow": "CancelledError()"}
        assert state.values == {"log": []}

    try:
        asyncio.run(main())
    finally:
        release.set()


def test_a_failure_under_invoke_waits_for_its_sync_siblings_and_keeps_their_writes(checkpointer):
    # As LangGraph's thread pool under invoke: the siblings on threads finish; what they wrote is kept.
    started, failing = threading.Event(), threading.Event()

    def slow(s):
        started.set()
        failing.wait()  # still running as its sibling raises
        return {"log": ["slow"]}

    def bad(s):
        started.wait()
        failing.set()
        raise ValueError("boom")

    app = _fan_out(("slow", slow), ("bad", bad)).compile(checkpointer=checkpointer)
    with pytest.raises(ValueError, match="boom"):
        app.invoke({"log": []}, thread())
    state = app.get_state(thread())
    assert {t.name: t.error for t in state.tasks} == {"bad": "ValueError('boom')", "slow": None}
    assert state.values == {"log": ["slow"]}


def test_error_without_checkpointer_propagates():
    g = StateGraph(X)
    g.add_node("a", lambda s: {}["k"])
    g.add_edge(START, "a")
    with pytest.raises(KeyError):
        g.compile().invoke({"x": 1})


def chain(k: int, checkpointer=None):
    g = StateGraph(X)
    g.add_sequence([(f"n{i}", lambda s: {"x": s["x"] + 1}) for i in range(k)])
    g.add_edge(START, "n0")
    return g.compile(checkpointer=checkpointer)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_a_k_node_chain_needs_a_limit_of_k_plus_1(k):
    with pytest.raises(GraphRecursionError):
        chain(k).invoke({"x": 0}, {"recursion_limit": k})
    assert chain(k).invoke({"x": 0}, {"recursion_limit": k + 1}) == {"x": k}


def test_recursion_limit_on_a_loop_keeps_saved_versions(checkpointer):
    g = StateGraph(X)
    g.add_node("loop", lambda s: {"x": s["x"] + 1})
    g.add_edge(START, "loop")
    g.add_edge("loop", "loop")
    app = g.compile(checkpointer=checkpointer)
    with pytest.raises(GraphRecursionError) as info:
        app.invoke({"x": 0}, thread(recursion_limit=5))
    assert isinstance(info.value, RecursionError)
    assert "recursion_limit" in str(info.value)
    hist = history_summary(app, thread())
    assert len(hist) == 7 and hist[0] == ("loop", 5, ("loop",))
    assert app.get_state(thread()).values == {"x": 5}
    with pytest.raises(ValueError):
        app.invoke({"x": 0}, thread(recursion_limit=0))


def test_retry_policy_retries_then_succeeds():
    attempts = []

    def flaky(s):
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("try again")
        return {"x": len(attempts)}

    g = StateGraph(X)
    g.add_node("flaky", flaky, retry_policy=RetryPolicy(initial_interval=0, jitter=False, max_attempts=3))
    g.add_edge(START, "flaky")
    g.add_edge("flaky", END)
    assert g.compile().invoke({"x": 0}) == {"x": 3}

    attempts.clear()
    g2 = StateGraph(X)
    g2.add_node("flaky", flaky, retry_policy=RetryPolicy(initial_interval=0, max_attempts=2, retry_on=ValueError))
    g2.add_edge(START, "flaky")
    with pytest.raises(ConnectionError):
        g2.compile().invoke({"x": 0})
    assert len(attempts) == 1  # not a ValueError: no retry


@pytest.mark.parametrize(
    ("error", "retried"),
    [(ValueError("a bug"), False), (KeyError("k"), False), (OSError("disk"), False), (RuntimeError("x"), False),
     (ConnectionError("reset"), True), (TimeoutError("slow"), False), (Exception("other"), True)],
)  # fmt: skip
def test_by_default_a_programming_error_is_not_retried_and_a_network_one_is(error: Exception, retried: bool) -> None:
    """RetryPolicy's default retry_on is LangGraph's default_retry_on."""
    attempts = []

    def fails_once(s):
        attempts.append(1)
        if len(attempts) == 1:
            raise error
        return {"x": 1}

    g = StateGraph(X)
    g.add_node("n", fails_once, retry_policy=RetryPolicy(initial_interval=0, jitter=False, max_attempts=2))
    g.add_edge(START, "n")
    if retried:
        assert g.compile().invoke({"x": 0}) == {"x": 1}
    else:
        with pytest.raises(type(error)):
            g.compile().invoke({"x": 0})
    assert len(attempts) == (2 if retried else 1)


def test_retry_on_takes_a_list_of_classes():
    attempts = []

    def flaky(s):
        attempts.append(1)
        if len(attempts) < 2:
            raise KeyError("k")
        return {"x": 2}

    g = StateGraph(X)
    g.add_node("n", flaky, retry_policy=RetryPolicy(initial_interval=0, jitter=False, retry_on=[ValueError, KeyError]))
    g.add_edge(START, "n")
    assert g.compile().invoke({"x": 0}) == {"x": 2}


@pytest.mark.parametrize("parallel", [False, True])
def test_a_sync_nodes_retries_wait_in_time_sleep_under_the_sync_face(monkeypatch: pytest.MonkeyPatch, parallel: bool) -> None:
    """As LangGraph's sync runner: the backoff is ``time.sleep`` on the node's thread (a test patching it sees
    0.01, 0.02), jitter from ``random.uniform(0, 1)``; an async call of the graph waits on the loop instead."""
    import asyncio
    import random
    import time

    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)
    monkeypatch.setattr(random, "uniform", lambda a, b: 0.5)
    attempts = []

    def flaky(s):
        attempts.append(1)
        if len(attempts) % 3:
            raise ValueError("not yet")
        return {"x": len(attempts)}

    def graph(policy: RetryPolicy):
        g = StateGraph(X)
        g.add_node("flaky", flaky, retry_policy=policy)
        g.add_edge(START, "flaky")
        if parallel:
            g.add_node("other", lambda s: {})
            g.add_edge(START, "other")
        return g.compile()

    assert graph(RetryPolicy(initial_interval=0.01, jitter=False, retry_on=ValueError)).invoke({"x": 0}) == {"x": 3}
    assert waits == [0.01, 0.02]
    assert graph(RetryPolicy(initial_interval=0.01, jitter=True, retry_on=ValueError)).invoke({"x": 0}) == {"x": 6}
    assert waits[2:] == [0.51, 0.52]
    on_loop = graph(RetryPolicy(initial_interval=0.01, jitter=False, retry_on=ValueError))
    assert asyncio.run(on_loop.ainvoke({"x": 0})) == {"x": 9}
    assert len(waits) == 4  # an async call waits on the loop (asyncio.sleep), not in time.sleep


class Blob(TypedDict, total=False):
    n: int
    blob: str


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_refused_write_finishes_with_the_values_stored(kind: str, durability: str, tmp_path) -> None:
    """RunFinished after a write the saver refused reports the last stored version's values
    (None when the call stored none), never values that were not stored."""
    from engine.checkpoint import InMemorySaver, SqliteSaver
    from engine.events import RunFinished
    from engine.serde import StateTooLargeError

    saver = InMemorySaver(max_state_bytes=10_000) if kind == "memory" else SqliteSaver(str(tmp_path / "e.db"), max_state_bytes=10_000)
    g = StateGraph(Blob)
    g.add_sequence([("a", lambda s: {"n": s["n"] + 1}), ("b", lambda s: {"blob": "x" * 20_000}), ("c", lambda s: {"n": s["n"] + 1})])
    g.add_edge(START, "a")
    app = g.compile(checkpointer=saver)

    async def final(inp: dict) -> RunFinished:
        events = [e async for e in app.aevents(inp, thread(), durability=durability)]
        assert isinstance(events[-1], RunFinished)
        return events[-1]

    import asyncio

    first = asyncio.run(final({"n": 0, "blob": ""}))
    assert first.reason == "ERROR" and isinstance(first.exception, StateTooLargeError)
    stored = app.get_state(thread()) if first.checkpoint_id else None
    if durability == "exit":
        assert first.checkpoint_id is None and first.values is None and stored is None  # nothing of the call was stored
    else:
        assert stored is not None and first.checkpoint_id == stored.config["configurable"]["checkpoint_id"]
        assert first.values == stored.values == {"n": 1, "blob": ""}
    saver.close()


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
def test_a_refused_version_in_a_batch_stores_the_versions_before_it(kind: str, tmp_path, request) -> None:
    """With async durability, versions that waited for the writer are stored in one batch (one
    transaction, all or none). A version the saver refuses must not take the good versions
    queued before it down with it: they are stored, as with durability "sync", and the run's
    last saved version is the one before the refused one, however the versions were batched."""
    import asyncio

    from engine.checkpoint import InMemorySaver, SqliteSaver
    from engine.checkpoint.base import empty_checkpoint
    from engine.pregel import _telemetry as tel
    from engine.pregel._writer import VersionWriter, new_version
    from engine.serde import StateTooLargeError

    if kind == "memory":
        saver = InMemorySaver(max_state_bytes=10_000)
    elif kind == "sqlite":
        saver = SqliteSaver(str(tmp_path / "b.db"), max_state_bytes=10_000)
    else:
        from engine.checkpoint.postgres import PostgresSaver
        from tests.checkpoint._pg import clean_schema

        schema = request.getfixturevalue("pg_schema")
        clean_schema(request.getfixturevalue("pg_admin"), schema)
        saver = PostgresSaver.from_dsn(request.getfixturevalue("pg_dsn"), schema=schema, max_size=2, max_state_bytes=10_000)

    async def run() -> tuple[list[str], str | None, BaseException | None]:
        w = VersionWriter(saver, thread_id="t-batch", durability="async", trace=tel.RunTrace("g"))
        ck = empty_checkpoint()
        ids: list[str] = []
        parent = None
        for step, blob in enumerate(["a", "b", "x" * 20_000, "c"]):
            ck["channel_values"]["blob"] = blob
            ck["channel_versions"]["blob"] = step + 1
            w.dirty["blob"] = step + 1
            v = new_version(ck)
            # put() does not yield to the event loop here: every version waits for the
            # writer task, which stores them as one batch when flush() lets it run.
            await w.put(parent, v, {"source": "loop", "step": step, "parents": {}}, [])
            ids.append(v["id"])
            parent = v["id"]
        try:
            await w.flush()
        except StateTooLargeError as e:
            return ids, w.last_saved_id, e
        return ids, w.last_saved_id, None

    try:
        ids, last_saved, error = asyncio.run(run())
        assert isinstance(error, StateTooLargeError)
        assert last_saved == ids[1]  # the two versions before the refused one landed
        stored = [t.checkpoint["id"] for t in saver.list({"configurable": {"thread_id": "t-batch"}})]
        assert stored == [ids[1], ids[0]]  # newest first; nothing of the refused one or after it
    finally:
        saver.close()


def test_node_interrupt_is_langgraphs_older_interrupt(checkpointer):
    """tests/sidebyside/builder_api.py: ``raise NodeInterrupt(value)`` stops the run with that value, its
    id LangGraph's placeholder (no answer is matched to it: the node runs again on the next call), deprecated."""
    import warnings

    from engine.errors import NodeInterrupt

    def guarded(s: dict) -> dict:
        if s["x"] > 5:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                err = NodeInterrupt("x too big")
            assert seen and issubclass(seen[0].category, DeprecationWarning)
            raise err
        return {"x": s["x"]}

    g = StateGraph(X).add_node("guarded", guarded).add_edge(START, "guarded").compile(checkpointer=checkpointer)
    out = g.invoke({"x": 10}, thread("ni"))
    assert [(i.value, i.id) for i in out["__interrupt__"]] == [("x too big", "placeholder-id")]
    g.update_state(thread("ni"), {"x": 1})
    assert g.invoke(None, thread("ni")) == {"x": 1}
