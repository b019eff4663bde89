"""A cron fires once across two replicas on PostgreSQL (issue 34).

Two replicas (``tests.replicas._serve_crons``: the real server, each claim of
the crons due recorded in the gates directory) on one schema, their schedulers
looking every 0.2 s: one serves LangGraph's HTTP API, the other gRPC alone (a
replica fires crons whether or not it serves the API they are made over). A cron made on one is made
due by moving its ``next_run_date`` into the past in the database (no waiting
for a minute to turn). Its run happens once: after it, both replicas'
schedulers claimed again several times each, and no claim but one took the
cron.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import psycopg
from psycopg import sql

from tests.conftest import ServerProcess
from tests.http.conftest import sync_client
from tests.replicas.conftest import Cluster, wait_until

MODULE = "tests.replicas._serve_crons"


def claims(gates: Path, srv: ServerProcess) -> list[str]:
    path = gates / f"cron-claims-{srv.proc.pid}"
    return path.read_text().splitlines() if path.exists() else []


def test_a_cron_fires_once_across_two_replicas(cluster: Cluster) -> None:
    env = {"GRAPHWIRE_CRON_SECONDS": "0.2"}
    replicas = [cluster.replica(module=MODULE, http=True, env=env), cluster.replica(module=MODULE, env=env)]
    client = sync_client(replicas[0])
    thread = client.threads.create(graph_id="parallel")
    label = f"cron-{uuid.uuid4().hex[:6]}"
    cron = client.crons.create_for_thread(thread["thread_id"], "parallel", schedule="0 0 1 1 *", input={"label": label})
    with psycopg.connect(cluster.dsn, autocommit=True) as conn:
        moved = conn.execute(
            sql.SQL("UPDATE {} SET next_run_date = now() - interval '1 minute' WHERE cron_id = %s").format(sql.Identifier(cluster.schema, "crons")),
            (cron["cron_id"],),
        )  # fmt: skip
        assert moved.rowcount == 1
    wait_until(lambda: cluster.runs(label) == 1, "the cron's run")
    seen = [len(claims(cluster.gates, r)) for r in replicas]
    wait_until(lambda: all(len(claims(cluster.gates, r)) >= n + 3 for r, n in zip(replicas, seen)), "three more claims by each replica")
    taken = [line for r in replicas for line in claims(cluster.gates, r) if line]
    assert taken == [cron["cron_id"]]  # claimed once, by one replica
    assert cluster.runs(label) == 1
    finished = wait_until(lambda: [r for r in client.runs.list(thread["thread_id"]) if r["status"] == "success"], "the run's end")
    assert len(finished) == 1 and len(client.runs.list(thread["thread_id"])) == 1
