"""Two replicas on one database: one run per thread, enforced by PostgreSQL.

The same thread invoked on both at once runs once; the other call is ABORTED
naming the thread (or, with enqueue, waits and runs after), and the history
stays one chain. A thread interrupted on one replica is resumed on the other.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from graphwire import Aborted, FinishReason, RunFinished, RunStarted, TaskStarted

from tests.replicas.conftest import Call, Cluster, assert_single_chain, wait_until

USER = {"role": "user", "content": "remind me to call mom at 5pm"}


def working(e: Any) -> bool:
    return isinstance(e, TaskStarted) and e.node == "work"


def test_the_same_thread_invoked_on_two_replicas_at_once_runs_once(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(), cluster.replica()
    gate = f"{thread_id}-gate"
    both = threading.Barrier(2)

    def invoke(label: str) -> Any:
        def make(client: Any) -> Any:
            both.wait(10)
            return client.stream("gated", thread_id, {"gate": gate, "label": label}, timeout=60)

        return make

    calls = {"a": Call(a, invoke("a")), "b": Call(b, invoke("b"))}
    loser = wait_until(lambda: next((n for n, c in calls.items() if c.done()), None), "one call to be refused")
    winner = "b" if loser == "a" else "a"
    _, refused = calls[loser].outcome()
    assert isinstance(refused, Aborted), refused
    assert repr(thread_id) in refused.message and "another replica" in refused.message
    calls[winner].until(working, "the winner's node to run")
    run_id = next(e.run_id for e in calls[winner].events if isinstance(e, RunStarted))

    # While it runs, writes through the other replica are refused too; reads are not
    # (and show the run's input once its version has landed: durability is async).
    wait_until(
        lambda: cluster.query("SELECT 1 FROM {checkpoints} WHERE thread_id = %s", (f"gated:{thread_id}",)),
        "the winner's input version to be stored",
    )
    other = b if winner == "a" else a
    with other.client() as client:
        with pytest.raises(Aborted, match=thread_id):
            client.update_state("gated", thread_id, {"label": "x"}, as_node="work", timeout=30)
        with pytest.raises(Aborted, match=thread_id):
            client.delete_thread("gated", thread_id, timeout=30)
        assert client.get_state("gated", thread_id, timeout=30).values["label"] == winner

    cluster.open_gate(gate)
    done = calls[winner].finish()
    assert isinstance(done, RunFinished) and done.reason is FinishReason.END
    assert done.values["log"] == [winner]
    with other.client() as client:
        history = client.history("gated", thread_id, timeout=30)
    chain = assert_single_chain(history)
    assert [s.checkpoint.source for s in chain] == ["input", "loop", "loop"]
    assert {s.metadata["run_id"] for s in chain} == {run_id}
    _, epoch, live = cluster.lease("gated", thread_id)  # type: ignore[misc]
    assert epoch == 1 and not live  # released at the end of the run


def test_with_enqueue_the_other_replica_waits_its_turn(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(), cluster.replica()
    first = Call(a, lambda c: c.stream("gated", thread_id, {"gate": f"{thread_id}-a", "label": "a"}, timeout=60))
    first.until(working, "the first run's node to run")
    # Queued on the other replica: it polls the lease until the first run lets go.
    second = Call(b, lambda c: c.stream("gated", thread_id, {"gate": None, "label": "b"}, enqueue=True, timeout=60))
    with b.client() as client:  # a call without enqueue is refused meanwhile
        with pytest.raises(Aborted, match=thread_id):
            client.invoke("gated", thread_id, {"gate": None, "label": "c"}, timeout=30)
    assert not second.done()
    cluster.open_gate(f"{thread_id}-a")
    ended = first.finish()
    assert ended.reason is FinishReason.END and ended.values["log"] == ["a"]
    ended = second.finish()
    assert ended.reason is FinishReason.END and ended.values["log"] == ["a", "b"]

    with a.client() as client:
        chain = assert_single_chain(client.history("gated", thread_id, timeout=30))
    assert [s.checkpoint.source for s in chain] == ["input", "loop", "loop"] * 2
    assert [s.values.get("log") for s in chain] == [[], [], ["a"], ["a"], ["a"], ["a", "b"]]
    runs = [s.metadata["run_id"] for s in chain]
    assert len(set(runs[:3])) == 1 and len(set(runs[3:])) == 1 and runs[0] != runs[3]
    assert cluster.lease("gated", thread_id)[1] == 2  # type: ignore[index]


def test_a_thread_interrupted_on_one_replica_is_resumed_on_another(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(), cluster.replica()
    with a.client() as client:
        asked = client.invoke("reminders", thread_id, {"messages": [USER]}, timeout=60)
    assert asked.interrupted
    with b.client() as client:
        # Nothing waits for a lease: the first replica released it when its run stopped.
        pending = client.get_state("reminders", thread_id, timeout=30).interrupts
        assert [i.value for i in pending] == [i.value for i in asked.interrupts]
        done = client.resume("reminders", thread_id, "yes", timeout=60)
        assert done.reason is FinishReason.END
        assert done.values["reminders"] == [{"text": "call mom", "at": "5pm"}]
        chain = assert_single_chain(client.history("reminders", thread_id, timeout=30))
    ids = [s.checkpoint.checkpoint_id for s in chain]
    resumed_from = ids.index(asked.checkpoint.checkpoint_id)
    assert chain[resumed_from + 1].checkpoint.parent_id == asked.checkpoint.checkpoint_id
    assert chain[-1].checkpoint.checkpoint_id == done.checkpoint.checkpoint_id
    with a.client() as client:  # and the first replica sees the same thread
        assert client.get_state("reminders", thread_id, timeout=30).values == done.values


def test_forks_and_updates_across_replicas_start_branches_under_the_lease(cluster: Cluster, thread_id: str) -> None:
    """A lease's first write may continue any version (a fork, an update of an old one); then it chains."""
    a, b = cluster.replica(), cluster.replica()
    with a.client() as client:
        first = client.invoke("chain3", thread_id, {"n": 0}, timeout=60)
        assert first.values == {"n": 3, "log": ["a", "b", "c"]}
        history = client.history("chain3", thread_id, timeout=30)
    after_a = next(s for s in history if s.values.get("log") == ["a"])
    with b.client() as client:
        forked = client.fork("chain3", thread_id, after_a.checkpoint.checkpoint_id, update={"n": 10}, as_node="a",
                             timeout=60)  # fmt: skip
        assert forked.reason is FinishReason.END and forked.values == {"n": 12, "log": ["a", "b", "c"]}
    with a.client() as client:
        client.update_state("chain3", thread_id, {"n": 100}, as_node="c", checkpoint_id=after_a.checkpoint.checkpoint_id,
                            timeout=30)  # fmt: skip
        again = client.invoke("chain3", thread_id, None, timeout=60)
        assert again.reason is FinishReason.END
        everything = client.history("chain3", thread_id, timeout=30)
    parents = [s.checkpoint.parent_id for s in everything]
    ids = {s.checkpoint.checkpoint_id for s in everything}
    assert all(p is None or p in ids for p in parents)
    assert parents.count(after_a.checkpoint.checkpoint_id) == 3  # the first run's next version, the fork, the update
    assert cluster.lease("chain3", thread_id)[1] == 4  # type: ignore[index]
