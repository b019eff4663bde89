"""DeleteThread is fenced by the thread's lease (issue 13 item 5).

A replica paused inside a DeleteThread (its lease held, its DELETE not yet
sent: tests/replicas/_serve.py stops it there) loses the thread to another
replica once its lease lapses; continued, its DELETE is refused (ABORTED,
naming the lease) and deletes nothing: the other replica's versions read
back as they were.
"""

from __future__ import annotations

from graphwire import Aborted, FinishReason

from tests.replicas.conftest import Call, Cluster, assert_single_chain, wait_until


def test_a_delete_paused_past_its_lease_deletes_nothing_after_a_takeover(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(module="tests.replicas._serve"), cluster.replica()
    with b.client() as client:
        first = client.invoke("gated", thread_id, {"gate": None, "label": "one"}, timeout=30)
        assert first.reason is FinishReason.END

    deleting = Call(a, lambda c: c.delete_thread("gated", thread_id, timeout=60))
    wait_until(lambda: (cluster.gates / "delete-reached-1").exists(), "the delete to hold the thread")
    assert cluster.lease("gated", thread_id)[2]  # type: ignore[index] - held by the deleting replica
    a.pause()
    try:
        cluster.open_gate("delete-go-1")  # continued, the replica goes on to delete
        with b.client() as client:
            # Waits for the paused replica's lease to lapse, takes the thread over, runs a turn.
            second = client.invoke("gated", thread_id, {"gate": None, "label": "two"}, enqueue=True, timeout=60)
            assert second.reason is FinishReason.END and second.values["log"] == ["one", "two"]
            before = client.history("gated", thread_id, timeout=30)
    finally:
        a.resume()

    _, error = deleting.outcome()
    assert isinstance(error, Aborted), f"the fenced delete reported {error!r}"
    assert "lease" in error.message and "delete refused" in error.message
    with b.client() as client:
        after = client.history("gated", thread_id, timeout=30)
        state = client.get_state("gated", thread_id, timeout=30)
    assert [(s.checkpoint, s.values) for s in after] == [(s.checkpoint, s.values) for s in before]
    assert_single_chain(after)
    assert state.values["log"] == ["one", "two"]
