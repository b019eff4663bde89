"""Tenants and node caches: a tenant's run never gets another tenant's cached writes, however equal the inputs.

A cached node may have made its writes from what only that tenant can see
(its memories in the store, its context), so each tenant's entries live
under its own root in the one cache table (:class:`server._store.TenantCache`).
The ``cached`` graph (tests/graphs.py) records every real run of ``lookup``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from graphwire import TaskFinished

ACME, GLOBEX = "acme-token-0123456789", "globex-token-0123456789"
GRAPHS = {"cached": "tests.graphs:cached"}


@pytest.fixture
def tenants(start_server: Any, tmp_path: Path) -> Any:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(f'acme = "{ACME}"\nglobex = "{GLOBEX}"\n')
    return start_server(graphs=GRAPHS, args=["--auth-tokens", str(tokens)])


def _cached(srv: Any, token: str | None, thread_id: str, city: str) -> bool:
    with srv.client(token=token) as client:
        events = list(client.stream("cached", thread_id, {"city": city, "label": "t"}, timeout=30))
    assert events[-1].reason == "END", events[-1]
    return next(e.cached for e in events if isinstance(e, TaskFinished) and e.node == "lookup")


def test_each_tenant_runs_a_cached_node_for_itself(tenants: Any) -> None:
    assert _cached(tenants, ACME, "a1", "Oslo") is False
    assert _cached(tenants, GLOBEX, "g1", "Oslo") is False  # the same input, another tenant: not acme's entry
    assert _cached(tenants, ACME, "a2", "Oslo") is True
    assert _cached(tenants, GLOBEX, "g2", "Oslo") is True
    assert len((tenants.gates / "runs-t").read_text().splitlines()) == 2
    with sqlite3.connect(tenants.db) as conn:
        roots = sorted(r[0].split('"')[1] for r in conn.execute("SELECT ns FROM cache_entries"))
    assert roots == ["tenant.acme", "tenant.globex"]


def test_a_server_without_tenants_on_the_same_file_sees_none_of_theirs(tenants: Any, start_server: Any) -> None:
    assert _cached(tenants, ACME, "a1", "Rome") is False
    assert tenants.terminate() == 0, tenants.log()
    plain = start_server(graphs=GRAPHS, db=tenants.db, gates=tenants.gates)
    assert _cached(plain, None, "p1", "Rome") is False
    assert _cached(plain, None, "p2", "Rome") is True
    assert len((tenants.gates / "runs-t").read_text().splitlines()) == 2
