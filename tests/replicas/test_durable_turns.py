"""Durable turns across two replicas on one PostgreSQL (issue 20).

* A retried Invoke (same request_id) on the other replica after the first was
  SIGKILLed mid-run: the user's message is applied once and the turn finishes.
* A retry after the run finished answers the same (final checkpoint included)
  and runs no node.
* JoinRun on the other replica gets the rest of a live run and its
  RunFinished, with no gap and no repeat in seq.
* A background run whose replica is SIGKILLed mid-step is finished by the other
  replica (no call needed), and its finished sibling task is not run again.

Calls use the raw stubs: the tests see exactly the wire.
"""

from __future__ import annotations

import json
import signal
from typing import Any

from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

from tests.replicas.conftest import Cluster, wait_until

TIMEOUT = 60.0


def stub_of(server: Any) -> Any:
    return pb_grpc.GraphServiceStub(server.channel().__enter__())


def seqs(events: list[pb.RunEvent]) -> list[int]:
    return [e.seq for e in events]


def fast_write_saved(cluster: Cluster, key: str) -> bool:
    """``parallel``'s fast node finished and its write is stored, as a pending write of the newest version."""
    return bool(cluster.query(
        "SELECT 1 FROM {writes} WHERE thread_id = %s AND channel = 'log' AND checkpoint_id = "
        "(SELECT max(checkpoint_id) FROM {checkpoints} WHERE thread_id = %s AND checkpoint_ns = '')",
        (key, key),
    ))  # fmt: skip


def get_run(stub: Any, run_id: str) -> pb.RunInfo:
    return stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=TIMEOUT)


def test_a_retry_on_another_replica_after_a_kill_applies_the_message_once(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(), cluster.replica()
    gate = f"{thread_id}-gate"
    request = pb.InvokeRequest(
        graph="gated", thread_id=thread_id, request_id="turn-1",
        input_json=json.dumps({"gate": gate, "label": "reply", "log": ["user message"]}),
    )  # fmt: skip
    stream = stub_of(a).Invoke(request, timeout=TIMEOUT)
    for e in stream:
        if e.HasField("custom"):  # the node waits at its gate
            break
    wait_until(lambda: len(cluster.query("SELECT 1 FROM {checkpoints} WHERE thread_id = %s", (f"gated:{thread_id}",))) == 2,
               "the input version and step 0 to be stored")  # fmt: skip
    assert a.kill() == -signal.SIGKILL
    cluster.open_gate(gate)
    events = list(stub_of(b).Invoke(request, timeout=TIMEOUT))  # the client's retry, reaching the other replica
    final = events[-1].run_finished
    assert final.reason == pb.FINISH_REASON_END
    assert json.loads(final.values_json)["log"] == ["user message", "reply"]
    assert seqs(events) == sorted(set(seqs(events)))
    info = get_run(stub_of(b), events[0].run_id)
    assert (info.status, info.attempts, info.replica != "") == (pb.RUN_STATUS_SUCCESS, 2, True)
    history = stub_of(b).ListHistory(pb.ListHistoryRequest(graph="gated", thread_id=thread_id), timeout=TIMEOUT).snapshots
    assert [s.checkpoint.source for s in history].count("input") == 1


def test_a_retry_after_the_end_on_another_replica_runs_nothing(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(), cluster.replica()
    label = thread_id
    request = pb.InvokeRequest(graph="parallel", thread_id=thread_id, request_id="turn", input_json=json.dumps({"label": label}))
    first = list(stub_of(a).Invoke(request, timeout=TIMEOUT))
    assert cluster.runs(label) == 1
    again = list(stub_of(b).Invoke(request, timeout=TIMEOUT))
    assert again == first
    assert again[-1].run_finished.checkpoint == first[-1].run_finished.checkpoint
    assert cluster.runs(label) == 1


def test_join_from_another_replica_gets_the_rest_with_no_gap_or_repeat(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(), cluster.replica()
    gate = f"{thread_id}-gate"
    stream = stub_of(a).Invoke(pb.InvokeRequest(
        graph="gated", thread_id=thread_id, input_json=json.dumps({"gate": gate, "label": "x"}),
        on_disconnect=pb.ON_DISCONNECT_CONTINUE,
    ), timeout=TIMEOUT)  # fmt: skip
    head = []
    for e in stream:
        head.append(e)
        if e.HasField("custom"):
            break
    stub = stub_of(b)
    assert get_run(stub, head[0].run_id).status == pb.RUN_STATUS_RUNNING  # b sees a's live run in the record
    joined = stub.JoinRun(pb.JoinRunRequest(run_id=head[0].run_id, after_seq=head[-1].seq), timeout=TIMEOUT)
    cluster.open_gate(gate)  # the rest happens now, on a, while b's join waits for it
    rest = list(joined)
    assert seqs(rest) == list(range(head[-1].seq + 1, head[-1].seq + 1 + len(rest)))
    assert rest[-1].run_finished.reason == pb.FINISH_REASON_END
    assert head + rest == [*head, *stream]  # what the first caller got after its head, event for event


def test_a_background_run_whose_replica_is_killed_is_finished_by_the_other(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(), cluster.replica()
    key, gate, label = f"parallel:{thread_id}", f"{thread_id}-gate", thread_id
    started = list(stub_of(a).Invoke(pb.InvokeRequest(
        graph="parallel", thread_id=thread_id, input_json=json.dumps({"gate": gate, "label": label}), background=True,
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
    assert done.attempts == 2 and done.replica != first_replica  # taken over, counted
    state = stub.GetState(pb.GetStateRequest(graph="parallel", thread_id=thread_id), timeout=TIMEOUT)
    assert json.loads(state.values_json)["log"] == ["fast", "slow"]
    assert cluster.runs(label) == 1  # fast's stored write was used, not run again
    events = list(stub.JoinRun(pb.JoinRunRequest(run_id=run_id), timeout=TIMEOUT))
    assert events[0] == started[0] and events[-1].run_finished.reason == pb.FINISH_REASON_END
    assert seqs(events) == sorted(set(seqs(events)))
    assert done.checkpoint_id == state.checkpoint.checkpoint_id
