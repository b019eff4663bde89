"""Expired threads swept by the servers' own sweepers, as they run (issue 33 item 2): two ``graphwire
serve`` replicas on one PostgreSQL, sweeping every 0.2 s, threads with a TTL of one second.

Nothing waits for a clock but through a condition: a thread is gone once a read says so
(:func:`wait_until`), and a sweep is known to have happened after an instant when a thread created
after it is gone. The deterministic cases (one sweeping replica at a time, what a sweep deletes from
the database) are in test_thread_expiry.py.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any

import pytest
from graphwire import NotFound, ThreadStatus

from tests.replicas.conftest import Cluster, wait_until

ENV = {"GRAPHWIRE_THREAD_SWEEP_SECONDS": "0.2"}


def gone(client: Any, graph: str, thread: str) -> bool:
    try:
        client.threads.get(graph, thread)
    except NotFound:
        return True
    return False


def test_the_replicas_sweep_expired_threads_but_not_under_a_run(cluster: Cluster) -> None:
    a, b = cluster.replica(env=ENV), cluster.replica(env=ENV)
    tag = uuid.uuid4().hex[:6]
    with a.client() as ca, b.client() as cb:
        ca.threads.create("chain3", f"idle-{tag}", ttl=1)
        cb.invoke("chain3", f"idle-{tag}", {"n": 1})
        wait_until(lambda: gone(ca, "chain3", f"idle-{tag}"), "the idle thread to be swept")
        assert ca.history("chain3", f"idle-{tag}") == []

        busy = f"busy-{tag}"
        ca.threads.create("gated", busy, ttl=1)
        run = ca.stream("gated", busy, {"gate": f"hold-{tag}", "label": "x"}, timeout=60)
        for e in run:
            if type(e).__name__ == "CustomEvent":
                break  # the run holds the thread
        held = cb.threads.get("gated", busy)
        assert held.status is ThreadStatus.BUSY and held.expires_at is not None
        wait_until(lambda: datetime.now(timezone.utc) > held.expires_at, "the busy thread's expiry")  # type: ignore[operator]
        # A thread created now and swept later proves a sweep ran after the busy one expired.
        witness = f"witness-{tag}"
        cb.threads.create("chain3", witness, ttl=1)
        wait_until(lambda: gone(cb, "chain3", witness), "a sweep after the busy thread expired")
        assert cb.threads.get("gated", busy).status is ThreadStatus.BUSY  # not swept under its run
        cluster.open_gate(f"hold-{tag}")
        assert [type(e).__name__ for e in run][-1] == "RunFinished"
        wait_until(lambda: gone(cb, "gated", busy), "the thread to be swept after its run")
        with pytest.raises(NotFound):
            ca.get_state("gated", busy)
