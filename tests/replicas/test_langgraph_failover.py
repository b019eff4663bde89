"""A graph LangGraph itself runs, on two replicas of one PostgreSQL (issue 31 item 1).

As for the engine's graphs (test_durable_turns.py, test_failover.py): a
background run whose replica is SIGKILLed mid-step is taken over and finished
by the other replica, its finished sibling's stored write used, not run again;
a call's retry on the other replica after a kill applies its input once; a
replica paused past its lease has its late writes refused once another took
the thread over; a run is joined and cancelled from the other replica.
The graphs are tests/server/test_langgraph_runtime_runs.py's (LangGraph's own
imports), their gates in the cluster's shared directory.

Each test that takes ``served`` runs twice, for each runtime: on the graph built with
LangGraph's classes (served by LangGraph) and on the same module built with the
engine's (``engine_<name>``), with the same calls and the same assertions.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any, Callable

import pytest

pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

from graphwire_proto.v1 import graphwire_pb2 as pb  # noqa: E402
from graphwire import Aborted, FinishReason, RunStarted, TaskStarted  # noqa: E402

from tests.replicas.conftest import Call, Cluster, assert_single_chain, wait_until  # noqa: E402
from tests.replicas.test_durable_turns import TIMEOUT, fast_write_saved, get_run, seqs, stub_of  # noqa: E402
from tests.server._langgraph_graphs import graph_args, served  # noqa: E402, F401 - served: the runtime under test


def replicas(cluster: Cluster, directory: Path) -> tuple[Any, Any]:
    graphs, args = graph_args(directory)
    return cluster.replica(graphs=graphs, args=args), cluster.replica(graphs=graphs, args=args)


def test_a_background_langgraph_run_whose_replica_is_killed_is_finished_by_the_other(
    cluster: Cluster, thread_id: str, tmp_path: Path, served: Callable[[str], str]) -> None:
    a, b = replicas(cluster, tmp_path)
    key, gate, label = f"{served('parallel')}:{thread_id}", f"{thread_id}-gate", thread_id
    started = list(stub_of(a).Invoke(pb.InvokeRequest(
        graph=served("parallel"), thread_id=thread_id, input_json=json.dumps({"gate": gate, "label": label}), background=True,
    ), timeout=TIMEOUT))  # fmt: skip
    assert [e.WhichOneof("event") for e in started] == ["run_started"]
    run_id = started[0].run_id
    first_replica = get_run(stub_of(a), run_id).replica
    wait_until(lambda: fast_write_saved(cluster, key), "the fast node's write to be saved")
    assert cluster.runs(label) == 1
    assert a.kill() == -signal.SIGKILL
    cluster.open_gate(gate)
    stub = stub_of(b)
    done = wait_until(lambda: (r := get_run(stub, run_id)).status == pb.RUN_STATUS_SUCCESS and r, "b to finish the run")
    assert done.attempts == 2 and done.replica != first_replica
    state = stub.GetState(pb.GetStateRequest(graph=served("parallel"), thread_id=thread_id), timeout=TIMEOUT)
    assert sorted(json.loads(state.values_json)["log"]) == ["fast", "slow"]
    assert cluster.runs(label) == 1  # fast's stored write was used, not run again
    events = list(stub.JoinRun(pb.JoinRunRequest(run_id=run_id), timeout=TIMEOUT))
    assert events[0] == started[0] and events[-1].run_finished.reason == pb.FINISH_REASON_END
    assert seqs(events) == sorted(set(seqs(events)))
    assert done.checkpoint_id == state.checkpoint.checkpoint_id
    history = stub.ListHistory(pb.ListHistoryRequest(graph=served("parallel"), thread_id=thread_id), timeout=TIMEOUT).snapshots
    assert_single_chain([_Ref(s) for s in history])


def test_a_retry_on_another_replica_after_a_kill_applies_the_input_once(cluster: Cluster, thread_id: str, tmp_path: Path, served: Callable[[str], str]) -> None:
    a, b = replicas(cluster, tmp_path)
    gate = f"{thread_id}-gate"
    request = pb.InvokeRequest(
        graph=served("gated"), thread_id=thread_id, request_id="turn-1",
        input_json=json.dumps({"gate": gate, "label": "reply", "log": ["user message"]}),
    )  # fmt: skip
    stream = stub_of(a).Invoke(request, timeout=TIMEOUT)
    for e in stream:
        if e.HasField("custom"):  # the work node waits at its gate
            break
    assert a.kill() == -signal.SIGKILL
    cluster.open_gate(gate)
    events = list(stub_of(b).Invoke(request, timeout=TIMEOUT))  # the client's retry, reaching the other replica
    final = events[-1].run_finished
    assert final.reason == pb.FINISH_REASON_END
    assert json.loads(final.values_json)["log"] == ["user message", "prepare", "reply"]
    assert seqs(events) == sorted(set(seqs(events)))
    info = get_run(stub_of(b), events[0].run_id)
    assert (info.status, info.attempts) == (pb.RUN_STATUS_SUCCESS, 2)
    history = stub_of(b).ListHistory(pb.ListHistoryRequest(graph=served("gated"), thread_id=thread_id), timeout=TIMEOUT).snapshots
    assert [s.checkpoint.source for s in history].count("input") == 1


def test_a_paused_replica_past_its_lease_cannot_write_after_another_took_over(cluster: Cluster, thread_id: str, tmp_path: Path, served: Callable[[str], str]) -> None:
    a, b = replicas(cluster, tmp_path)
    gate = f"{thread_id}-gate"
    stalled = Call(a, lambda c: c.stream(served("gated"), thread_id, {"gate": gate, "label": "a"}, timeout=120))
    stalled.until(lambda e: isinstance(e, TaskStarted) and e.node == "work", "the node to run on the first replica")
    first_run = next(e.run_id for e in stalled.events if isinstance(e, RunStarted))
    wait_until(  # the versions before the node (input, steps 0 and 1), so no write of the first replica is half done
        lambda: len(cluster.query("SELECT 1 FROM {checkpoints} WHERE thread_id = %s", (f"{served('gated')}:{thread_id}",))) == 3,
        "the first replica's versions before the node to be stored",
    )
    a.pause()
    try:
        takeover = Call(b, lambda c: c.stream(served("gated"), thread_id, None, enqueue=True, timeout=60))
        takeover.until(lambda e: isinstance(e, TaskStarted) and e.node == "work", "the node to run on the second replica")
        _, epoch, live = cluster.lease(served("gated"), thread_id)  # type: ignore[misc]
        assert epoch == 2 and live
        cluster.open_gate(gate)
        done = takeover.finish()
        assert done.reason is FinishReason.END and done.values["log"] == ["prepare", "a"]
        with b.client() as client:
            before = client.history(served("gated"), thread_id, timeout=30)
    finally:
        a.resume()
    # Continued, the first replica's node returns: LangGraph's writes through graphwire's saver are refused.
    _, error = stalled.outcome()
    assert isinstance(error, Aborted), error
    assert "lease" in error.message
    with b.client() as client:
        after = client.history(served("gated"), thread_id, timeout=30)
    assert [(s.checkpoint, s.values, s.metadata) for s in after] == [(s.checkpoint, s.values, s.metadata) for s in before]
    chain = assert_single_chain(after)
    runs = [s.metadata["run_id"] for s in chain]
    assert runs[0] == first_run and runs[-1] == done.run_id and set(runs) == {first_run, done.run_id}
    with a.client() as client:
        again = client.invoke(served("gated"), thread_id, {"gate": None, "label": "again"}, timeout=60)
        assert again.reason is FinishReason.END and again.values["log"] == ["prepare", "a", "prepare", "again"]
    assert cluster.lease(served("gated"), thread_id)[1] == 3  # type: ignore[index]


def test_a_cancel_and_a_join_sent_to_another_replica(cluster: Cluster, thread_id: str, tmp_path: Path, served: Callable[[str], str]) -> None:
    a, b = replicas(cluster, tmp_path)
    gate = f"{thread_id}-gate"
    first = Call(a, lambda c: c.stream(served("gated"), thread_id, {"gate": gate, "label": "a"}, on_disconnect="continue", timeout=60))
    started = first.until(lambda e: isinstance(e, RunStarted), "the run to start")
    first.until(lambda e: isinstance(e, TaskStarted) and e.node == "work", "the node to run")
    joined = Call(b, lambda c: c.join_run(started.run_id, timeout=60))
    joined.until(lambda e: isinstance(e, TaskStarted) and e.node == "work", "the join to catch up")
    cluster.open_gate(gate)
    assert first.finish().reason is FinishReason.END
    assert [e.seq for e in joined.outcome()[0]] == [e.seq for e in first.events]
    # a run on a, cancelled from b: its lease goes with it, and b runs the thread at once
    doomed = Call(a, lambda c: c.stream(served("gated"), thread_id, {"gate": f"{gate}-never", "label": "x"}, timeout=60))
    run_id = doomed.until(lambda e: isinstance(e, RunStarted), "the run to start").run_id
    doomed.until(lambda e: isinstance(e, TaskStarted) and e.node == "work", "the node to run")
    with b.client() as client:
        assert client.cancel(served("gated"), thread_id, run_id=run_id, timeout=30) is True
        assert doomed.finish().reason is FinishReason.CANCELLED
        again = client.invoke(served("gated"), thread_id, {"gate": None, "label": "b"}, timeout=30)
    assert again.reason is FinishReason.END and again.values["log"] == ["prepare", "a", "prepare", "prepare", "b"]


class _Ref:
    """A wire snapshot as :func:`assert_single_chain` reads one (``checkpoint.checkpoint_id`` / ``parent_id``)."""

    def __init__(self, snapshot: Any) -> None:
        self.checkpoint = _Checkpoint(snapshot.checkpoint.checkpoint_id, snapshot.checkpoint.parent_id or None)


class _Checkpoint:
    def __init__(self, checkpoint_id: str, parent_id: str | None) -> None:
        self.checkpoint_id, self.parent_id = checkpoint_id, parent_id
