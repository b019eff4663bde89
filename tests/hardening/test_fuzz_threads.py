"""A Hypothesis state machine over what callers do to threads: invoke, resume,
continue, fork, update_state, delete and cancel, on a few threads of the
reminders agent, in random order. After every step, for every thread:

* its history is a tree: ids unique, exactly one root, every version's parent
  is a version of the same thread, created before it (ids are time-ordered);
* ``get_state`` is the head of the history (the newest version, same values);
* versions are never lost (the count only grows, until the thread is deleted)
  and a deleted thread reads as empty;
* a call fails only in the ways the contract names (resume with nothing
  pending, continue a thread that does not exist), never otherwise.

A cancel starts a run that reaches the forecast tool and holds it there (the
test decides when it may go on: no sleeps), cancels it, checks that the
version saved before the tool stayed as the head, and runs on the thread
again at once: a cancelled run leaves nothing holding its thread.

It runs in process on the engine with each saver (memory, SQLite,
PostgreSQL), and once over the wire against a real server through the Python
client. Examples are few and derandomized (the same sequences every run), so
the suite stays deterministic and within its time budget.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from engine import Command
from engine.checkpoint import BaseCheckpointSaver, InMemorySaver, SqliteSaver
from engine.errors import EmptyInputError, InvalidResumeError
from tests.checkpoint._pg import clean_schema, pg_admin, pg_dsn, pg_schema  # noqa: F401 - fixtures
from tests.hardening.conftest import Hardened

THREADS = ["t0", "t1", "t2"]
TEXTS = ["remind me to call mom at 5pm", "weather in Oslo", "hello", "remind me to pay rent on friday"]
CITIES = ["Oslo", "Lima"]
REMINDER = {"reminders": [{"text": "stretch", "at": "noon"}]}
SETTINGS = settings(
    max_examples=8,
    stateful_step_count=12,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _said(text: str) -> dict[str, Any]:
    """The input of a user's message."""
    return {"messages": [{"role": "user", "content": text}]}


class Version(Protocol):
    checkpoint_id: str
    parent_id: str | None
    values: Any


class Threads(Protocol):
    """What the machine does to threads, in process or over the wire."""

    expected_failures: tuple[type[BaseException], ...]

    def invoke(self, thread: str, input: Any, checkpoint_id: str | None = None) -> None: ...
    def resume(self, thread: str, answer: str) -> None: ...
    def update(self, thread: str, values: Any, as_node: str) -> None: ...
    def delete(self, thread: str) -> None: ...
    def cancel(self, thread: str, input: Any, checkpoint_id: str | None, leave: bool, then: Any) -> None:
        """Run ``input`` (from ``checkpoint_id``) into the forecast tool, cancel it there (``leave``: the
        caller goes away; else it is cancelled from outside), then run ``then`` (None: go on), which must succeed."""

    def history(self, thread: str) -> list[tuple[str, str | None, Any]]: ...
    def head(self, thread: str) -> tuple[str, Any, bool] | None: ...
    def close(self) -> None: ...


class EngineThreads:
    """The engine's sync API on one saver (a run is cancelled through the async API)."""

    expected_failures = (InvalidResumeError, EmptyInputError)

    def __init__(self, saver: BaseCheckpointSaver) -> None:
        from examples.reminders import build_graph

        self.saver = saver
        self.reached: asyncio.Event | None = None  # set while ``cancel`` holds forecasts
        self.holding = 0  # forecasts held now
        self.graph = build_graph(forecast_wait=self._forecast).compile(checkpointer=saver, name="reminders")

    async def _forecast(self) -> None:
        """The forecast tool's wait: none, unless ``cancel`` holds it, until the run is cancelled."""
        if self.reached is None:
            return
        self.reached.set()
        self.holding += 1
        try:
            await asyncio.Event().wait()
        finally:
            self.holding -= 1

    @staticmethod
    def _cfg(thread: str, checkpoint_id: str | None = None) -> dict[str, Any]:
        conf: dict[str, Any] = {"thread_id": thread}
        if checkpoint_id:
            conf["checkpoint_id"] = checkpoint_id
        return {"configurable": conf}

    def invoke(self, thread: str, input: Any, checkpoint_id: str | None = None) -> None:
        self.graph.invoke(input, self._cfg(thread, checkpoint_id))

    def resume(self, thread: str, answer: str) -> None:
        # As a host runs it (strict): a resume with nothing to answer is refused, as the server refuses it.
        # (In process, LangGraph's invoke runs on instead: tests/engine/test_interrupts.py.)
        async def run() -> None:
            async for _ in self.graph.aevents(Command(resume=answer), self._cfg(thread), strict=True):
                pass

        asyncio.run(run())

    def update(self, thread: str, values: Any, as_node: str) -> None:
        self.graph.update_state(self._cfg(thread), values, as_node=as_node)

    def delete(self, thread: str) -> None:
        self.saver.delete_thread(thread)

    def cancel(self, thread: str, input: Any, checkpoint_id: str | None, leave: bool, then: Any) -> None:
        asyncio.run(self._cancel(input, self._cfg(thread, checkpoint_id), leave))
        state = self.graph.get_state(self._cfg(thread))
        assert state.next == ("tools",), f"{thread}: the cancelled run did not stop before its tools: {state.next}"
        self.graph.invoke(then, self._cfg(thread))

    async def _cancel(self, input: Any, config: dict[str, Any], leave: bool) -> None:
        """Cancel the task running ``ainvoke`` or, with ``leave``, the caller's task iterating ``astream``."""

        async def iterate() -> None:
            async for _ in self.graph.astream(input, config, stream_mode=["tasks", "custom", "messages"]):
                pass

        self.reached = reached = asyncio.Event()
        try:
            run = asyncio.ensure_future(iterate() if leave else self.graph.ainvoke(input, config))
            wait = asyncio.ensure_future(reached.wait())
            await asyncio.wait({run, wait}, return_when=asyncio.FIRST_COMPLETED)
            wait.cancel()
            assert reached.is_set(), f"the run ended before its forecast: {run.exception() or run.result()}"
            run.cancel()
            with pytest.raises(asyncio.CancelledError):
                await run
        finally:
            self.reached = None
        assert self.holding == 0, "the run was cancelled, but its forecast tool still runs"

    def history(self, thread: str) -> list[tuple[str, str | None, Any]]:
        return [
            (s.config["configurable"]["checkpoint_id"], (s.parent_config or {}).get("configurable", {}).get("checkpoint_id"), s.values)
            for s in self.graph.get_state_history(self._cfg(thread))
        ]

    def head(self, thread: str) -> tuple[str, Any, bool] | None:
        state = self.graph.get_state(self._cfg(thread))
        if state.metadata is None:
            return None
        return state.config["configurable"]["checkpoint_id"], state.values, bool(state.interrupts)

    def close(self) -> None:
        self.saver.close()


class WireThreads:
    """The same, through ``graphwire.Client`` against a real server (thread ids made unique per example).

    The graph is ``reminders_gated``: its forecast tool waits for a gate per
    thread, open (its file exists) except while ``cancel`` holds a run there.
    """

    GRAPH = "reminders_gated"

    def __init__(self, hardened: Hardened) -> None:
        from graphwire import FailedPrecondition, NotFound

        self.client = hardened.client()
        self.prefix = f"fuzz-{uuid.uuid4().hex[:8]}-"
        self.gates = hardened.server.gates
        for thread in THREADS:
            self._gate(thread).touch()
        # Resuming a thread that does not exist is NOT_FOUND on the wire (the engine: InvalidResumeError).
        self.expected_failures = (FailedPrecondition, NotFound)

    def _gate(self, thread: str) -> Path:
        return self.gates / f"forecast-{self.prefix}{thread}"

    def invoke(self, thread: str, input: Any, checkpoint_id: str | None = None) -> None:
        self.client.invoke(self.GRAPH, self.prefix + thread, input, checkpoint_id=checkpoint_id, timeout=30)

    def resume(self, thread: str, answer: str) -> None:
        self.client.resume(self.GRAPH, self.prefix + thread, answer, timeout=30)

    def update(self, thread: str, values: Any, as_node: str) -> None:
        self.client.update_state(self.GRAPH, self.prefix + thread, values, as_node=as_node, timeout=30)

    def delete(self, thread: str) -> None:
        from graphwire import NotFound

        try:
            self.client.delete_thread(self.GRAPH, self.prefix + thread, timeout=30)
        except NotFound:
            pass  # deleting a thread that is not there: the wire says so, the engine does not

    def cancel(self, thread: str, input: Any, checkpoint_id: str | None, leave: bool, then: Any) -> None:
        from graphwire import FinishReason, RunFinished, TaskStarted

        gate, tid = self._gate(thread), self.prefix + thread
        gate.unlink()
        try:
            stream = self.client.stream(self.GRAPH, tid, input, checkpoint_id=checkpoint_id, timeout=30)
            assert any(isinstance(e, TaskStarted) and e.node == "tools" for e in stream), "the run never ran its tools"
            if leave:
                stream.close()  # the client cancels the call; the server cancels the run, in its own time
            else:
                assert self.client.cancel(self.GRAPH, tid) is True
                *_, finished = stream  # the stream ends once the run is over
                assert isinstance(finished, RunFinished) and finished.reason is FinishReason.CANCELLED, finished
                assert finished.checkpoint is not None and finished.checkpoint.next == ("tools",), finished
                gate.touch()
            # After CancelRun the thread is free at once; after leaving, the next run queues behind the cancelled one.
            follow = self.client.stream(self.GRAPH, tid, then, enqueue=leave, timeout=30)
            started = next(follow)  # RunStarted: this run holds the thread, the cancelled one is over
            gate.touch()
            if leave:
                head = self.client.get_state(self.GRAPH, tid, started.checkpoint_id, timeout=30)
                assert head.next == ("tools",), f"{thread}: the cancelled run did not stop before its tools"
            *_, finished = follow
            assert finished.reason in (FinishReason.END, FinishReason.INTERRUPT), finished
        finally:
            gate.touch()

    def history(self, thread: str) -> list[tuple[str, str | None, Any]]:
        found = self.client.history(self.GRAPH, self.prefix + thread, timeout=30)
        return [(s.checkpoint.checkpoint_id, s.checkpoint.parent_id, s.values) for s in found]

    def head(self, thread: str) -> tuple[str, Any, bool] | None:
        from graphwire import NotFound

        try:
            state = self.client.get_state(self.GRAPH, self.prefix + thread, timeout=30)
        except NotFound:
            return None
        return state.checkpoint.checkpoint_id, state.values, bool(state.interrupts)

    def close(self) -> None:
        self.client.close()
        for thread in THREADS:
            self._gate(thread).unlink(missing_ok=True)


class ThreadMachine(RuleBasedStateMachine):
    """Rules drive :class:`Threads`; invariants read every thread back."""

    make: Callable[[], Threads]  # set by the test that runs the machine

    def __init__(self) -> None:
        super().__init__()
        self.threads = type(self).make()
        self.counts = dict.fromkeys(THREADS, 0)

    def teardown(self) -> None:
        self.threads.close()

    def _pending(self, thread: str) -> bool:
        head = self.threads.head(thread)
        return head is not None and head[2]

    # -- rules ---------------------------------------------------------------------
    @rule(thread=st.sampled_from(THREADS), text=st.sampled_from(TEXTS))
    def invoke(self, thread: str, text: str) -> None:
        self.threads.invoke(thread, {"messages": [{"role": "user", "content": text}]})

    @rule(thread=st.sampled_from(THREADS), answer=st.sampled_from(["yes", "no"]))
    def resume(self, thread: str, answer: str) -> None:
        if self._pending(thread):
            self.threads.resume(thread, answer)
        else:
            with pytest.raises(self.threads.expected_failures):
                self.threads.resume(thread, answer)

    @rule(thread=st.sampled_from(THREADS))
    def go_on(self, thread: str) -> None:
        if self.threads.head(thread) is None:
            with pytest.raises(self.threads.expected_failures):
                self.threads.invoke(thread, None)
        else:
            self.threads.invoke(thread, None)

    @rule(thread=st.sampled_from(THREADS), pick=st.integers(0, 1000), text=st.none() | st.sampled_from(TEXTS))
    def fork(self, thread: str, pick: int, text: str | None) -> None:
        history = self.threads.history(thread)
        if not history:
            return
        cid = history[pick % len(history)][0]
        self.threads.invoke(thread, None if text is None else {"messages": [{"role": "user", "content": text}]}, cid)

    @rule(thread=st.sampled_from(THREADS))
    def update(self, thread: str) -> None:
        # On a thread that exists: the reminders agent's model node needs the messages key.
        if self.threads.head(thread) is not None:
            self.threads.update(thread, REMINDER, "tools")

    @rule(thread=st.sampled_from(THREADS))
    def delete(self, thread: str) -> None:
        self.threads.delete(thread)
        self.counts[thread] = 0

    @rule(
        thread=st.sampled_from(THREADS),
        city=st.sampled_from(CITIES),
        pick=st.none() | st.integers(0, 1000),
        leave=st.booleans(),
        then=st.none() | st.sampled_from(TEXTS),
    )
    def cancel(self, thread: str, city: str, pick: int | None, leave: bool, then: str | None) -> None:
        # A weather question always reaches the forecast tool, on a new message or a fork of any version.
        history = self.threads.history(thread)
        cid = history[pick % len(history)][0] if history and pick is not None else None
        self.threads.cancel(thread, _said(f"weather in {city}"), cid, leave, None if then is None else _said(then))

    # -- invariants ----------------------------------------------------------------
    @invariant()
    def every_thread_is_a_tree_headed_by_its_state(self) -> None:
        for thread in THREADS:
            history = self.threads.history(thread)
            ids = [cid for cid, _, _ in history]
            assert len(set(ids)) == len(ids), f"{thread}: duplicate versions"
            assert ids == sorted(ids, reverse=True), f"{thread}: history is not newest first"
            roots = [cid for cid, parent, _ in history if parent is None]
            assert len(roots) == (1 if history else 0), f"{thread}: roots {roots}"
            known = set(ids)
            for cid, parent, _ in history:
                if parent is not None:
                    assert parent in known, f"{thread}: {cid}'s parent {parent} is not in the thread"
                    assert parent < cid, f"{thread}: {cid} is older than its parent {parent}"
            head = self.threads.head(thread)
            if not history:
                assert head is None, f"{thread}: a state without a history"
            else:
                assert head is not None and head[0] == ids[0], f"{thread}: get_state is not the newest version"
                assert head[1] == history[0][2], f"{thread}: get_state's values are not the head's"
            assert len(history) >= self.counts[thread], f"{thread}: versions were lost"
            self.counts[thread] = len(history)


def run_machine(make: Callable[[], Threads]) -> None:
    machine = type("Machine", (ThreadMachine,), {"make": staticmethod(make)})
    run_state_machine_as_test(machine, settings=SETTINGS)  # type: ignore[arg-type]


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def new_threads(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Threads]]:
    """A factory of fresh, empty storage per example."""
    if request.param == "memory":
        yield lambda: EngineThreads(InMemorySaver())
    elif request.param == "sqlite":
        yield lambda: EngineThreads(SqliteSaver(tmp_path / f"{uuid.uuid4().hex}.db"))
    else:
        from engine.checkpoint.postgres import PostgresSaver

        schema = request.getfixturevalue("pg_schema")
        admin = request.getfixturevalue("pg_admin")
        dsn = request.getfixturevalue("pg_dsn")

        def make() -> Threads:
            clean_schema(admin, schema)
            return EngineThreads(PostgresSaver(dsn, schema=schema, max_size=2))

        yield make


def test_thread_operations_keep_every_history_a_tree(new_threads: Callable[[], Threads]) -> None:
    run_machine(new_threads)


def test_thread_operations_over_the_wire(sqlite_hardened: Hardened) -> None:
    run_machine(lambda: WireThreads(sqlite_hardened))
