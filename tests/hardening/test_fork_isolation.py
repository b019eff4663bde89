"""Fork isolation: running a fork, and going on on both branches, leaves every
stored row of the original branch byte for byte as it was.

A branch shares rows with its parent (unchanged channel values are stored
once, and a delta may name a base on the other branch), so the check is on
storage, not on what reads return: every checkpoint, blob and write row the
thread held before the fork is read back from the database after both
branches ran and compared column by column, bytes as bytes.
"""

from __future__ import annotations

from graphwire import FinishReason

from tests.hardening.conftest import Hardened

ASK = {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]}


def user(text: str) -> dict:
    return {"messages": [{"role": "user", "content": text}]}


def test_running_both_branches_leaves_the_original_rows_unchanged(hardened: Hardened, tid: str) -> None:
    key = f"reminders:{tid}"
    with hardened.client() as client:
        asked = client.invoke("reminders", tid, ASK, timeout=30)
        assert asked.interrupted
        question = asked.checkpoint.checkpoint_id
        done = client.resume("reminders", tid, "yes", timeout=30)
        assert done.reason is FinishReason.END
        client.invoke("reminders", tid, user("weather in Oslo"), timeout=30)
        original = hardened.storage.rows(key)
        original_head = client.get_state("reminders", tid, timeout=10)

        # Branch B: back to the question, answer no, go on talking.
        forked = client.fork("reminders", tid, question, timeout=30)
        assert forked.interrupted
        assert client.resume("reminders", tid, "no", timeout=30).reason is FinishReason.END
        client.invoke("reminders", tid, user("remind me to water the plants at 8am"), timeout=30)
        client.resume("reminders", tid, "yes", timeout=30)
        # Branch A again: a new turn from its old head, then an update on it.
        again = client.invoke("reminders", tid, user("weather in Lima"), checkpoint_id=original_head.checkpoint.checkpoint_id, timeout=30)
        assert again.reason is FinishReason.END
        client.update_state("reminders", tid, {"reminders": [{"text": "x", "at": "y"}]}, as_node="tools", checkpoint_id=original_head.checkpoint.checkpoint_id, timeout=10)  # fmt: skip
        # And a fork of the fork's first version.
        client.fork("reminders", tid, forked.checkpoint.checkpoint_id, timeout=30)

        after = hardened.storage.rows(key)
        for table, rows in original.items():
            still = set(after[table])
            missing = [r for r in rows if r not in still]
            assert not missing, f"{table}: {len(missing)} row(s) of the original branch changed or vanished: {missing[:2]}"
            assert len(after[table]) > len(rows) or table == "writes", table  # the branches did write
        # What reads return agrees: the old head still reads as it did.
        assert client.get_state("reminders", tid, original_head.checkpoint.checkpoint_id, timeout=10) == original_head
