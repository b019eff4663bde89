"""A lease lives with its holder's database session (issue 13 item 12).

* kill -9 of the only replica: the restarted server takes the thread at once,
  not after the lease's TTL (here ten minutes, so only the holder's session
  ending can free it within the test's deadline);
* a live holder: another replica's call is ABORTED naming the holder and
  when its lease ends.

The paused holder (alive, SIGSTOP) keeps its lease until it expires and is
then fenced by the epoch: tests/replicas/test_failover.py.
"""

from __future__ import annotations

import re
import signal

from graphwire import Aborted, FinishReason, TaskStarted

from tests.replicas.conftest import Call, Cluster, wait_until

LONG_LEASE = 600.0


def test_a_killed_replicas_lease_is_free_at_once_for_the_restarted_server(cluster: Cluster, thread_id: str) -> None:
    a = cluster.replica(lease_seconds=LONG_LEASE)
    doomed = Call(a, lambda c: c.stream("gated", thread_id, {"gate": f"{thread_id}-never", "label": "a"}, timeout=60))
    doomed.until(lambda e: isinstance(e, TaskStarted) and e.node == "work", "the node to run")
    owner, epoch, live = cluster.lease("gated", thread_id)  # type: ignore[misc]
    assert live and epoch == 1
    assert a.kill() == -signal.SIGKILL
    doomed.outcome()

    restarted = cluster.replica(lease_seconds=LONG_LEASE)

    def attempt() -> object:
        with restarted.client() as client:
            try:
                return client.invoke("gated", thread_id, {"gate": None, "label": "b"}, timeout=30)
            except Aborted as exc:  # the old session may take a moment to end after the kill
                assert "another replica" in exc.message, exc.message
                return None

    done = wait_until(attempt, "the restarted server to take the thread", timeout=30)
    assert done.reason is FinishReason.END  # type: ignore[attr-defined]
    new_owner, new_epoch, _ = cluster.lease("gated", thread_id)  # type: ignore[misc]
    assert new_owner != owner and new_epoch == 2


def test_busy_on_another_replica_names_the_holder_and_when_its_lease_ends(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(lease_seconds=LONG_LEASE), cluster.replica()
    gate = f"{thread_id}-gate"
    running = Call(a, lambda c: c.stream("gated", thread_id, {"gate": gate, "label": "a"}, timeout=60))
    running.until(lambda e: isinstance(e, TaskStarted) and e.node == "work", "the node to run")
    owner, _, live = cluster.lease("gated", thread_id)  # type: ignore[misc]
    assert live
    with b.client() as client:
        try:
            client.invoke("gated", thread_id, {"gate": None, "label": "b"}, timeout=30)
        except Aborted as exc:
            message = exc.message
        else:
            raise AssertionError("the second replica ran a thread the first one holds")
    assert f"thread {thread_id!r} already has a run in progress on another replica" in message
    assert f"held by {owner}" in message
    ends = re.search(r"lease ends at (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) \(in (\d+\.\d)s\)", message)
    assert ends is not None, message
    assert 0 < float(ends.group(2)) <= LONG_LEASE
    cluster.open_gate(gate)
    assert running.finish().reason is FinishReason.END
