"""Going back over the wire: Fork (plain and with an update), Invoke on an
older checkpoint, UpdateState. The old branch always stays in the history."""

from __future__ import annotations

from typing import Any

from graphwire import CheckpointSaved, EventKind, FinishReason, RunStarted, TaskStarted

USER = {"role": "user", "content": "remind me to call mom at 5pm"}

#: invoke/resume/fork send only the first and last events unless asked for more.
ALL_KINDS = list(EventKind)


def _by_id(history: list[Any]) -> dict[str, Any]:
    return {s.checkpoint.checkpoint_id: s for s in history}


def _branch(history: list[Any], head: str) -> list[str]:
    """Checkpoint ids from ``head`` back to the root, following parents."""
    by_id, out, cur = _by_id(history), [], head
    while cur:
        out.append(cur)
        cur = by_id[cur].checkpoint.parent_id
    return out


def test_fork_reminders_from_the_interrupted_version(server: Any, thread_id: str) -> None:
    with server.client() as client:
        assert client.invoke("reminders", thread_id, {"messages": [USER]}, timeout=30).interrupted
        done = client.resume("reminders", thread_id, "yes", timeout=30)
        assert done.reason is FinishReason.END
        old_head = done.checkpoint.checkpoint_id
        before = client.history("reminders", thread_id)
        # The version that waited at ask_user (step 1).
        named = next(s for s in before if s.checkpoint.next == ("ask_user",))

        forked = client.fork("reminders", thread_id, named.checkpoint.checkpoint_id, event_kinds=ALL_KINDS, timeout=30)

        # The run went on from the copy: ask_user asked again.
        assert forked.reason is FinishReason.INTERRUPT
        assert [i.value for i in forked.interrupts] == ["Add a reminder to call mom at 5pm?"]
        saved = [e.checkpoint for e in forked.events if isinstance(e, CheckpointSaved)]
        assert [(c.source, c.step, c.parent_id) for c in saved] == [
            ("fork", named.checkpoint.step + 1, named.checkpoint.checkpoint_id)
        ]
        new_head = client.get_state("reminders", thread_id)
        assert new_head.checkpoint.checkpoint_id == saved[0].checkpoint_id
        assert new_head.checkpoint.parent_id == named.checkpoint.checkpoint_id
        assert new_head.values == named.values  # a copy of the named version

        after = client.history("reminders", thread_id)
        ids = [s.checkpoint.checkpoint_id for s in after]
        # Old branch still listed, in full; the fork is the newest.
        assert {s.checkpoint.checkpoint_id for s in before} <= set(ids)
        assert ids[0] == new_head.checkpoint.checkpoint_id
        assert old_head in ids
        assert _by_id(after)[old_head].values["reminders"] == [{"text": "call mom", "at": "5pm"}]

        # Finishing the new branch adds one reminder to *its* state only.
        again = client.resume("reminders", thread_id, "yes", timeout=30)
        assert again.reason is FinishReason.END
        assert again.values["reminders"] == [{"text": "call mom", "at": "5pm"}]
        branch = _branch(client.history("reminders", thread_id), again.checkpoint.checkpoint_id)
        assert named.checkpoint.checkpoint_id in branch
        assert old_head not in branch


def test_fork_with_update_as_node(server: Any, thread_id: str) -> None:
    with server.client() as client:
        first = client.invoke("chain3", thread_id, {"n": 0}, timeout=30)
        assert first.reason is FinishReason.END and first.values == {"n": 3, "log": ["a", "b", "c"]}
        history = client.history("chain3", thread_id)
        after_a = next(s for s in history if s.checkpoint.next == ("b",))
        assert after_a.values == {"n": 1, "log": ["a"]}

        forked = client.fork(
            "chain3", thread_id, after_a.checkpoint.checkpoint_id, update={"n": 100}, as_node="a", event_kinds=ALL_KINDS, timeout=30
        )

        assert forked.reason is FinishReason.END
        assert forked.values == {"n": 102, "log": ["a", "b", "c"]}  # b and c ran again from n=100
        update = next(c for c in client.history("chain3", thread_id) if c.checkpoint.source == "update").checkpoint
        assert isinstance(forked.events[0], RunStarted)
        assert forked.events[0].checkpoint_id == update.checkpoint_id  # the run starts from the update
        assert update.parent_id == after_a.checkpoint.checkpoint_id
        assert update.step == after_a.checkpoint.step + 1
        assert update.next == ("b",)
        assert [e.node for e in forked.events if isinstance(e, TaskStarted)] == ["b", "c"]
        # The update version is streamed like every version the run saves:
        # right after RunStarted, then one per step, each the next's parent.
        saved = [e.checkpoint for e in forked.events if isinstance(e, CheckpointSaved)]
        assert isinstance(forked.events[1], CheckpointSaved) and forked.events[1].checkpoint == update
        assert [c.source for c in saved] == ["update", "loop", "loop"]
        assert [c.parent_id for c in saved[1:]] == [c.checkpoint_id for c in saved[:-1]]
        assert saved[-1] == forked.checkpoint
        # The new head's branch runs through the update to the named version.
        branch = _branch(client.history("chain3", thread_id), forked.checkpoint.checkpoint_id)
        assert update.checkpoint_id in branch
        assert branch.index(after_a.checkpoint.checkpoint_id) == branch.index(update.checkpoint_id) + 1
        # The old head is still there, unchanged.
        old = client.get_state("chain3", thread_id, first.checkpoint.checkpoint_id)
        assert old.values == {"n": 3, "log": ["a", "b", "c"]}
        assert first.checkpoint.checkpoint_id not in branch


def test_fork_plain_copies_and_reruns(server: Any, thread_id: str) -> None:
    with server.client() as client:
        client.invoke("chain3", thread_id, {"n": 0}, timeout=30)
        named = next(s for s in client.history("chain3", thread_id) if s.checkpoint.next == ("c",))
        forked = client.fork("chain3", thread_id, named.checkpoint.checkpoint_id, event_kinds=ALL_KINDS, timeout=30)
    saved = [e.checkpoint for e in forked.events if isinstance(e, CheckpointSaved)]
    assert saved[0].source == "fork" and saved[0].parent_id == named.checkpoint.checkpoint_id
    assert saved[0].step == named.checkpoint.step + 1 and saved[0].next == ("c",)
    assert forked.values == {"n": 3, "log": ["a", "b", "c"]}
    assert forked.checkpoint.parent_id == saved[0].checkpoint_id


def test_invoke_on_an_older_checkpoint_starts_a_branch(server: Any, thread_id: str) -> None:
    with server.client() as client:
        first = client.invoke("chain3", thread_id, {"n": 0}, timeout=30)
        after_a = next(s for s in client.history("chain3", thread_id) if s.checkpoint.next == ("b",))
        result = client.invoke("chain3", thread_id, {"n": 10}, checkpoint_id=after_a.checkpoint.checkpoint_id, event_kinds=ALL_KINDS, timeout=30)
        history = client.history("chain3", thread_id)
    saved = [e.checkpoint for e in result.events if isinstance(e, CheckpointSaved)]
    assert saved[0].source == "input" and saved[0].parent_id == after_a.checkpoint.checkpoint_id
    assert "fork" not in {s.checkpoint.source for s in history}
    assert result.reason is FinishReason.END
    assert result.values == {"n": 13, "log": ["a", "a", "b", "c"]}
    assert first.checkpoint.checkpoint_id in {s.checkpoint.checkpoint_id for s in history}


def test_update_state_writes_an_update_version(server: Any, thread_id: str) -> None:
    with server.client() as client:
        first = client.invoke("chain3", thread_id, {"n": 0}, timeout=30)
        ref = client.update_state("chain3", thread_id, {"n": 50, "log": ["manual"]}, as_node="c")
        state = client.get_state("chain3", thread_id)
    assert (ref.source, ref.parent_id, ref.step, ref.next) == (
        "update",
        first.checkpoint.checkpoint_id,
        first.checkpoint.step + 1,
        (),
    )
    assert state.checkpoint.checkpoint_id == ref.checkpoint_id
    assert state.values == {"n": 50, "log": ["a", "b", "c", "manual"]}  # the log's reducer applied
