"""Double-texting across two replicas on PostgreSQL (issue 33 item 4).

A run holds a thread on replica A (its node waits at a gate that is never
opened); a second turn reaches replica B with ``multitask_strategy``
INTERRUPT or ROLLBACK. B finds the run by its record, cancels it on A through
the database (the cross-replica cancel relay), waits for A to let the thread
go, and runs. INTERRUPT keeps the cancelled run's versions; ROLLBACK deletes
them: gone from ListHistory and from the ``checkpoints`` rows. Each replica's
records name the other run (``replaced_by``, ``replaces``). A chat-safe check
made on B after the rollback sees the thread as the cancelled run found it.
"""

from __future__ import annotations

import pytest

from graphwire import FinishReason, RunStatus

from tests.replicas.conftest import Call, Cluster, wait_until

RUN_KEY = "__graphwire_run_id__"


def _versions_of(cluster: Cluster, graph: str, thread_id: str, run_id: str) -> int:
    rows = cluster.query(
        "SELECT count(*) FROM {checkpoints} WHERE thread_id = %s AND coalesce(run_id::text, metadata->>%s) = %s",
        (f"{graph}:{thread_id}", RUN_KEY, run_id),
    )
    return int(rows[0][0])


@pytest.mark.parametrize("strategy", ["interrupt", "rollback"])
def test_a_second_turn_on_another_replica_replaces_the_running_run(cluster: Cluster, thread_id: str, strategy: str) -> None:
    a, b = cluster.replica(), cluster.replica()
    with a.client() as on_a, b.client() as on_b:
        first = on_a.invoke("gated", thread_id, {"label": "first"}, timeout=30)
        held = Call(a, lambda c: c.stream("gated", thread_id, {"gate": f"{thread_id}-never", "label": "held"}, timeout=60))
        held_id = held.until(lambda e: type(e).__name__ == "CustomEvent", "the held run's node").run_id
        wait_until(lambda: _versions_of(cluster, "gated", thread_id, held_id) > 0, "the held run's input version")
        assert cluster.lease("gated", thread_id) is not None
        # The client that sent the first turn still shows its end: after a rollback, that is the newest again.
        expect = first.checkpoint.checkpoint_id if strategy == "rollback" else None
        third = on_b.invoke(
            "gated", thread_id, {"gate": None, "label": "third"}, multitask_strategy=strategy, expect_checkpoint_id=expect, timeout=30
        )
        assert held.finish().reason is FinishReason.CANCELLED
        assert third.reason is FinishReason.END
        history = on_b.history("gated", thread_id)
        runs = {r.run_id: r for r in on_a.list_runs("gated", thread_id)}
    by_held = [s for s in history if s.metadata.get("run_id") == held_id]
    assert runs[held_id].replaced_by == third.run_id and runs[third.run_id].replaces == held_id
    assert runs[held_id].replica != runs[third.run_id].replica  # it was cancelled on the other replica
    if strategy == "rollback":
        assert by_held == [] and _versions_of(cluster, "gated", thread_id, held_id) == 0
        assert runs[held_id].status is RunStatus.ROLLED_BACK
    else:
        assert by_held and _versions_of(cluster, "gated", thread_id, held_id) == len(by_held)
        assert runs[held_id].status is RunStatus.CANCELLED
    assert third.values["log"] == ["first", "third"]
