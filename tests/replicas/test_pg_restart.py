"""PostgreSQL stopped and started again under a running server.

Calls during the outage fail with UNAVAILABLE and a readable message (never
UNKNOWN or INTERNAL); a run whose write fails then ends the same way and
leaves no half-written version; once PostgreSQL is back, the pool reconnects
and later calls succeed, and the history is whole.

The outage is of a cluster of the test's own (:mod:`tests._private_pg`), so
the PostgreSQL a developer or CI already runs is never stopped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from graphwire import FinishReason, TaskStarted, Unavailable

from tests._private_pg import PrivateCluster, private_pg  # noqa: F401 - the fixture
from tests.conftest import ServerProcess, start_server_process
from tests.replicas.conftest import Call, Cluster, assert_single_chain, wait_until

READABLE = "checkpointer unavailable: "


@pytest.fixture
def own_cluster(private_pg: PrivateCluster, tmp_path: Path) -> Iterator[Cluster]:
    """Replicas on the private cluster (one schema in its ``postgres`` database)."""
    started: list[ServerProcess] = []

    def start(**kwargs: Any) -> ServerProcess:
        srv = start_server_process(tmp_path / f"replica{len(started)}", **kwargs)
        started.append(srv)
        return srv

    gates = tmp_path / "gates"
    gates.mkdir()
    try:
        yield Cluster(private_pg.dsn, "graphwire", gates, start)
    finally:
        for srv in started:
            if srv.alive():
                srv.terminate()


def test_postgresql_restarted_under_a_running_server(own_cluster: Cluster, private_pg: PrivateCluster, thread_id: str) -> None:
    cluster = own_cluster
    srv = cluster.replica(lease_seconds=30)  # the lease outlives the outage: only storage fails
    with srv.client() as client:
        done = client.invoke("chain3", thread_id, {"n": 0}, timeout=60)
        assert done.reason is FinishReason.END and done.values == {"n": 3, "log": ["a", "b", "c"]}
        kept = client.history("chain3", thread_id, timeout=30)
    gated = f"{thread_id}-gated"
    gate = f"{gated}-gate"
    running = Call(srv, lambda c: c.stream("gated", gated, {"gate": gate, "label": "x"}, timeout=120))
    running.until(lambda e: isinstance(e, TaskStarted) and e.node == "work", "the gated node to run")
    # With async durability the version of the step before ``work`` is written
    # while ``work`` runs: wait until it has landed, so the outage hits the next write.
    with srv.client() as client:
        wait_until(lambda: len(client.history("gated", gated, timeout=30)) == 2, "the version before work to be stored")

    private_pg.stop()
    try:
        # The run in progress: its next write fails, and so does the call, readably.
        cluster.open_gate(gate)
        _, error = running.outcome(timeout=120)
        assert isinstance(error, Unavailable), error
        assert error.message.startswith(READABLE) and "PostgreSQL" in error.message
        # New calls, reads and runs alike, fail the same way (asked once: the client's retries of
        # UNAVAILABLE would wait the outage out, five tries of the pool's 5 s each).
        with srv.client(retry=False) as client:
            with pytest.raises(Unavailable) as read:
                client.get_state("chain3", thread_id, timeout=60)
            assert read.value.message.startswith(READABLE)
            with pytest.raises(Unavailable) as run:
                client.invoke("chain3", f"{thread_id}-new", {"n": 0}, timeout=60)
            assert run.value.message.startswith(READABLE)
    finally:
        private_pg.start()

    def answers() -> bool:
        try:
            with srv.client() as client:
                client.get_state("chain3", thread_id, timeout=30)
        except Unavailable:
            return False  # the pool is still reconnecting
        return True

    wait_until(answers, "the server to reach PostgreSQL again", timeout=120)
    with srv.client() as client:
        assert [(s.checkpoint, s.values) for s in client.history("chain3", thread_id, timeout=30)] == [
            (s.checkpoint, s.values) for s in kept
        ]
        # The gated run's last step was not saved, not even in part: the thread is
        # where its last whole version left it, and goes on from there.
        before = assert_single_chain(client.history("gated", gated, timeout=30))
        assert [s.checkpoint.source for s in before] == ["input", "loop"]
        assert before[-1].next == ("work",)
        resumed = client.invoke("gated", gated, None, timeout=60)
        assert resumed.reason is FinishReason.END and resumed.values["log"] == ["x"]
        after = assert_single_chain(client.history("gated", gated, timeout=30))
        assert [s.checkpoint.checkpoint_id for s in after[:2]] == [s.checkpoint.checkpoint_id for s in before]
        fresh = client.invoke("chain3", f"{thread_id}-new", {"n": 0}, timeout=60)
        assert fresh.reason is FinishReason.END

    # The server listens for cancels again (it lost that connection too): a
    # CancelRun sent to another replica reaches its run. Until it listens, a
    # cancel goes unanswered (UNAVAILABLE), so keep asking.
    held = Call(srv, lambda c: c.stream("gated", f"{gated}-2", {"gate": f"{gate}-2", "label": "y"}, timeout=120))
    held.until(lambda e: isinstance(e, TaskStarted) and e.node == "work", "the second gated node to run")
    other = cluster.replica(lease_seconds=30)

    def cancelled() -> bool:
        with other.client() as client:
            try:
                return client.cancel("gated", f"{gated}-2", timeout=30)
            except Unavailable:
                return False

    wait_until(cancelled, "a cancel through the other replica to reach the run", timeout=120)
    assert held.finish().reason is FinishReason.CANCELLED
