"""Replicas share node caches: on PostgreSQL, a node one replica ran is a hit on another.

The ``cached`` graph's ``lookup`` records the process id of each real run
(tests/graphs.py). Two replicas on one schema, with the default cache (the
checkpointer's database): the first runs it, the second, on another thread,
gets its writes from the cache; a new city runs on the second.
"""

from __future__ import annotations

from typing import Any

import psycopg
from graphwire import TaskFinished
from psycopg import sql

from tests.replicas.conftest import Cluster

GRAPHS = {"cached": "tests.graphs:cached"}


def _lookup_cached(srv: Any, thread_id: str, city: str) -> bool:
    with srv.client() as client:
        events = list(client.stream("cached", thread_id, {"city": city, "label": "r"}, timeout=30))
    assert events[-1].reason == "END", events[-1]
    assert events[-1].values["log"] == [f"sunny in {city}"]
    return next(e.cached for e in events if isinstance(e, TaskFinished) and e.node == "lookup")


def test_a_node_run_on_one_replica_is_a_hit_on_another(cluster: Cluster) -> None:
    a, b = cluster.replica(graphs=GRAPHS), cluster.replica(graphs=GRAPHS)
    assert _lookup_cached(a, "t1", "Oslo") is False
    assert _lookup_cached(b, "t2", "Oslo") is True
    assert _lookup_cached(b, "t3", "Lima") is False
    assert _lookup_cached(a, "t4", "Lima") is True
    runs = (cluster.gates / "runs-r").read_text().splitlines()
    assert runs == [str(a.proc.pid), str(b.proc.pid)]
    with psycopg.connect(cluster.dsn, autocommit=True) as conn:  # one row per city, in the replicas' schema
        table = sql.Identifier(cluster.schema, "cache_entries")
        assert conn.execute(sql.SQL("SELECT count(*) FROM {}").format(table)).fetchone() == (2,)
