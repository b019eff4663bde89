"""Chat-safe turns and double-texting for graphs LangGraph itself runs (issue 33 items 3, 4).

The checks and the strategies live in the service's run machinery, shared by
both runtimes; these tests call the module server of
test_langgraph_runtime_runs.py (SQLite and PostgreSQL) with the Python client:
REJECT over a subgraph's pending interrupt, ``expect_checkpoint_id``, and
INTERRUPT and ROLLBACK of a run held at a gate (LangGraph's versions name the
run that wrote them, so a rollback finds them).
"""

from __future__ import annotations

import pytest

pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

from graphwire import FailedPrecondition, FinishReason, RunStatus  # noqa: E402

from tests.conftest import ServerProcess  # noqa: E402
from tests.replicas.conftest import Call, wait_until  # noqa: E402
from tests.server.test_langgraph_runtime_runs import _working, lg  # noqa: E402, F401 - the module's server


def test_reject_and_expect_checkpoint_id_on_langgraph(lg: ServerProcess, thread_id: str) -> None:
    with lg.client() as client:
        asked = client.invoke("ask", thread_id, {"log": []}, timeout=30)
        assert asked.reason is FinishReason.INTERRUPT
        with pytest.raises(FailedPrecondition) as refused:
            client.invoke("ask", thread_id, {"log": ["again"]}, if_interrupted="reject", timeout=30)
        why = refused.value.refused
        assert why is not None and why.reason == "interrupted"
        assert why.checkpoint_id == asked.checkpoint.checkpoint_id
        assert [i.value for i in why.interrupts] == [{"question": "go on?", "seen": 1}]
        assert len(client.list_runs("ask", thread_id)) == 1  # the refused call left no record
        with pytest.raises(FailedPrecondition) as stale:
            client.resume("ask", thread_id, "yes", expect_checkpoint_id="not-it", timeout=30)
        assert stale.value.refused is not None and stale.value.refused.reason == "stale_checkpoint"
        done = client.resume("ask", thread_id, "yes", expect_checkpoint_id=asked.checkpoint.checkpoint_id, timeout=30)
        assert done.reason is FinishReason.END


@pytest.mark.parametrize("strategy", ["interrupt", "rollback"])
def test_interrupt_and_rollback_on_langgraph(lg: ServerProcess, thread_id: str, strategy: str) -> None:
    gate = f"{thread_id}-never"
    with lg.client() as client:
        client.invoke("gated", thread_id, {"label": "first"}, timeout=30)
        held = Call(lg, lambda c: c.stream("gated", thread_id, {"gate": gate, "label": "held"}, timeout=60))
        held_id = held.until(_working, "the held run's node").run_id
        wait_until(lambda: any(s.metadata.get("run_id") == held_id for s in client.history("gated", thread_id)), "its versions")
        third = client.invoke("gated", thread_id, {"gate": "", "label": "third"}, multitask_strategy=strategy, timeout=30)
        assert held.finish().reason is FinishReason.CANCELLED
        assert third.reason is FinishReason.END
        left = [s for s in client.history("gated", thread_id) if s.metadata.get("run_id") == held_id]
        runs = {r.run_id: r for r in client.list_runs("gated", thread_id)}
    if strategy == "rollback":
        assert left == []
        assert third.values["log"] == ["prepare", "first", "prepare", "third"]
        assert runs[held_id].status is RunStatus.ROLLED_BACK
    else:
        assert left
        log = third.values["log"]
        assert log[:3] == ["prepare", "first", "prepare"] and log[-1] == "third"
        assert log.count("prepare") > 2  # the held run's "prepare" is kept in the state
        assert runs[held_id].status is RunStatus.CANCELLED
    assert runs[held_id].replaced_by == third.run_id and runs[third.run_id].replaces == held_id
