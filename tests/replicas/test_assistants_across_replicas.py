"""An assistant changed through one replica reaches the runs of another.

A replica keeps the assistants its runs name (server/_assistant_cache.py) and
forgets them when PostgreSQL delivers a change's announcement. Each test runs
a graph's default assistant on replica b (so b keeps it), changes it through
replica a, and waits for b's runs to see the change: within half of
``MAX_AGE``, so a b that missed the announcement (and only forgot its record
by age) fails the test.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from graphwire import NotFound

from engine.host import default_assistant_id
from server._assistant_cache import MAX_AGE
from tests.replicas.conftest import Cluster, wait_until

pytest.importorskip("langchain_core", reason="tests.configurable_graph needs the langchain extra")

GRAPHS = {"seen": "tests.configurable_graph:graph"}


def _user_id(replica: Any, thread_id: str, assistant_id: str = "seen") -> Any:
    """What a run naming ``assistant_id`` sees as its configurable ``user_id``."""
    with replica.client() as client:
        done = client.invoke("", thread_id, {"messages": []}, assistant_id=assistant_id, configurable={"skip_model": True}, timeout=30)
    return done.values["seen"][-1].get("user_id")


def test_a_change_on_one_replica_reaches_the_runs_of_another(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(graphs=GRAPHS), cluster.replica(graphs=GRAPHS)
    n = itertools.count()
    assert [_user_id(b, f"{thread_id}-{next(n)}") for _ in range(2)] == [None, None]  # b keeps the default assistant
    with a.client() as client:
        client.assistants.update(default_assistant_id("seen"), config={"configurable": {"user_id": "changed"}})
    assert _user_id(a, f"{thread_id}-{next(n)}") == "changed"  # the replica that changed it: at once
    wait_until(lambda: _user_id(b, f"{thread_id}-{next(n)}") == "changed", "b's runs to see the change", timeout=MAX_AGE / 2)


def test_an_assistant_deleted_on_one_replica_is_not_found_by_another(cluster: Cluster, thread_id: str) -> None:
    a, b = cluster.replica(graphs=GRAPHS), cluster.replica(graphs=GRAPHS)
    with a.client() as client:
        bot = client.assistants.create("seen", {"configurable": {"user_id": "bot"}})
    assert _user_id(b, f"{thread_id}-0", bot.assistant_id) == "bot"
    with a.client() as client:
        assert client.assistants.delete(bot.assistant_id) is True
    n = itertools.count(1)

    def gone() -> bool:
        try:
            _user_id(b, f"{thread_id}-{next(n)}", bot.assistant_id)
        except NotFound:
            return True
        return False

    wait_until(gone, "b's runs to find the assistant deleted", timeout=MAX_AGE / 2)
