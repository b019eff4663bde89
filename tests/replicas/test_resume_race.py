"""Concurrent resumes of one interrupt from several replicas: exactly one wins.

Each losing resume gets ABORTED (another replica holds the thread) or
FAILED_PRECONDITION (the interrupt was already answered when its turn came);
none is accepted twice, and the history stays one chain: one child per parent.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from graphwire import Aborted, FailedPrecondition, FinishReason

from tests.replicas.conftest import Call, Cluster, assert_single_chain

USER = {"role": "user", "content": "remind me to call mom at 5pm"}


@pytest.mark.parametrize("callers", [2, 4, 8])
def test_concurrent_resumes_of_one_interrupt_resume_it_once(cluster: Cluster, thread_id: str, callers: int) -> None:
    replicas = [cluster.replica(), cluster.replica()]
    with replicas[0].client() as client:
        asked = client.invoke("reminders", thread_id, {"messages": [USER]}, timeout=60)
    assert asked.interrupted
    start = threading.Barrier(callers)

    def resume(n: int) -> Any:
        def make(client: Any) -> Any:
            start.wait(30)
            return client.resume("reminders", thread_id, "yes", timeout=60)

        return make

    calls = [Call(replicas[n % len(replicas)], resume(n)) for n in range(callers)]
    outcomes = [c.outcome() for c in calls]
    won = [c.result for c, (_, err) in zip(calls, outcomes) if err is None]
    lost = [err for _, err in outcomes if err is not None]
    assert len(won) == 1, f"{len(won)} resumes succeeded: {outcomes}"
    assert won[0].reason is FinishReason.END
    assert won[0].values["reminders"] == [{"text": "call mom", "at": "5pm"}]  # the tool ran once
    assert all(isinstance(e, (Aborted, FailedPrecondition)) for e in lost), lost
    with replicas[1].client() as client:
        chain = assert_single_chain(client.history("reminders", thread_id, timeout=30))
    assert chain[-1].checkpoint.checkpoint_id == won[0].checkpoint.checkpoint_id
