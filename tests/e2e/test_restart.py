"""State lives only in the checkpointer: a server killed with SIGKILL while a
thread waits at an interrupt is started again on the same SQLite file, and the
resume succeeds with the history intact; killed in the middle of a step, the
restarted server goes on from the last stored version."""

from __future__ import annotations

import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from graphwire import FinishReason, TaskStarted, Unavailable

USER = {"role": "user", "content": "remind me to call mom at 5pm"}
GRAPHS = {"reminders": "examples.reminders:graph"}


def _rows(history: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (s.checkpoint.checkpoint_id, s.checkpoint.parent_id, s.checkpoint.step, s.checkpoint.source, s.next, s.values)
        for s in history
    ]


def test_resume_after_sigkill_and_restart(start_server: Any, thread_id: str) -> None:
    first = start_server(graphs=GRAPHS)
    with first.client() as client:
        asked = client.invoke("reminders", thread_id, {"messages": [USER]}, timeout=30)
        assert asked.interrupted
        before = _rows(client.history("reminders", thread_id))
        pending = client.get_state("reminders", thread_id).interrupts

    assert first.kill() == -signal.SIGKILL  # no drain, no clean close of the database

    second = start_server(graphs=GRAPHS, db=first.db)
    with second.client() as client:
        # Everything the first server saved is there, the question still pending.
        assert _rows(client.history("reminders", thread_id)) == before
        state = client.get_state("reminders", thread_id)
        assert state.checkpoint.checkpoint_id == asked.checkpoint.checkpoint_id
        assert [(i.interrupt_id, i.value) for i in state.interrupts] == [(i.interrupt_id, i.value) for i in pending]

        done = client.resume("reminders", thread_id, "yes", timeout=30)
        assert done.reason is FinishReason.END
        assert done.values["reminders"] == [{"text": "call mom", "at": "5pm"}]
        after = _rows(client.history("reminders", thread_id))

    # The old versions are the tail of the new history, unchanged; the new ones
    # continue the same branch from the interrupted version.
    assert after[len(after) - len(before) :] == before
    new = after[: len(after) - len(before)]
    assert [r[3] for r in new] == ["loop", "loop", "loop"]
    assert new[-1][1] == asked.checkpoint.checkpoint_id


def test_a_server_killed_mid_step_goes_on_after_a_restart_without_rerunning_finished_work(
    start_server: Any, thread_id: str, tmp_path: Path
) -> None:
    """SQLite, one server, as a newcomer runs it: SIGKILL while one node of a step
    still runs and its sibling has finished; the restarted server's ``invoke(None)``
    runs only the unfinished node, on the same branch."""
    gates = tmp_path / "gates"
    gates.mkdir()
    graphs = {"parallel": "tests.graphs:parallel"}
    first = start_server(graphs=graphs, gates=gates)
    gate, label = f"{thread_id}-gate", thread_id
    with first.client() as client:
        events = client.stream("parallel", thread_id, {"gate": gate, "label": label}, timeout=60)
        _until(events, lambda e: isinstance(e, TaskStarted) and e.node == "slow")
        # fast has finished: wait until its writes are stored (pending writes of the step's version).
        _wait_for(lambda: _stored_writes(first.db, f"parallel:{thread_id}", "log"), "fast's writes to be stored")
        assert first.kill() == -signal.SIGKILL
        with pytest.raises(Unavailable):  # the call ends as the connection does
            for _ in events:
                pass
    assert _runs(gates, label) == 1

    (gates / gate).touch()  # the restarted server's slow node may finish
    second = start_server(graphs=graphs, db=first.db, gates=gates)
    with second.client() as client:
        assert client.get_state("parallel", thread_id).next == ("slow",)  # fast's stored writes count as done
        done = client.invoke("parallel", thread_id, None, timeout=60)
        assert done.reason is FinishReason.END
        assert done.values["log"] == ["fast", "slow"]
        history = client.history("parallel", thread_id)
    assert _runs(gates, label) == 1  # fast's stored writes were used: it did not run again
    assert [s.checkpoint.source for s in reversed(history)] == ["input", "loop", "loop"]


def _until(events: Any, done: Any) -> list[Any]:
    """The events read from ``events`` up to and including the first for which ``done`` holds."""
    seen = []
    for event in events:
        seen.append(event)
        if done(event):
            return seen
    raise AssertionError(f"the stream ended first: {seen}")


def _stored_writes(db: Path, thread: str, channel: str) -> bool:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        found = conn.execute("SELECT 1 FROM writes WHERE thread_id = ? AND channel = ?", (thread, channel)).fetchone()
    conn.close()
    return found is not None


def _wait_for(condition: Any, what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)  # polling what the database holds, not waiting a guessed time


def _runs(gates: Path, label: str) -> int:
    path = gates / f"runs-{label}"
    return len(path.read_text().splitlines()) if path.exists() else 0
