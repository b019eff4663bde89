"""A webhook is delivered once after the replica that ran the run is killed before delivering (issue 34).

Replica A (``tests.replicas._serve_webhooks``: its webhook requests stop at a
gate) runs a background run with a webhook; its sender claims the outbox row
once the run ended and stops at the gate, just before the POST; the test
SIGKILLs it there. Replica B, on the same PostgreSQL schema, claims the row
once A's hold on it ended (webhook_timeout_seconds 1: a hold of 2.2 s) and
delivers it: the receiver the test started gets the run once.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql

from tests.http._receiver import Receiver
from tests.http.conftest import sync_client
from tests.replicas.conftest import Cluster, wait_until

ENV = {"GRAPHWIRE_WEBHOOK_SECONDS": "0.2", "GRAPHWIRE_WEBHOOK_TIMEOUT_SECONDS": "1"}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def test_a_webhook_is_delivered_once_after_the_replica_that_ran_the_run_is_killed(cluster: Cluster, receiver: Receiver) -> None:
    a = cluster.replica(module="tests.replicas._serve_webhooks", http=True, env=ENV)
    client = sync_client(a)
    thread = client.threads.create(graph_id="parallel")
    label = f"hook-{uuid.uuid4().hex[:6]}"
    run = client.runs.create(thread["thread_id"], "parallel", input={"label": label}, webhook=receiver.url)
    reached = cluster.gates / f"webhook-reached-{a.proc.pid}"
    wait_until(reached.exists, "replica A about to deliver")
    assert cluster.runs(label) == 1 and receiver.bodies == []
    a.kill()
    b = cluster.replica(http=True, env=ENV)
    wait_until(lambda: receiver.bodies, "replica B delivering the webhook")

    def outbox() -> int:
        with psycopg.connect(cluster.dsn, autocommit=True) as conn:
            return int(conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(cluster.schema, "webhooks"))).fetchone()[0])  # type: ignore[index]

    wait_until(lambda: outbox() == 0, "the outbox emptied")
    (body,) = receiver.bodies
    assert (body["run_id"], body["status"], body["values"]["label"]) == (run["run_id"], "success", label)
    assert sync_client(b).runs.get(thread["thread_id"], run["run_id"])["status"] == "success"
