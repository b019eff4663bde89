"""Graphs LangGraph itself runs, through the service's run machinery (issue 31 item 1).

One server (``--runtime`` naming every graph of a module built with
LangGraph's own classes) answers each RPC for them as it does for the
engine's graphs: a streamed run's events in order (subgraph events under
their namespace), GetState / ListHistory / GetGraph / ListGraphs,
UpdateState and Fork, a node's error and the retry, the recursion limit,
CancelRun, JoinRun, background runs and a second call on a busy thread
(refused, or queued with ``enqueue``). Gates (files in the server's gates
directory) hold a node where a test needs it, as tests/graphs.py's do.

The module's server (:func:`lg`, on SQLite and on PostgreSQL) serves the graphs
of tests/server/_langgraph_graphs.py on LangGraph and, as ``engine_<name>``,
on the engine; test_langgraph_runtime_options.py and
test_langgraph_runtime_features.py use it too.

Each test that takes ``served`` runs twice, for each runtime: on the graph built with
LangGraph's classes (served by LangGraph) and on the same module built with the
engine's (``engine_<name>``), with the same calls and the same assertions.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Callable

import pytest

pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

from graphwire import (  # noqa: E402
    Aborted,
    CheckpointSaved,
    CustomEvent,
    FinishReason,
    InterruptEvent,
    RunFinished,
    RunStarted,
    RunStatus,
    StepStarted,
    TaskFinished,
    TaskStarted,
    ThreadStatus,
    ValuesEvent,
)

from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg  # noqa: E402
from tests.conftest import ServerProcess, start_server_process  # noqa: E402
from tests.server._langgraph_graphs import NAMES, NEVER, graph_args, served  # noqa: E402, F401 - served: the runtime under test

@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def lg(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The module's server, on a SQLite file and on PostgreSQL (a schema of its own)."""
    directory = tmp_path_factory.mktemp("lg")
    graphs, args = graph_args(directory)
    backend: dict[str, Any] = {}
    if request.param == "postgres":
        backend = {"pg_dsn": require_pg(), "pg_schema": new_schema_name()}
    try:
        srv = start_server_process(directory / "srv", graphs=graphs, args=args, **backend)
        yield srv
        code = srv.terminate()
        assert code == 0, f"server exited with {code} on SIGTERM:\n{srv.log()}"
    finally:
        if backend:
            drop_schema(backend["pg_schema"])


def _until(events: Iterator[Any], match: Any) -> list[Any]:
    seen = []
    for e in events:
        seen.append(e)
        if match(e):
            return seen
    raise AssertionError(f"the run ended first: {seen}")


def _working(e: Any) -> bool:
    return isinstance(e, CustomEvent) and e.node == "work"


def test_a_streamed_run_gives_its_events_in_order_with_subgraph_namespaces(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as client:
        events = list(client.stream(served("ask"), thread_id, {"log": []}, timeout=30))
    assert isinstance(events[0], RunStarted) and events[0].checkpoint_id is None
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.reason is FinishReason.INTERRUPT
    assert [i.value for i in finished.interrupts] == [{"question": "go on?", "seen": 1}]
    assert all(e.run_id == events[0].run_id for e in events)
    assert [e.seq for e in events] == sorted({e.seq for e in events})
    top = [e for e in events if e.namespace == ()]
    inner = [e for e in events if e.namespace != ()]
    # the parent's tasks start, then finish, each after the version that planned it
    # (LangGraph's tasks stream leaves out its hidden ``__start__`` task; the server reports it, as the engine does)
    names = [(type(e).__name__, e.node) for e in top if isinstance(e, (TaskStarted, TaskFinished))]
    assert names == [
        ("TaskStarted", "__start__"), ("TaskFinished", "__start__"),
        ("TaskStarted", "first"), ("TaskFinished", "first"),
        ("TaskStarted", "sub"), ("TaskFinished", "sub"),
    ]  # fmt: skip
    saved = [e for e in top if isinstance(e, CheckpointSaved)]
    assert [(c.checkpoint.source, c.checkpoint.next) for c in saved] == [
        ("input", ("__start__",)), ("loop", ("first",)), ("loop", ("sub",)),
    ]  # fmt: skip
    assert saved[-1].checkpoint.checkpoint_id == finished.checkpoint.checkpoint_id
    first_done = next(e for e in top if isinstance(e, TaskFinished) and e.node == "first")
    assert first_done.update == {"log": ["first"]} and first_done.error is None
    sub_done = next(e for e in top if isinstance(e, TaskFinished) and e.node == "sub")
    assert sub_done.interrupts and sub_done.update is None
    assert [e.values for e in top if isinstance(e, ValuesEvent)][-1] == {"log": ["first"]}
    assert any(isinstance(e, StepStarted) for e in top)
    # the subgraph's events, under the parent's task that runs it
    assert inner and {e.namespace[0].partition(":")[0] for e in inner} == {"sub"}
    asked = [e for e in inner if isinstance(e, TaskStarted)]
    assert [e.node for e in asked] == ["__start__", "ask"]
    questions = [e for e in events if isinstance(e, InterruptEvent)]
    assert questions and questions[0].value == {"question": "go on?", "seen": 1}
    assert events.index(questions[0]) < len(events) - 1


def test_state_history_and_the_drawing(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as client:
        paused = client.invoke(served("ask"), thread_id, {"log": []}, timeout=30)
        state = client.get_state(served("ask"), thread_id)
        assert state.values == {"log": ["first"]} and state.next == ("sub",)
        assert state.checkpoint.checkpoint_id == paused.checkpoint.checkpoint_id
        assert [i.value for i in state.interrupts] == [{"question": "go on?", "seen": 1}]
        assert [t.node for t in state.tasks] == ["sub"]
        done = client.resume(served("ask"), thread_id, "yes", timeout=30)
        # (the subgraph returns its whole state, so LangGraph adds "first" again, as in process)
        assert done.reason is FinishReason.END and done.values == {"log": ["first", "first", "ask:yes", "last"]}
        history = client.history(served("ask"), thread_id)
        assert [(s.checkpoint.source, s.next) for s in history] == [
            ("loop", ()), ("loop", ("last",)), ("loop", ("sub",)), ("loop", ("first",)), ("input", ("__start__",)),
        ]  # fmt: skip
        assert history[0].checkpoint.checkpoint_id == done.checkpoint.checkpoint_id
        assert {s.metadata["run_id"] for s in history} == {paused.run_id, done.run_id}
        assert len(client.history(served("ask"), thread_id, limit=2)) == 2
        drawn = client.graph(served("ask"))
        listed = {g.name: g for g in client.graphs()}
    assert set(NAMES) <= set(listed)
    assert {n.name for n in drawn.nodes} == {"__start__", "first", "sub", "last", "__end__"}
    assert {(e.source, e.target) for e in drawn.edges} == {
        ("__start__", "first"), ("first", "sub"), ("sub", "last"), ("last", "__end__"),
    }  # fmt: skip
    sub = next(n for n in drawn.nodes if n.name == "sub")
    assert sub.subgraph is not None and "ask" in {n.name for n in sub.subgraph.nodes}


def test_update_state_then_fork_from_an_older_version(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as client:
        client.invoke(served("gated"), thread_id, {"label": "one"}, timeout=30)
        ref = client.update_state(served("gated"), thread_id, {"log": ["edited"]}, as_node="work")
        assert ref.source == "update"
        state = client.get_state(served("gated"), thread_id)
        assert state.values["log"] == ["prepare", "one", "edited"] and state.checkpoint.checkpoint_id == ref.checkpoint_id
        older = next(s for s in client.history(served("gated"), thread_id) if s.next == ("work",))
        forked = client.fork(served("gated"), thread_id, older.checkpoint.checkpoint_id, update={"label": "two"}, as_node="prepare", timeout=30)
        assert forked.reason is FinishReason.END
        assert forked.values["log"] == ["prepare", "two"]
        newest = client.get_state(served("gated"), thread_id)
    assert newest.checkpoint.checkpoint_id == forked.checkpoint.checkpoint_id
    assert newest.values == forked.values


def test_a_node_that_raises_ends_the_run_with_its_error_and_a_retry_goes_on(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    label = thread_id
    with lg.client() as client:
        failed = client.invoke(served("flaky"), thread_id, {"label": label}, timeout=30)
        assert failed.reason is FinishReason.ERROR
        assert failed.error is not None and failed.error.type == "ValueError" and "not fixed yet" in failed.error.message
        assert failed.values["log"] == ["before"]  # the step that ran stays
        record = client.threads.get(served("flaky"), thread_id)  # the thread says why it is in error
        assert record.status is ThreadStatus.ERROR and record.error == failed.error
        lg.open_gate(f"fixed-{label}")
        again = client.invoke(served("flaky"), thread_id, None, timeout=30)
        record = client.threads.get(served("flaky"), thread_id)
    assert again.reason is FinishReason.END and again.values["log"] == ["before", "boom"]
    assert record.status is ThreadStatus.IDLE and record.error is None


def test_the_recursion_limit(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as client:
        result = client.invoke(served("loop"), thread_id, {"log": []}, recursion_limit=3, timeout=30)
    assert result.reason is FinishReason.RECURSION_LIMIT
    assert result.error is not None and result.error.type == "GraphRecursionError"
    assert result.values["log"] == ["spin"] * 3


def test_cancel_run_from_another_client(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as runner, lg.client() as other:
        stream = runner.stream(served("gated"), thread_id, {"gate": NEVER, "label": "doomed"}, timeout=30)
        run_id = _until(stream, _working)[0].run_id
        assert other.cancel(served("gated"), thread_id, run_id="not-this-run") is False
        assert other.cancel(served("gated"), thread_id, run_id=run_id) is True
        finished = list(stream)[-1]
        assert isinstance(finished, RunFinished) and finished.reason is FinishReason.CANCELLED
        assert finished.checkpoint is not None and finished.checkpoint.next == ("work",)
        assert finished.values["log"] == ["prepare"]
        assert other.cancel(served("gated"), thread_id) is False
        again = runner.invoke(served("gated"), thread_id, {"gate": None, "label": "again"}, timeout=30)
    assert again.reason is FinishReason.END and again.values["log"] == ["prepare", "prepare", "again"]


def test_a_busy_thread_refuses_a_second_call_or_queues_it(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    gate = f"{thread_id}-gate"
    with lg.client() as first, lg.client() as other:
        stream = first.stream(served("gated"), thread_id, {"gate": gate, "label": "first"}, timeout=30)
        head = _until(stream, _working)
        with pytest.raises(Aborted) as busy:
            other.invoke(served("gated"), thread_id, {"label": "second"}, timeout=10)
        assert head[0].run_id in busy.value.message
        with pytest.raises(Aborted):
            other.update_state(served("gated"), thread_id, {"log": ["x"]}, as_node="work", timeout=10)
        queued = other.stream(served("gated"), thread_id, {"label": "second"}, enqueue=True, timeout=30)
        lg.open_gate(gate)
        rest = list(stream)
        second = list(queued)
    assert rest[-1].reason is FinishReason.END
    assert second[0].checkpoint_id == rest[-1].checkpoint.checkpoint_id
    assert second[-1].reason is FinishReason.END
    assert second[-1].values["log"] == ["prepare", "first", "prepare", "second"]


def test_join_a_running_run_and_a_background_run(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    gate = f"{thread_id}-gate"
    with lg.client() as client, lg.client() as joiner:
        started = list(client.stream(served("gated"), thread_id, {"gate": gate, "label": "bg"}, background=True, timeout=30))
        assert [type(e) for e in started] == [RunStarted]
        run_id = started[0].run_id
        joined = joiner.join_run(run_id, timeout=30)
        head = _until(joined, _working)
        assert client.get_run(run_id).status is RunStatus.RUNNING
        lg.open_gate(gate)
        rest = list(joined)
        info = client.get_run(run_id)
    events = head + rest
    assert events[0] == started[0]
    assert [e.seq for e in events] == list(range(events[0].seq, events[0].seq + len(events)))
    assert isinstance(events[-1], RunFinished) and events[-1].reason is FinishReason.END
    assert events[-1].values["log"] == ["prepare", "bg"]
    assert info.status is RunStatus.SUCCESS and info.checkpoint_id == events[-1].checkpoint.checkpoint_id
