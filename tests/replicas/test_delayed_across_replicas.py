"""A delayed run (``after_seconds``, issue 34) starts once across two replicas on PostgreSQL.

Two replicas serve LangGraph's HTTP API on one schema, their delayed-run starters looking every 0.2 s
(``cron_seconds``). A run asked for on one, a second later, is started by one of them: ``parallel``'s
``fast`` node (which records each run in the gates directory) ran once, the run joined from the other
replica under the id the first answered, and no row is left.
"""

from __future__ import annotations

import uuid

import psycopg
from psycopg import sql

from tests.http.conftest import sync_client
from tests.replicas.conftest import Cluster


def test_a_delayed_run_starts_once_across_two_replicas(cluster: Cluster) -> None:
    replicas = [cluster.replica(http=True, env={"GRAPHWIRE_CRON_SECONDS": "0.2"}) for _ in range(2)]
    first, second = (sync_client(r) for r in replicas)
    thread = first.threads.create(graph_id="parallel")["thread_id"]
    label, gate = f"delayed-{uuid.uuid4().hex[:6]}", f"open-{uuid.uuid4().hex[:6]}"
    cluster.open_gate(gate)
    run = first.runs.create(thread, "parallel", input={"label": label, "gate": gate}, after_seconds=1)
    assert run["status"] == "pending" and second.runs.get(thread, run["run_id"])["run_id"] == run["run_id"]  # one database
    assert sorted(second.runs.join(thread, run["run_id"])["log"]) == ["fast", "slow"]
    assert cluster.runs(label) == 1
    assert [(r["run_id"], r["status"]) for r in first.runs.list(thread)] == [(run["run_id"], "success")]
    with psycopg.connect(cluster.dsn, autocommit=True) as conn:
        left = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(cluster.schema, "delayed_runs"))).fetchone()
    assert left == (0,)
