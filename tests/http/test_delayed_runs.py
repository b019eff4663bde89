"""Delayed runs (``after_seconds``, issue 34) against a live ``graphwire serve --http`` with the real ``langgraph-sdk``,
on both runtimes (tests/http/_options_graphs.py).

A delayed run is answered at once, ``pending``, under the id it then runs by; it is kept in the
checkpointer's database, so a server stopped before it is due and started again on the same SQLite
file starts it; a pending run can be cancelled; the multitask strategy applies when it starts. Nothing
sleeps: ``runs.join`` waits (in the server) for the run to start and end.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ServerProcess, start_server_process
from tests.http._options_graphs import graph_args
from tests.http.conftest import sync_client
from tests.replicas.conftest import wait_until
from tests.server._langgraph_graphs import served  # noqa: F401 - the runtime under test

LATER = 3600  # a delay no test waits out: the run stays pending


@pytest.fixture(scope="module")
def delayed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = Path(tmp_path_factory.mktemp("delayed"))
    graphs, args = graph_args(directory)
    srv = start_server_process(directory, graphs=graphs, http=True, args=args)
    yield srv
    assert srv.terminate() == 0, srv.log()


def _ran(srv: ServerProcess, label: str) -> int:
    counter = srv.gates / f"ran-{label}"
    return int(counter.read_text()) if counter.exists() else 0


def test_a_delayed_run_is_answered_pending_then_runs_under_its_id(delayed_server: ServerProcess, served: Callable[[str], str]) -> None:
    client = sync_client(delayed_server)
    name, label = served("tagged"), f"later-{served('tagged')}"
    thread = client.threads.create(graph_id=name)["thread_id"]
    run = client.runs.create(thread, name, input={"label": label}, after_seconds=1, config={"tags": ["delayed"]}, metadata={"who": "me"})
    assert (run["status"], run["thread_id"], run["metadata"]) == ("pending", thread, {"who": "me"})
    assert client.runs.join(thread, run["run_id"]) == {"label": label, "log": [["delayed"], f"hi {label}"]}
    done = client.runs.get(thread, run["run_id"])
    assert (done["run_id"], done["status"]) == (run["run_id"], "success")
    assert [r["run_id"] for r in client.runs.list(thread)] == [run["run_id"]]  # one run, under the id it was given
    assert _ran(delayed_server, label) == 1


def test_a_pending_run_is_listed_and_cancelled(delayed_server: ServerProcess, served: Callable[[str], str]) -> None:
    client = sync_client(delayed_server)
    name = served("tagged")
    thread = client.threads.create(graph_id=name)["thread_id"]
    run = client.runs.create(thread, name, input={"label": "never"}, after_seconds=LATER)
    assert client.runs.get(thread, run["run_id"])["status"] == "pending"
    assert [(r["run_id"], r["status"]) for r in client.runs.list(thread)] == [(run["run_id"], "pending")]
    assert client.runs.cancel(thread, run["run_id"], wait=True) == {}  # as LangGraph's server: 200, the values streamed since (none)
    assert client.runs.get(thread, run["run_id"])["status"] == "interrupted"
    assert client.runs.join(thread, run["run_id"])["__error__"]["error"] == "UserInterrupt"
    assert client.threads.get_history(thread) == []  # it never ran
    with pytest.raises(httpx.HTTPStatusError) as other:  # another thread's id finds no such run
        client.runs.get(client.threads.create(graph_id=name)["thread_id"], run["run_id"])
    assert other.value.response.status_code == 404


def test_the_multitask_strategy_applies_when_it_starts(delayed_server: ServerProcess, served: Callable[[str], str]) -> None:
    client = sync_client(delayed_server)
    name = served("waiting")
    gate = f"busy-{name}"
    thread = client.threads.create(graph_id=name)["thread_id"]
    busy = client.runs.create(thread, name, input={"label": "first", "gate": gate})
    refused = client.runs.create(thread, name, input={"label": "refused", "gate": gate}, after_seconds=1, multitask_strategy="reject")
    queued = client.runs.create(thread, name, input={"label": "queued", "gate": gate}, after_seconds=1, multitask_strategy="enqueue")
    failed = client.runs.join(thread, refused["run_id"])  # it started (when due) on a busy thread: refused
    assert failed["__error__"]["error"] == "Error" and "already has a run in progress" in failed["__error__"]["message"]
    assert client.runs.get(thread, refused["run_id"])["status"] == "error"
    delayed_server.open_gate(gate)
    assert client.runs.join(thread, busy["run_id"])["log"] == ["first"]
    assert client.runs.join(thread, queued["run_id"])["log"] == ["first", "queued"]


def test_a_delayed_stream_and_wait_answer_once_it_ran(delayed_server: ServerProcess, served: Callable[[str], str]) -> None:
    client = sync_client(delayed_server)
    name = served("tagged")
    thread = client.threads.create(graph_id=name)["thread_id"]
    parts = list(client.runs.stream(thread, name, input={"label": f"s-{name}"}, stream_mode=["values", "updates"], after_seconds=1))
    assert [p.event for p in parts][0] == "metadata" and [p.event for p in parts][-1] == "values"
    assert [p.data for p in parts if p.event == "updates"] == [{"tagged": {"log": [[], f"hi s-{name}"]}}]
    run_id = parts[0].data["run_id"]
    assert client.runs.get(thread, run_id)["status"] == "success"
    waited = client.runs.wait(thread, name, input={"label": f"w-{name}"}, after_seconds=1)
    assert waited == {"label": f"w-{name}", "log": [[], f"hi s-{name}", [], f"hi w-{name}"]}
    assert [r["status"] for r in client.runs.list(thread)] == ["success", "success"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("stateless", "after_seconds: a delayed run is served on a thread"),
        ("negative", "after_seconds: a number of seconds, more than 0"),
        ("unknown", "no assistant 'nope'"),
    ],
)
def test_a_delayed_run_that_cannot_be_served_is_refused_at_once(delayed_server: ServerProcess, call: str, message: str) -> None:
    client = sync_client(delayed_server)
    thread = client.threads.create(graph_id="tagged")["thread_id"]
    with pytest.raises(httpx.HTTPStatusError) as refused:
        if call == "stateless":
            client.runs.create(None, "tagged", input={"label": "x"}, after_seconds=5)
        else:
            client.runs.create(thread, "tagged" if call == "negative" else "nope", input={"label": "x"}, after_seconds=-1 if call == "negative" else 5)
    assert refused.value.response.status_code in (404, 422) and message in refused.value.response.json()["detail"]
    assert client.runs.list(thread) == []


def _pending(db: Path, run_id: str) -> Any:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT status FROM delayed_runs WHERE run_id = ?", (run_id,)).fetchone()


def test_a_delayed_run_outlives_a_restart(tmp_path: Path, served: Callable[[str], str]) -> None:
    graphs, args = graph_args(tmp_path)
    first = start_server_process(tmp_path / "first", graphs=graphs, http=True, args=args)
    name, label = served("tagged"), "restart"
    try:
        client = sync_client(first)
        thread = client.threads.create(graph_id=name)["thread_id"]
        run = client.runs.create(thread, name, input={"label": label}, after_seconds=4)
    finally:
        assert first.terminate() == 0, first.log()
    assert first.db is not None and _pending(first.db, run["run_id"]) == ("pending",)  # stopped before it was due
    second = start_server_process(tmp_path / "second", graphs=graphs, http=True, args=args, db=first.db, gates=first.gates)
    try:
        client = sync_client(second)
        assert client.runs.join(thread, run["run_id"])["log"] == [[], f"hi {label}"]
        assert client.runs.get(thread, run["run_id"])["status"] == "success"
        assert _ran(second, label) == 1 and _pending(first.db, run["run_id"]) is None
    finally:
        assert second.terminate() == 0, second.log()


def test_a_delayed_streams_caller_that_leaves_cancels_it(delayed_server: ServerProcess) -> None:
    client = sync_client(delayed_server)
    thread = client.threads.create(graph_id="tagged")["thread_id"]
    with httpx.Client(base_url=delayed_server.http_url or "") as http:
        with http.stream("POST", f"/threads/{thread}/runs/stream", json={"assistant_id": "tagged", "input": {"label": "left"}, "after_seconds": LATER}) as answer:
            assert answer.status_code == 200
            run_id = answer.headers["content-location"].rsplit("/", 1)[1]
            assert client.runs.get(thread, run_id)["status"] == "pending"
    # the caller left (on_disconnect "cancel", the default): the run is cancelled before it started
    wait_until(lambda: client.runs.get(thread, run_id)["status"] == "interrupted", "the delayed run's cancel")
    assert client.threads.get_history(thread) == []
