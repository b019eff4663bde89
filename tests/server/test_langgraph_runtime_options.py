"""A LangGraph-run graph's run options and thread calls over gRPC (issue 31 item 1).

The graphs and the server are tests/server/test_langgraph_runtime_runs.py's:
breakpoints, event kinds, run metadata, ``configurable`` and context,
durability, answering an interrupt by its id, a subgraph's state and history,
leaving a stream, ListRuns and DeleteThread, as for the engine's graphs.

Each test that takes ``served`` runs twice, for each runtime: on the graph built with
LangGraph's classes (served by LangGraph) and on the same module built with the
engine's (``engine_<name>``), with the same calls and the same assertions.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

from graphwire import (  # noqa: E402
    CheckpointSaved,
    FailedPrecondition,
    FinishReason,
    InterruptEvent,
    NotFound,
    RunFinished,
    RunStarted,
    RunStatus,
    TaskFinished,
    TaskStarted,
)

from tests.conftest import ServerProcess  # noqa: E402
from tests.server._langgraph_graphs import NEVER, served  # noqa: E402, F401 - served: the runtime under test
from tests.server.test_langgraph_runtime_runs import _until, _working, lg  # noqa: E402, F401 - the module's server

__all__: list[str] = []


def test_a_static_breakpoint_and_continue(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as client:
        paused = client.invoke(served("gated"), thread_id, {"label": "x"}, interrupt_before=["work"], timeout=30)
        assert paused.reason is FinishReason.INTERRUPT and paused.interrupts == ()
        assert paused.checkpoint.next == ("work",) and paused.values["log"] == ["prepare"]
        done = client.invoke(served("gated"), thread_id, None, timeout=30)
        # "*": every node, as LangGraph's interrupt_before="*" (the first one, here)
        every = client.invoke(served("gated"), f"{thread_id}-every", {"label": "y"}, interrupt_before=["*"], timeout=30)
    assert done.reason is FinishReason.END and done.values["log"] == ["prepare", "x"]
    assert every.reason is FinishReason.INTERRUPT and every.checkpoint.next == ("prepare",) and every.values.get("log", []) == []


def test_event_kinds_and_run_metadata(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as client:
        result = client.invoke(served("gated"), thread_id, {"label": "x"}, event_kinds=["task_finished"], run_metadata={"tag": "t1"}, timeout=30)
        tagged = client.history(served("gated"), thread_id, filter={"tag": "t1"})
    assert isinstance(result.events[0], RunStarted) and isinstance(result.events[-1], RunFinished)
    middle = result.events[1:-1]
    assert {type(e).__name__ for e in middle} == {"TaskFinished"}
    assert [(e.node, e.update) for e in middle if e.node != "__start__"] == [("prepare", {"log": ["prepare"]}), ("work", {"log": ["x"]})]
    assert tagged and {s.metadata["tag"] for s in tagged} == {"t1"}
    assert {s.metadata["run_id"] for s in tagged} == {result.run_id}


def test_configurable_and_context_reach_the_node(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as client:
        result = client.invoke(served("configured"), thread_id, {"log": []}, configurable={"who": "me"}, context={"user": "u1"}, timeout=30)
    assert result.reason is FinishReason.END and result.values["log"] == ["me", "u1"]


def test_durability_exit_saves_only_the_end(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as client:
        result = client.stream(served("gated"), thread_id, {"label": "x"}, durability="exit", timeout=30).result()
        history = client.history(served("gated"), thread_id)
    assert result.reason is FinishReason.END and result.values["log"] == ["prepare", "x"]
    assert len(history) == 1 and history[0].checkpoint.checkpoint_id == result.checkpoint.checkpoint_id
    # each version is reported as it is made, as the engine's runs do; only the last is stored
    saved = [e.checkpoint.checkpoint_id for e in result.events if isinstance(e, CheckpointSaved) and not e.namespace]
    assert len(saved) == 4 and saved[-1] == history[0].checkpoint.checkpoint_id


def test_answer_by_id_a_subgraphs_state_and_nothing_to_resume(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as client:
        paused = client.invoke(served("ask"), thread_id, {"log": []}, timeout=30)
        (question,) = paused.interrupts
        nested = client.get_state(served("ask"), thread_id, subgraphs=True)
        (task,) = nested.tasks
        assert task.node == "sub"
        # The whole stream: the run's versions are stored by the time it ends (its first namespaced event
        # came while the subgraph's run was still going, and its history read then could miss the interrupt).
        events = list(client.stream(served("ask"), f"{thread_id}-b", {"log": []}, timeout=30))
        ns = next(e.namespace for e in events if e.namespace)
        inner = client.history(served("ask"), f"{thread_id}-b", checkpoint_ns="|".join(ns))
        assert inner and inner[0].next == ("ask",)
        done = client.resume(served("ask"), thread_id, resumes={question.interrupt_id: "by id"}, timeout=30)
        assert done.reason is FinishReason.END and "ask:by id" in done.values["log"]
        with pytest.raises(FailedPrecondition):
            client.resume(served("ask"), thread_id, "again", timeout=30)


def test_leaving_the_stream_cancels_the_run_then_list_runs_and_delete(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as client:
        stream = client.stream(served("gated"), thread_id, {"gate": NEVER, "label": "left"}, timeout=30)
        run_id = _until(stream, _working)[0].run_id
        stream.close()
        after = client.invoke(served("gated"), thread_id, {"gate": None, "label": "after"}, enqueue=True, timeout=30)
        assert after.reason is FinishReason.END and after.values["log"] == ["prepare", "prepare", "after"]
        runs = client.list_runs(served("gated"), thread_id)
        assert [r.run_id for r in runs] == [after.run_id, run_id]
        assert [r.status for r in runs] == [RunStatus.SUCCESS, RunStatus.CANCELLED]
        client.delete_thread(served("gated"), thread_id)
        with pytest.raises(NotFound):
            client.get_state(served("gated"), thread_id)
        fresh: Any = client.invoke(served("gated"), thread_id, {"label": "fresh"}, timeout=30)
    assert fresh.events[0].checkpoint_id is None and fresh.values["log"] == ["prepare", "fresh"]


def _shape(events: list[Any]) -> list[tuple[Any, ...]]:
    """A run's events as (kind, namespace's node, node, step, reason), ids and times aside."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        node = getattr(e, "node", None)
        kind = type(e).__name__
        ns = tuple(part.partition(":")[0] for part in e.namespace)
        out.append((kind, ns, node, getattr(e, "step", None), getattr(e, "reason", None)))
        # the tasks of a step start and finish in the order they happen to: each run of them sorted
        run = len(out) - 1
        while run > 0 and out[run - 1][:2] == out[-1][:2] and kind in ("TaskStarted", "TaskFinished"):
            run -= 1
        out[run:] = sorted(out[run:], key=str)
    return out


@pytest.mark.parametrize(
    ("graph", "run"),
    [
        ("ask", {"log": []}),
        ("parallel", {"gate": "", "label": "shape"}),
        ("flaky", {"label": "shape"}),
        ("gated", {"gate": "", "label": "shape"}),
        ("loop", {"log": []}),
        ("breakpoint", {"gate": "", "label": "shape"}),
        ("fanout", {"label": "a,b,c"}),
        ("commander", {"label": "y"}),
        ("functional", {"label": "ab"}),
        ("after", {"gate": "", "label": "shape"}),
        ("ask_exit", {"log": []}),
        ("parallel_sync", {"gate": "", "label": "sync"}),
    ],
)
def test_a_run_streams_the_same_events_in_the_same_order_as_on_the_engine(lg: ServerProcess, thread_id: str, graph: str, run: Any) -> None:
    """The same module served on both runtimes (tests/server/test_langgraph_runtime_runs.py's graph_args)."""
    options: dict[str, Any] = {"recursion_limit": 4, "timeout": 30}
    if graph == "breakpoint":
        graph, options["interrupt_before"] = "gated", ["work"]
    elif graph == "after":
        graph, options["interrupt_after"] = "gated", ["prepare"]
    elif graph in ("ask_exit", "parallel_sync"):
        graph, _, options["durability"] = graph.partition("_")
    with lg.client() as client:
        on_langgraph = list(client.stream(graph, thread_id, run, **options))
        on_engine = list(client.stream(f"engine_{graph}", thread_id, run, **options))
        if options.get("interrupt_before") or options.get("interrupt_after"):  # and the run that goes on from there
            on_langgraph += list(client.stream(graph, thread_id, None, timeout=30))
            on_engine += list(client.stream(f"engine_{graph}", thread_id, None, timeout=30))
        elif on_langgraph[-1].reason is FinishReason.INTERRUPT:
            on_langgraph += list(client.stream_resume(graph, thread_id, "yes", timeout=30))
            on_engine += list(client.stream_resume(f"engine_{graph}", thread_id, "yes", timeout=30))
        histories = [_history(client.history(name, thread_id)) for name in (graph, f"engine_{graph}")]
        states = [_state(client.get_state(name, thread_id, subgraphs=True)) for name in (graph, f"engine_{graph}")]
    assert _shape(on_langgraph) == _shape(on_engine)
    assert _details(on_langgraph) == _details(on_engine)
    assert histories[0] == histories[1]
    assert states[0] == states[1]


def _details(events: list[Any]) -> list[Any]:
    """What the events say beside their kinds: tasks' updates and errors, questions, each run's end."""
    out: list[Any] = []
    for e in events:
        if isinstance(e, TaskFinished):
            out.append((e.node, e.update, e.error, [(i.node, i.value) for i in e.interrupts]))
        elif isinstance(e, TaskStarted):
            out.append((e.node, e.input, e.triggers))
        elif isinstance(e, InterruptEvent):
            out.append((e.node, e.value))
        elif isinstance(e, RunFinished):
            ref = e.checkpoint
            out.append((e.reason, e.values, e.error and e.error.type, [(i.node, i.value) for i in e.interrupts],
                        ref and (ref.source, ref.step, ref.next)))  # fmt: skip
    return sorted(out, key=str)


def _state(snap: Any) -> Any:
    tasks = [(t.node, t.error, [(i.node, i.value) for i in t.interrupts], t.result, t.state and _state(t.state)) for t in snap.tasks]
    return (snap.values, snap.next, snap.checkpoint.source, snap.checkpoint.step, tasks, [(i.node, i.value) for i in snap.interrupts])


def _history(snaps: list[Any]) -> list[Any]:
    return [(s.values, s.next, s.checkpoint.source, s.checkpoint.step, {k: v for k, v in s.metadata.items() if k != "run_id"}) for s in snaps]
