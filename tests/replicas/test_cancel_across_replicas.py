"""CancelRun reaches a run on another replica (through PostgreSQL's LISTEN/NOTIFY).

A chat server behind a load balancer sends its Stop button's CancelRun to
whichever replica it reaches. That replica asks the one holding the thread's
lease, which cancels the run and answers; the run's own stream ends
CANCELLED. A cancel naming another run, or a thread where nothing runs, is
False; a replica that cannot answer (stopped with SIGSTOP) makes the cancel
UNAVAILABLE, and the cancel takes effect when it runs again.
"""

from __future__ import annotations

from typing import Any

import pytest
from graphwire import FinishReason, RunFinished, RunStarted, TaskStarted, Unavailable

from tests.replicas.conftest import Call, Cluster, wait_until


def working(e: Any) -> bool:
    return isinstance(e, TaskStarted) and e.node == "work"


def gated_run(cluster: Cluster, replica: Any, thread_id: str) -> tuple[Call, str]:
    """A run of ``gated`` on ``replica`` held in its node; the call and the run's id."""
    call = Call(replica, lambda c: c.stream("gated", thread_id, {"gate": f"{thread_id}-gate", "label": "a"}, timeout=60))
    call.until(working, "the node to run")
    run_id = next(e.run_id for e in call.events if isinstance(e, RunStarted))
    return call, run_id


def test_a_cancel_sent_to_another_replica_stops_the_run(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(), cluster.replica()
    call, run_id = gated_run(cluster, a, thread_id)
    with b.client() as client:
        assert client.cancel("gated", thread_id, run_id="not-this-run", timeout=30) is False
        assert client.cancel("gated", f"{thread_id}-idle", timeout=30) is False  # nothing runs there
        assert client.cancel("gated", thread_id, run_id=run_id, timeout=30) is True
    finished = call.finish()
    assert isinstance(finished, RunFinished) and finished.reason is FinishReason.CANCELLED
    # The lease was let go with the run: the thread runs at once, here on b.
    with b.client() as client:
        again = client.invoke("gated", thread_id, {"gate": None, "label": "b"}, timeout=30)
    assert again.reason is FinishReason.END and again.values["log"] == ["b"]


def test_a_cancel_without_run_id_stops_whichever_run_is_on_the_thread(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(), cluster.replica()
    call, _ = gated_run(cluster, a, thread_id)
    with b.client() as client:
        assert client.cancel("gated", thread_id, timeout=30) is True
    assert call.finish().reason is FinishReason.CANCELLED


def test_a_replica_that_cannot_answer_makes_the_cancel_unavailable(cluster: Cluster, thread_id: str) -> None:
    # A long lease, so it cannot lapse while the holder is stopped.
    a, b = cluster.replica(lease_seconds=120), cluster.replica(lease_seconds=120)
    call, run_id = gated_run(cluster, a, thread_id)
    a.pause()
    try:
        with b.client() as client:
            with pytest.raises(Unavailable, match="did not answer"):
                client.cancel("gated", thread_id, run_id=run_id, timeout=30)
    finally:
        a.resume()
    # The message waited in a's connection: once a runs again, the run is cancelled.
    assert call.finish().reason is FinishReason.CANCELLED
    wait_until(lambda: cluster.lease("gated", thread_id)[2] is False, "the lease to be released")  # type: ignore[index]
