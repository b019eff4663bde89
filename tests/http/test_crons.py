"""Crons over LangGraph's HTTP API, driven by the real ``langgraph-sdk``: made, searched, counted, changed, deleted, fired.

A server of the test's own (SQLite, its scheduler looking every 0.2 s:
``GRAPHWIRE_CRON_SECONDS``) runs tests/graphs.py's ``parallel``, whose
``fast`` node records each run in ``runs-<label>`` in the gates directory.
A cron is made due by moving its ``next_run_date`` into the past in the
server's file (time is the test's to control), never by waiting for a
minute to turn; the test then waits for the run to be recorded.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk.errors import NotFoundError, UnprocessableEntityError

from engine.host import default_assistant_id
from tests.conftest import ServerProcess
from tests.http.conftest import GRAPHS, sync_client
from tests.replicas.conftest import wait_until

ANN, BOB = "ann-token-0123456789", "bob-token-0123456789"


def serve(start_server: Callable[..., ServerProcess], **kwargs: Any) -> ServerProcess:
    return start_server(graphs={"parallel": GRAPHS["parallel"]}, http=True, env={"GRAPHWIRE_CRON_SECONDS": "0.2"}, **kwargs)


def runs(srv: ServerProcess, label: str) -> int:
    path = srv.gates / f"runs-{label}"
    return len(path.read_text().splitlines()) if path.exists() else 0


def make_due(srv: ServerProcess, cron_id: str) -> None:
    assert srv.db is not None
    with sqlite3.connect(srv.db, timeout=30) as conn:
        changed = conn.execute("UPDATE crons SET next_run_date = '2000-01-01T00:00:00.000000+00:00' WHERE cron_id = ?", (cron_id,))
        assert changed.rowcount == 1


def when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_a_thread_cron_fires_on_its_thread_and_moves_to_its_next_date(start_server: Callable[..., ServerProcess]) -> None:
    srv = serve(start_server)
    client = sync_client(srv)
    thread = client.threads.create(graph_id="parallel")
    label = f"thread-{uuid.uuid4().hex[:6]}"
    made = client.crons.create_for_thread(thread["thread_id"], "parallel", schedule="*/5 * * * *", input={"label": label}, metadata={"team": "a"})
    # The graph's name stands for its default assistant, whose id is kept and answered (as LangGraph's server).
    assert (made["thread_id"], made["assistant_id"], made["schedule"], made["enabled"]) == (thread["thread_id"], default_assistant_id("parallel"), "*/5 * * * *", True)
    assert [c["cron_id"] for c in client.crons.search(assistant_id="parallel")] == [made["cron_id"]] == [
        c["cron_id"] for c in client.crons.search(assistant_id=default_assistant_id("parallel"))]  # fmt: skip
    assert made["payload"] == {"input": {"label": label}, "metadata": {"team": "a"}} and made["metadata"] == {"team": "a"}
    first = when(made["next_run_date"])
    assert first > datetime.now(timezone.utc) and first.minute % 5 == 0 and first.second == 0
    assert runs(srv, label) == 0  # not due yet
    make_due(srv, made["cron_id"])
    wait_until(lambda: runs(srv, label) == 1, "the cron's run")
    found = wait_until(lambda: [r for r in client.runs.list(thread["thread_id"]) if r["status"] == "success"], "the run's end")
    assert len(found) == 1 and found[0]["metadata"].get("team") == "a"
    assert client.threads.get_state(thread["thread_id"])["values"]["label"] == label
    (after,) = client.crons.search(thread_id=thread["thread_id"])
    assert when(after["next_run_date"]) > datetime.now(timezone.utc)  # claimed: moved on to its next date
    assert runs(srv, label) == 1


def test_a_stateless_cron_runs_on_a_new_thread_deleted_after_it_unless_kept(start_server: Callable[..., ServerProcess]) -> None:
    srv = serve(start_server)
    client = sync_client(srv)
    gone, kept = (f"{w}-{uuid.uuid4().hex[:6]}" for w in ("gone", "kept"))
    deleting = client.crons.create("parallel", schedule="0 0 * * *", input={"label": gone})
    keeping = client.crons.create("parallel", schedule="0 0 * * *", input={"label": kept}, on_run_completed="keep")
    assert (deleting["thread_id"], deleting["on_run_completed"], keeping["on_run_completed"]) == (None, "delete", "keep")
    make_due(srv, deleting["cron_id"])
    make_due(srv, keeping["cron_id"])
    wait_until(lambda: runs(srv, gone) == 1 and runs(srv, kept) == 1, "both crons' runs")
    threads = wait_until(lambda: (t := client.threads.search()) and len(t) == 1 and t, "the deleting cron's thread gone")
    values = wait_until(lambda: client.threads.get_state(threads[0]["thread_id"])["values"], "the kept thread's values")
    assert values["label"] == kept


def test_search_count_update_delete_and_bad_bodies(start_server: Callable[..., ServerProcess]) -> None:
    srv = serve(start_server)
    client = sync_client(srv)
    thread = client.threads.create(graph_id="parallel")
    a = client.crons.create("parallel", schedule="0 9 * * *", input={"label": "a"}, metadata={"k": 1})
    b = client.crons.create_for_thread(thread["thread_id"], "parallel", schedule="0 10 * * *", timezone="Europe/Paris")
    assert when(b["next_run_date"]).astimezone(timezone.utc).hour in (8, 9)  # 10:00 in Paris
    assert {c["cron_id"] for c in client.crons.search()} == {a["cron_id"], b["cron_id"]}
    assert [c["cron_id"] for c in client.crons.search(thread_id=thread["thread_id"])] == [b["cron_id"]]
    assert [c["cron_id"] for c in client.crons.search(metadata={"k": 1})] == [a["cron_id"]]
    assert [c["cron_id"] for c in client.crons.search(sort_by="cron_id", sort_order="asc")] == sorted([a["cron_id"], b["cron_id"]])
    assert client.crons.search(select=["cron_id"], limit=1, sort_by="created_at", sort_order="asc") == [{"cron_id": a["cron_id"]}]
    assert client.crons.count() == 2 and client.crons.count(assistant_id="parallel", thread_id=thread["thread_id"]) == 1
    changed = client.crons.update(a["cron_id"], schedule="30 * * * *", enabled=False, input={"label": "a2"})
    assert (changed["schedule"], changed["enabled"], changed["payload"]["input"]) == ("30 * * * *", False, {"label": "a2"})
    assert when(changed["next_run_date"]).minute == 30
    assert [c["cron_id"] for c in client.crons.search(enabled=False)] == [a["cron_id"]]
    client.crons.delete(a["cron_id"])
    assert [c["cron_id"] for c in client.crons.search()] == [b["cron_id"]]
    with pytest.raises(NotFoundError):
        client.crons.delete(a["cron_id"])
    for bad, named in [
        ({"schedule": "every day"}, "five fields"), ({"schedule": "61 * * * *"}, "minute"), ({"timezone": "Mars/Base"}, "timezone"),
        ({"stream_mode": "nope"}, "stream_mode"), ({"end_time": "tomorrow"}, "end_time"), ({"colour": "red"}, "colour"),
        ({"on_run_completed": "later"}, "on_run_completed"), ({"webhook": "http://127.0.0.1:9/"}, "webhook"),
    ]:  # fmt: skip
        with pytest.raises(UnprocessableEntityError) as refused:
            client.http.post("/runs/crons", json={"schedule": "0 9 * * *", "assistant_id": "parallel", **bad})
        assert named in refused.value.body["detail"]
    with pytest.raises(NotFoundError):
        client.crons.create("no-such-graph", schedule="0 9 * * *")
    with pytest.raises(NotFoundError):
        client.crons.create_for_thread(str(uuid.uuid4()), "parallel", schedule="0 9 * * *")
    assert client.crons.count() == 1  # nothing refused was kept


def test_tenants_see_only_their_own_crons_and_each_fires_as_its_tenant(start_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(f'ann = "{ANN}"\nbob = "{BOB}"\n')
    srv = serve(start_server, args=["--auth-tokens", str(tokens)])
    ann, bob = sync_client(srv, api_key=ANN), sync_client(srv, api_key=BOB)
    thread = ann.threads.create(graph_id="parallel")
    label = f"ann-{uuid.uuid4().hex[:6]}"
    mine = ann.crons.create_for_thread(thread["thread_id"], "parallel", schedule="0 9 * * *", input={"label": label})
    assert bob.crons.search() == [] and bob.crons.count() == 0
    with pytest.raises(NotFoundError):
        bob.crons.delete(mine["cron_id"])
    with pytest.raises(NotFoundError):
        bob.crons.update(mine["cron_id"], enabled=False)
    with pytest.raises(NotFoundError):
        bob.crons.create_for_thread(thread["thread_id"], "parallel", schedule="0 9 * * *")  # ann's thread
    make_due(srv, mine["cron_id"])
    wait_until(lambda: runs(srv, label) == 1, "ann's cron's run")
    wait_until(lambda: ann.threads.get_state(thread["thread_id"])["values"], "the run's values on ann's thread")
    assert [c["cron_id"] for c in ann.crons.search()] == [mine["cron_id"]]
