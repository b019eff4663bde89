"""State lives only in the checkpointer: a server killed with SIGKILL while a
thread waits at an interrupt is started again on the same SQLite file, and the
resume succeeds with the history intact."""

from __future__ import annotations

import signal
from typing import Any

from graphwire import FinishReason

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
