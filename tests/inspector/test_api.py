"""The inspector's HTTP API and event stream against a real server, without a browser."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from graphwire import FinishReason

from server.config import load_config
from tests.conftest import ROOT, ServerProcess
from tests.inspector.conftest import TOKEN, EventStream, api


@pytest.fixture
def events(inspected: ServerProcess) -> Iterator[EventStream]:
    stream = EventStream(inspected)
    yield stream
    stream.close()


def _q(**params: str) -> str:
    return "?" + "&".join(f"{k}={quote(v)}" for k, v in params.items())


# -- auth and headers -------------------------------------------------------------------


def test_the_api_needs_the_servers_token(inspected: ServerProcess) -> None:
    status, body, headers = api(inspected, "/api/graphs", token=None)
    assert (status, body["error"], body["message"]) == (401, "UNAUTHENTICATED", "missing bearer token")
    assert headers["www-authenticate"] == "Bearer"
    assert api(inspected, "/api/graphs", token="wrong")[1]["message"] == "wrong bearer token"
    assert api(inspected, "/api/events", token=None)[0] == 401
    status, body, headers = api(inspected, "/api/graphs")
    assert status == 200 and "reminders" in [g["name"] for g in body["graphs"]]
    assert headers["cache-control"] == "no-store"


def test_the_page_itself_is_public_and_loads_nothing_from_elsewhere(inspected: ServerProcess) -> None:
    status, html, headers = api(inspected, "/", token=None)
    assert status == 200 and "graphwire inspector" in html
    assert "default-src 'self'" in headers["content-security-policy"]
    assert headers["referrer-policy"] == "no-referrer"  # a ?token= never leaves in a Referer
    assert all(u.startswith(("/", "data:")) for u in re.findall(r'(?:src|href)="([^"]*)"', html))  # no CDN
    status, _, headers = api(inspected, "/static/app.js", token=None)
    assert status == 200 and headers.get_content_type() == "text/javascript"


def test_a_foreign_host_header_is_refused(inspected: ServerProcess) -> None:
    # DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host.
    status, body, _ = api(inspected, "/api/graphs", headers={"Host": "evil.example:80"})
    assert (status, body["message"]) == (403, "unexpected Host header")
    assert api(inspected, "/api/graphs", headers={"Host": "localhost"})[0] == 200


# -- reads ------------------------------------------------------------------------------


def test_a_thread_waiting_at_an_interrupt_lists_its_question(inspected: ServerProcess) -> None:
    thread = f"api-asks-{uuid.uuid4().hex[:6]}"
    remind = {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]}
    with inspected.client() as client:
        asked = client.invoke("reminders", thread, remind, timeout=30)
        (pending,) = asked.interrupts
        listed = {t["thread_id"]: t for t in api(inspected, "/api/threads" + _q(graph="reminders"))[1]["threads"]}
        assert listed[thread]["waiting"] == {
            "interrupt_id": pending.interrupt_id, "node": "ask_user", "value": "Add a reminder to call mom at 5pm?"
        }
        client.resume("reminders", thread, "yes", timeout=30)
    listed = {t["thread_id"]: t for t in api(inspected, "/api/threads" + _q(graph="reminders"))[1]["threads"]}
    assert listed[thread]["waiting"] is None


def test_threads_history_and_a_version_read_like_the_rpcs(inspected: ServerProcess) -> None:
    first, second = f"api-1-{uuid.uuid4().hex[:6]}", f"api-2-{uuid.uuid4().hex[:6]}"
    with inspected.client() as client:
        client.invoke("chain3", first, {"n": 0}, timeout=30)
        client.invoke("chain3", second, {"n": 10}, timeout=30)
        history = client.history("chain3", first)

    _, body, _ = api(inspected, "/api/threads" + _q(graph="chain3"))
    listed = [t["thread_id"] for t in body["threads"]]
    assert listed.index(second) < listed.index(first)  # most recently written first
    assert {t["thread_id"]: t["checkpoint_id"] for t in body["threads"]}[first] == history[0].checkpoint.checkpoint_id
    assert not any(t["running"] for t in body["threads"])
    assert len(api(inspected, "/api/threads" + _q(graph="chain3", limit="1"))[1]["threads"]) == 1

    _, body, _ = api(inspected, "/api/history" + _q(graph="chain3", thread=first))
    assert [(v["step"], v["source"], v["next"]) for v in body["versions"]] == [
        (-1, "input", ["__start__"]),
        (0, "loop", ["a"]),
        (1, "loop", ["b"]),
        (2, "loop", ["c"]),
        (3, "loop", []),
    ]
    assert [v["checkpoint_id"] for v in body["versions"]] == [s.checkpoint.checkpoint_id for s in reversed(history)]
    assert [v["parent_id"] for v in body["versions"]] == [None] + [v["checkpoint_id"] for v in body["versions"][:-1]]

    b_ran = body["versions"][3]["checkpoint_id"]  # step 2: b ran
    _, v, _ = api(inspected, "/api/version" + _q(graph="chain3", thread=first, checkpoint=b_ran))
    assert v["values"] == {"n": 2, "log": ["a", "b"]} and v["metadata"]["source"] == "loop"
    _, before, _ = api(inspected, "/api/version" + _q(graph="chain3", thread=first, checkpoint=body["versions"][2]["checkpoint_id"]))
    [task] = before["tasks"]  # the version b's step started from: its task, with its result
    assert (task["node"], task["result"]) == ("b", {"n": 2, "log": ["b"]})
    b = task["task_id"]
    assert v["writes"] == {
        "ran": ["b"],
        "results": [{"task_id": b, "node": "b", "result": {"n": 2, "log": ["b"]}}],
        "changes": [{"key": "n", "kind": "set", "value": 2}, {"key": "log", "kind": "appended", "value": ["b"]}],
        # every finished task's writes are stored on the version its step started from (issue 14 item 1)
        "pending_writes": [
            {"task_id": b, "node": "b", "channel": "n", "value": 2},
            {"task_id": b, "node": "b", "channel": "log", "value": ["b"]},
            {"task_id": b, "node": "b", "channel": "branch:to:c", "value": None},
        ],
    }
    _, v, _ = api(inspected, "/api/version" + _q(graph="chain3", thread=first, checkpoint=body["versions"][0]["checkpoint_id"]))
    assert (v["parent_id"], v["source"], v["writes"]["ran"], v["writes"]["pending_writes"]) == (None, "input", [], [])


def test_errors_are_the_rpcs_statuses(inspected: ServerProcess) -> None:
    # As ListHistory: a thread with no versions has an empty history; GetState's NOT_FOUND for a version.
    assert api(inspected, "/api/history" + _q(graph="chain3", thread="never-ran"))[1]["versions"] == []
    status, body, _ = api(inspected, "/api/version" + _q(graph="chain3", thread="never-ran", checkpoint="ck-nope"))
    assert (status, body["error"]) == (404, "NOT_FOUND") and "ck-nope" in body["message"]
    status, body, _ = api(inspected, "/api/graph" + _q(name="nope"))
    assert status == 404 and "unknown graph 'nope'" in body["message"]
    status, body, _ = api(inspected, "/api/history" + _q(graph="chain3"))
    assert (status, body["message"]) == (400, "thread: required (a query parameter)")
    status, body, _ = api(inspected, "/api/threads" + _q(graph="chain3", limit="x"))
    assert status == 400 and "limit" in body["message"]


def test_graph_drawing(inspected: ServerProcess) -> None:
    _, body, _ = api(inspected, "/api/graph" + _q(name="reminders"))
    assert [n["name"] for n in body["nodes"]] == ["__start__", "model", "ask_user", "tools", "__end__"]
    assert {(e["source"], e["target"], e["conditional"]) for e in body["edges"]} == {
        ("__start__", "model", False),
        ("tools", "model", False),
        ("model", "ask_user", True),
        ("model", "tools", True),
        ("model", "__end__", True),
        ("ask_user", "tools", True),  # its Command[Literal["tools", "model"]] annotation
        ("ask_user", "model", True),
    }


# -- live runs --------------------------------------------------------------------------


def _listed(inspected: ServerProcess, thread: str) -> list[dict[str, Any]] | None:
    """The gated graph's threads, when ``thread`` is among them."""
    found = api(inspected, "/api/threads" + _q(graph="gated"))[1]["threads"]
    return found if any(t["thread_id"] == thread for t in found) else None


def test_the_event_stream_follows_a_run_from_any_client(inspected: ServerProcess, events: EventStream) -> None:
    thread = f"sse-{uuid.uuid4().hex[:6]}"
    assert events.response.status == 200 and events.response.getheader("content-type").startswith("text/event-stream")
    hello = events.next()
    assert hello is not None and hello["type"] == "live"
    with ThreadPoolExecutor(1) as pool, inspected.client() as client:
        run = pool.submit(client.invoke, "gated", thread, {"gate": f"g-{thread}", "label": "x"}, timeout=60)
        # A version is told once it is stored (within the server's version linger), so the work node may start first.
        seen = events.until(lambda m: m.get("thread_id") == thread and m["type"] == "checkpoint_saved" and m["checkpoint"]["step"] == 0)
        def work_started(m: dict[str, Any]) -> bool:
            return m.get("thread_id") == thread and m["type"] == "node_started" and m["node"] == "work"

        if not any(work_started(m) for m in seen):
            seen += events.until(work_started)
        mine = [m for m in seen if m.get("thread_id") == thread]
        assert mine[0]["type"] == "run_started" and mine[0]["graph"] == "gated"
        saved = [m["checkpoint"] for m in mine if m["type"] == "checkpoint_saved"]
        assert [(c["step"], c["source"], c["next"]) for c in saved] == [(-1, "input", ["__start__"]), (0, "loop", ["work"])]
        assert [m["nodes"] for m in mine if work_started(m)] == [["work"]]
        # stored when told: its thread is listed
        assert _listed(inspected, thread) is not None
        # A watcher arriving now learns where the run is.
        _, live, _ = api(inspected, "/api/live")
        assert [(r["thread_id"], r["nodes"]) for r in live["runs"] if r["graph"] == "gated"] == [(thread, ["work"])]
        threads = _listed(inspected, thread)
        assert threads is not None and {t["thread_id"]: t["running"] for t in threads}[thread] is True

        inspected.open_gate(f"g-{thread}")
        rest = events.until(lambda m: m.get("thread_id") == thread and m["type"] == "run_finished")
        assert run.result().reason is FinishReason.END
    kinds = [m["type"] for m in rest if m.get("thread_id") == thread]
    assert kinds == ["node_finished", "values", "checkpoint_saved", "run_finished"]
    # The values the run held after its step, for the page's "held while a call runs".
    assert [m["values"]["log"] for m in rest if m["type"] == "values" and m.get("thread_id") == thread] == [["x"]]
    assert rest[-1]["reason"] == "END" and rest[-1]["nodes"] == []
    assert rest[-1]["checkpoint_id"] == run.result().checkpoint.checkpoint_id
    assert api(inspected, "/api/live")[1]["runs"] == []


def test_sigterm_ends_open_event_streams_and_the_server(start_server: Any) -> None:
    srv = start_server(inspector=True)
    stream = EventStream(srv, token=None)
    assert stream.next()["type"] == "live"
    assert srv.terminate(timeout=20) == 0
    assert stream.next() is None  # the stream ended cleanly, it was not cut
    stream.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", urlsplit(str(srv.inspector_url)).port), timeout=2).close()


# -- configuration ----------------------------------------------------------------------


def test_inspector_address_in_the_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_config(None, {}).inspector is None  # off unless asked
    (tmp_path / "graphwire.toml").write_text('inspector = "127.0.0.1:8080"\n')
    assert load_config(None, {}).inspector == "127.0.0.1:8080"
    with pytest.raises(ValueError, match="HOST:PORT"):
        load_config(None, {"inspector": "8080"})


def test_a_taken_inspector_port_fails_the_start(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", ":memory:",
             "--inspector", f"127.0.0.1:{port}"],
            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert proc.returncode == 2
    assert f"cannot listen on inspector address '127.0.0.1:{port}'" in proc.stderr


def test_with_tls_the_inspector_serves_https_with_the_same_certificate(tmp_path: Path, certs: tuple[Path, Path]) -> None:
    cert, key = certs
    cmd = [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", ":memory:",
           "--tls-cert", str(cert), "--tls-key", str(key), "--inspector", "127.0.0.1:0", "--auth-token", TOKEN]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode()
        assert line.startswith("graphwire inspector on https://127.0.0.1:"), line
        url = line.split()[-1]
        assert "listening on" in proc.stdout.readline().decode()
        context = ssl.create_default_context(cafile=str(cert))
        req = urllib.request.Request(url + "api/graphs", headers={"Authorization": f"Bearer {TOKEN}"})
        with urllib.request.urlopen(req, context=context, timeout=10) as res:
            assert json.load(res)["graphs"][0]["name"] == "reminders"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


def test_a_subgraph_node_carries_its_drawing_and_its_task_its_versions(inspected: ServerProcess) -> None:
    _, body, _ = api(inspected, "/api/graph" + _q(name="supervisor"))
    nodes = {n["name"]: n for n in body["nodes"]}
    assert nodes["supervisor"]["subgraph"] is None
    writer = nodes["writer"]["subgraph"]
    assert [n["name"] for n in writer["nodes"]] == ["__start__", "draft", "approve", "__end__"]
    assert all(n["subgraph"] is None for n in writer["nodes"])
    assert {"source": "draft", "target": "approve", "conditional": False, "label": ""} in writer["edges"]

    thread = f"api-team-{uuid.uuid4().hex[:6]}"
    with inspected.client() as client:
        assert client.invoke("supervisor", thread, {"messages": [{"role": "user", "content": "tidal power"}]}, timeout=30).interrupted
        head = client.get_state("supervisor", thread)
    _, v, _ = api(inspected, "/api/version" + _q(graph="supervisor", thread=thread, checkpoint=head.checkpoint.checkpoint_id))
    [task] = v["tasks"]
    assert task["node"] == "writer" and task["checkpoint_ns"] == f"writer:{task['task_id']}"
    _, inner, _ = api(inspected, "/api/history" + _q(graph="supervisor", thread=thread, checkpoint_ns=task["checkpoint_ns"]))
    assert inner["checkpoint_ns"] == task["checkpoint_ns"]
    assert [(s["source"], s["next"]) for s in inner["versions"]] == [("input", ["__start__"]), ("loop", ["draft"]), ("loop", ["approve"])]
    assert [i["node"] for i in inner["versions"][-1]["interrupts"]] == ["approve"]
    newest = inner["versions"][-1]["checkpoint_id"]
    _, sv, _ = api(inspected, "/api/version" + _q(graph="supervisor", thread=thread, checkpoint=newest, checkpoint_ns=task["checkpoint_ns"]))
    assert sv["values"]["messages"][-1]["content"].startswith("Draft: tidal power")
    assert [t["node"] for t in sv["tasks"]] == ["approve"] and sv["tasks"][0]["checkpoint_ns"] is None
    status, body, _ = api(inspected, "/api/history" + _q(graph="supervisor", thread=thread, checkpoint_ns="nowhere:1"))
    assert status == 404


def test_a_threads_label_is_its_records_metadata_user_or_title() -> None:
    """The one place the page's thread label comes from: the thread record's metadata."""
    from types import SimpleNamespace

    from server.inspector._views import thread_label, thread_view

    listed = SimpleNamespace(thread_id="t1", checkpoint_id="c1", updated_at="")
    assert thread_label({"user": "ada", "title": "Trip"}) == "ada"
    assert thread_label({"title": "Trip"}) == "Trip"
    assert thread_label({"user": ""}) is None
    assert thread_label(None) is None  # no record: the page shows the id
    assert thread_view(listed, False, None, {"status": "idle", "metadata": {"title": "Trip"}})["label"] == "Trip"
    assert thread_view(listed, False)["label"] is None
