"""A LangGraph-run graph across a server's restart, and under tenants (issue 31 item 1).

As tests/server/test_durable.py for the engine's graphs: a durable run stopped
by shutdown past its grace period is continued by the restarted server, and a
background run whose server was SIGKILLed mid-step is finished after the
restart, its finished sibling's stored write used; with tenants, a tenant's
threads, runs and store items are its own.

Each test that takes ``served`` runs twice, for each runtime: on the graph built with
LangGraph's classes (served by LangGraph) and on the same module built with the
engine's (``engine_<name>``), with the same calls and the same assertions.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any, Callable

import pytest

pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

from graphwire import NotFound, RunStatus  # noqa: E402

from tests.server._langgraph_graphs import backend, graph_args, served  # noqa: E402, F401 - the runtime and storage under test

DEADLINE = 30.0


def wait_until(condition: Callable[[], Any], what: str, timeout: float = DEADLINE) -> Any:
    deadline = time.monotonic() + timeout
    while not (got := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)
    return got


def test_a_run_stopped_by_shutdown_is_continued_after_the_restart(start_server: Any, tmp_path: Path, thread_id: str, served: Callable[[str], str]) -> None:
    graphs, args = graph_args(tmp_path)
    first = start_server(graphs=graphs, args=[*args, "--grace", "0.2"])
    gate = f"drain-{uuid.uuid4().hex}"
    with first.client() as client:
        run = client.stream(served("gated"), thread_id, {"gate": gate, "label": "d"}, background=True, timeout=DEADLINE)
        run_id = list(run)[0].run_id
        wait_until(lambda: _versions(first.db, f"{served('gated')}:{thread_id}") == 3, "the versions before the node (input, steps 0 and 1)")
    assert first.terminate() == 0  # past the grace period: stopped, not ended
    second = start_server(graphs=graphs, args=args, db=first.db, gates=first.gates)
    second.open_gate(gate)
    with second.client() as client:
        done = wait_until(lambda: (r := client.get_run(run_id)).status is RunStatus.SUCCESS and r, "the restarted server to finish the run")
        assert done.attempts == 2
        assert client.get_state(served("gated"), thread_id).values["log"] == ["prepare", "d"]  # prepare ran once


def test_a_background_run_killed_mid_step_is_finished_after_a_restart(start_server: Any, tmp_path: Path, thread_id: str, served: Callable[[str], str]) -> None:
    graphs, args = graph_args(tmp_path)
    first = start_server(graphs=graphs, args=args)
    gate, label = f"bg-kill-{uuid.uuid4().hex}", uuid.uuid4().hex
    with first.client() as client:
        run_id = list(client.stream(served("parallel"), thread_id, {"gate": gate, "label": label}, background=True, timeout=DEADLINE))[0].run_id
        runs = first.gates / f"runs-{label}"
        wait_until(lambda: runs.exists() and _fast_write_stored(first.db, f"{served('parallel')}:{thread_id}"), "fast's write to be stored")
    first.kill()
    second = start_server(graphs=graphs, args=args, db=first.db, gates=first.gates)
    second.open_gate(gate)
    with second.client() as client:
        done = wait_until(lambda: (r := client.get_run(run_id)).status is RunStatus.SUCCESS and r, "the restarted server to finish the run")
        assert done.attempts == 2
        assert sorted(client.get_state(served("parallel"), thread_id).values["log"]) == ["fast", "slow"]
        events = list(client.join_run(run_id, timeout=DEADLINE))
    assert runs.read_text().splitlines() == ["fast"]  # the finished task did not run again
    assert [e.seq for e in events] == sorted({e.seq for e in events})


def _versions(db: Path, key: str) -> int:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''", (key,)).fetchone()[0])


def _fast_write_stored(db: Path, key: str) -> bool:
    import sqlite3

    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT count(*) FROM writes WHERE thread_id = ?1 AND channel = 'log' AND checkpoint_id = "
            "(SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = '')",
            (key,),
        ).fetchone()
    return bool(rows[0])


def test_tenants_see_only_their_own_threads_runs_and_store(
    start_server: Any, tmp_path: Path, thread_id: str, served: Callable[[str], str], backend: dict[str, Any]
) -> None:
    graphs, args = graph_args(tmp_path)
    tokens = tmp_path / "tokens.toml"
    tokens.write_text('acme = "acme-token-0123456789"\nbeta = "beta-token-0123456789"\n')
    srv = start_server(graphs=graphs, args=[*args, "--auth-tokens", str(tokens)], **backend)
    with srv.client(token="acme-token-0123456789") as acme, srv.client(token="beta-token-0123456789") as beta:
        done = acme.invoke(served("memo"), thread_id, {"label": "shared"}, timeout=DEADLINE)
        assert done.values["log"] == [1]
        with pytest.raises(NotFound):
            beta.get_state(served("memo"), thread_id)
        with pytest.raises(NotFound):
            beta.get_run(done.run_id)
        assert beta.list_runs(served("memo"), thread_id) == []
        assert beta.store.get_item(["notes", "shared"], "seen") is None
        # beta's own run of the same thread id and label: its own thread, and its own store
        assert beta.invoke(served("memo"), thread_id, {"label": "shared"}, timeout=DEADLINE).values["log"] == [1]
        assert acme.store.get_item(["notes", "shared"], "seen").value == {"label": "shared"}
        assert json.dumps(acme.get_state(served("memo"), thread_id).values) == json.dumps(done.values)
