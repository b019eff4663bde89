"""Webhooks over LangGraph's HTTP API: a run's ``webhook`` is POSTed the run, with its values, once it ended.

A receiver the test starts (tests/http/_receiver.py) answers as the test
says; the server (SQLite, its sender looking every 0.2 s) keeps each webhook
in its outbox table until delivered. A 500 is tried again; once delivered
the row goes and nothing more is sent. (Delivery after a replica is killed:
tests/replicas/test_webhooks_across_replicas.py.)
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable, Iterator

import pytest

from tests.conftest import ServerProcess
from tests.http._receiver import Receiver
from tests.http.conftest import GRAPHS, sync_client
from tests.replicas.conftest import wait_until

ENV = {"GRAPHWIRE_WEBHOOK_SECONDS": "0.2", "GRAPHWIRE_CRON_SECONDS": "0.2"}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver(answers=(500,))
    yield r
    r.close()


def outbox(srv: ServerProcess) -> int:
    assert srv.db is not None
    with sqlite3.connect(srv.db, timeout=30) as conn:
        return int(conn.execute("SELECT count(*) FROM webhooks").fetchone()[0])


def test_a_run_s_webhook_is_retried_after_a_500_and_sent_once_delivered(start_server: Callable[..., ServerProcess], receiver: Receiver) -> None:
    srv = start_server(graphs={"parallel": GRAPHS["parallel"]}, http=True, env=ENV)
    client = sync_client(srv)
    thread = client.threads.create(graph_id="parallel")
    label = f"hook-{uuid.uuid4().hex[:6]}"
    run = client.runs.create(thread["thread_id"], "parallel", input={"label": label}, webhook=receiver.url, metadata={"m": 1})
    wait_until(lambda: len(receiver.bodies) >= 2, "the webhook tried twice")
    wait_until(lambda: outbox(srv) == 0, "the outbox emptied")
    assert receiver.statuses == [500, 200]  # the 500 was tried again, the 200 ended it
    body = receiver.bodies[-1]
    assert (body["run_id"], body["thread_id"], body["status"], body["metadata"]["m"]) == (run["run_id"], thread["thread_id"], "success", 1)
    assert body["values"]["label"] == label and "webhook_sent_at" in body
    assert receiver.bodies[0] == {**body, "webhook_sent_at": receiver.bodies[0]["webhook_sent_at"]}  # the same run each time


def test_a_cron_s_runs_send_its_webhook(start_server: Callable[..., ServerProcess], receiver: Receiver) -> None:
    srv = start_server(graphs={"parallel": GRAPHS["parallel"]}, http=True, env=ENV)
    client = sync_client(srv)
    thread = client.threads.create(graph_id="parallel")
    label = f"cronhook-{uuid.uuid4().hex[:6]}"
    cron = client.crons.create_for_thread(thread["thread_id"], "parallel", schedule="0 0 1 1 *", input={"label": label}, webhook=receiver.url)
    assert srv.db is not None
    with sqlite3.connect(srv.db, timeout=30) as conn:
        conn.execute("UPDATE crons SET next_run_date = '2000-01-01T00:00:00.000000+00:00' WHERE cron_id = ?", (cron["cron_id"],))
    wait_until(lambda: len(receiver.bodies) >= 2 and outbox(srv) == 0, "the cron's run's webhook delivered")
    assert receiver.bodies[-1]["values"]["label"] == label and receiver.bodies[-1]["thread_id"] == thread["thread_id"]
