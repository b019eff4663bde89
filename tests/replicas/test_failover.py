"""A replica that dies or stalls mid-run: the thread goes on elsewhere, and the old
owner can never write again.

* SIGKILL during a slow node: once the lease lapses, invoke(None) on another
  replica continues from the last saved version, and the sibling task that had
  finished (its writes saved as pending writes) is not run again.
* SIGSTOP past the lease: another replica takes the thread over and finishes
  it; the stopped one, continued, has every late write refused (fenced by the
  lease's epoch) and its call ends ABORTED.
"""

from __future__ import annotations

import signal

from graphwire import Aborted, FinishReason, RunStarted, TaskStarted

from tests.replicas.conftest import Call, Cluster, assert_single_chain, wait_until


def test_a_replica_killed_mid_step_is_continued_elsewhere_without_rerunning_finished_siblings(
    cluster: Cluster, thread_id: str
) -> None:
    a, b = cluster.replica(), cluster.replica()
    key, gate, label = f"parallel:{thread_id}", f"{thread_id}-gate", thread_id
    doomed = Call(a, lambda c: c.stream("parallel", thread_id, {"gate": gate, "label": label}, timeout=60))
    doomed.until(lambda e: isinstance(e, TaskStarted) and e.node == "slow", "the slow node to start")
    # `fast` finished at once: wait until its writes are saved (as pending writes
    # of the version its step started from), while `slow` waits for its gate.
    wait_until(
        lambda: cluster.query(
            "SELECT 1 FROM {writes} w JOIN {checkpoints} c USING (thread_id, checkpoint_ns, checkpoint_id) "
            "WHERE w.thread_id = %s AND w.channel = 'log'",
            (key,),
        ),
        "the fast node's writes to be saved",
    )
    assert cluster.runs(label) == 1
    assert a.kill() == -signal.SIGKILL
    _, error = doomed.outcome()
    assert error is not None  # the connection went away with the process

    cluster.open_gate(gate)
    with b.client() as client:
        # Queued until the dead replica's lease lapses (it is never released).
        done = client.invoke("parallel", thread_id, None, enqueue=True, timeout=60)
        assert done.reason is FinishReason.END
        assert done.values["log"] == ["fast", "slow"]
        chain = assert_single_chain(client.history("parallel", thread_id, timeout=30))
    assert cluster.runs(label) == 1  # fast's saved writes were used, not run again
    assert [s.checkpoint.source for s in chain] == ["input", "loop", "loop"]
    assert chain[0].metadata["run_id"] == chain[1].metadata["run_id"] != done.run_id == chain[2].metadata["run_id"]
    assert cluster.lease("parallel", thread_id)[1] == 2  # type: ignore[index]


def test_a_paused_replica_past_its_lease_cannot_write_after_another_took_over(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(), cluster.replica()
    gate = f"{thread_id}-gate"
    stalled = Call(a, lambda c: c.stream("gated", thread_id, {"gate": gate, "label": "a"}, timeout=120))
    stalled.until(lambda e: isinstance(e, TaskStarted) and e.node == "work", "the node to run on the first replica")
    first_run = next(e.run_id for e in stalled.events if isinstance(e, RunStarted))
    # Async durability: the versions before the node land while it runs. Wait for
    # both (input and step 0): paused in the middle of a write, a replica keeps the
    # lease row locked by its open transaction, and the takeover waits for it
    # (seen under load: the other replica's acquire waiting on that lock).
    wait_until(
        lambda: len(cluster.query("SELECT 1 FROM {checkpoints} WHERE thread_id = %s", (f"gated:{thread_id}",))) == 2,
        "the first replica's versions before the node to be stored",
    )
    a.pause()
    try:
        # The other replica waits for the lease to lapse, takes it over, and runs the node itself.
        takeover = Call(b, lambda c: c.stream("gated", thread_id, None, enqueue=True, timeout=60))
        takeover.until(lambda e: isinstance(e, TaskStarted) and e.node == "work", "the node to run on the second replica")
        _, epoch, live = cluster.lease("gated", thread_id)  # type: ignore[misc]
        assert epoch == 2 and live
        cluster.open_gate(gate)
        done = takeover.finish()
        assert done.reason is FinishReason.END and done.values["log"] == ["a"]
        with b.client() as client:
            before = client.history("gated", thread_id, timeout=30)
    finally:
        a.resume()

    # Continued, the first replica's node sees its gate open and returns: its writes are refused.
    _, error = stalled.outcome()
    assert isinstance(error, Aborted), error
    assert repr(f"gated:{thread_id}") in error.message or repr(thread_id) in error.message
    assert "lease" in error.message
    with b.client() as client:
        after = client.history("gated", thread_id, timeout=30)
    assert [(s.checkpoint, s.values, s.metadata) for s in after] == [(s.checkpoint, s.values, s.metadata) for s in before]
    chain = assert_single_chain(after)
    # The second replica continued from the first one's newest saved version.
    runs = [s.metadata["run_id"] for s in chain]
    assert runs[0] == first_run and runs[-1] == done.run_id and set(runs) == {first_run, done.run_id}
    assert cluster.lease("gated", thread_id)[1] == 2  # type: ignore[index]
    # The first replica is healthy: its next run takes the thread with a new epoch.
    with a.client() as client:
        again = client.invoke("gated", thread_id, {"gate": None, "label": "again"}, timeout=60)
        assert again.reason is FinishReason.END and again.values["log"] == ["a", "again"]
    assert cluster.lease("gated", thread_id)[1] == 3  # type: ignore[index]
