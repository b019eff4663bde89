"""``graphwire prune``: retention from a terminal, on a SQLite file or a PostgreSQL schema.

Threads are written the way a server writes them (thread ids scoped by graph,
``graph:thread``, and with tenants ``tenant/graph:thread``) by the engine in
process; the CLI runs as a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.checkpoint import SqliteSaver
from tests.graphs import chain3

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[list[str], Any]]:
    """(the CLI's checkpointer arguments, a saver on the same store)."""
    if request.param == "sqlite":
        path = tmp_path / "gw.db"
        saver = SqliteSaver(path)
        yield ["--checkpointer", str(path)], saver
        saver.close()
        return
    from engine.checkpoint.postgres import PostgresSaver
    from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg

    dsn, schema = require_pg(), new_schema_name()
    saver = PostgresSaver.from_dsn(dsn, schema=schema)
    try:
        yield ["--checkpointer", dsn, "--pg-schema", schema], saver
    finally:
        saver.close()
        drop_schema(schema)


def prune(store_args: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run(
        [sys.executable, "-m", "server", "prune", *store_args, *args],
        check=False, capture_output=True, text=True, env=env, timeout=60, cwd=ROOT,
    )  # fmt: skip


def cfg(thread: str, graph: str, tenant: str | None) -> dict[str, Any]:
    """The config of the thread as a server keeps it (see ``server._reads.thread_key``)."""
    return {"configurable": {"thread_id": f"{graph}:{thread}" if tenant is None else f"{tenant}/{graph}:{thread}"}}


def turns(saver: Any, thread: str, n: int, graph: str = "chain3", tenant: str | None = None) -> None:
    g = chain3.compile(checkpointer=saver, name=graph)
    for _ in range(n):
        g.invoke({"n": 0}, cfg(thread, graph, tenant))  # 5 versions a turn: input, start, a, b, c


def versions(saver: Any, thread: str, graph: str = "chain3", tenant: str | None = None) -> list[Any]:
    return list(saver.list(cfg(thread, graph, tenant)))


def state(saver: Any, thread: str, tenant: str | None = None) -> Any:
    return chain3.compile(checkpointer=saver, name="chain3").get_state(cfg(thread, "chain3", tenant))


def test_prune_one_thread_or_all_keeping_the_newest(store: tuple[list[str], Any]) -> None:
    args, saver = store
    turns(saver, "one", 3)
    turns(saver, "two", 2)
    turns(saver, "one", 1, graph="other")
    newest = versions(saver, "one")[:2]

    done = prune(args, "--graph", "chain3", "--thread", "one", "--keep-last", "2")
    assert done.returncode == 0, done.stderr
    assert "one: 13 version(s) deleted" in done.stdout
    kept = versions(saver, "one")
    assert [(t.config, t.checkpoint["channel_values"]) for t in kept] == [
        (t.config, t.checkpoint["channel_values"]) for t in newest
    ]
    assert len(versions(saver, "two")) == 10

    done = prune(args, "--graph", "chain3", "--all-threads", "--older-than", "7d")
    assert done.returncode == 0, done.stderr
    assert "pruned 0 version(s) of 2 thread(s) of graph 'chain3'" in done.stdout  # all younger than a week

    done = prune(args, "--graph", "chain3", "--all-threads", "--keep-last", "1", "--older-than", "0s")
    assert done.returncode == 0, done.stderr
    assert "one: 1 version(s) deleted" in done.stdout and "two: 9 version(s) deleted" in done.stdout
    assert "pruned 10 version(s) of 2 thread(s)" in done.stdout
    assert [len(versions(saver, t)) for t in ("one", "two")] == [1, 1]
    assert len(versions(saver, "one", graph="other")) == 5  # another graph's threads are left alone
    # The threads go on from what was kept.
    turns(saver, "one", 1)
    assert versions(saver, "one")[0].checkpoint["channel_values"] == {"n": 3, "log": ["a", "b", "c"] * 4}


def test_prune_a_tenants_threads(store: tuple[list[str], Any]) -> None:
    args, saver = store
    for tenant in (None, "acme", "a_c", "abc"):  # '_' must match itself only, not any character as in LIKE
        turns(saver, "one", 2, tenant=tenant)
    turns(saver, "two", 2, tenant="a_c")
    before = state(saver, "one", "a_c")

    done = prune(args, "--graph", "chain3", "--tenant", "a_c", "--thread", "one", "--keep-last", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "tenant a_c, thread one: 9 version(s) deleted",
        "pruned 9 version(s) of 1 thread(s) of graph 'chain3', of tenant 'a_c'",
    ]
    assert state(saver, "one", "a_c") == before  # the kept version reads back as before
    assert [len(versions(saver, "one", tenant=t)) for t in (None, "acme", "a_c", "abc")] == [10, 10, 1, 10]

    done = prune(args, "--graph", "chain3", "--tenant", "a_c", "--all-threads", "--keep-last", "1")
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.splitlines()[:-1]) == [
        "tenant a_c, thread one: 0 version(s) deleted",
        "tenant a_c, thread two: 9 version(s) deleted",
    ]
    assert len(versions(saver, "two", tenant="a_c")) == 1
    assert [len(versions(saver, "one", tenant=t)) for t in (None, "acme", "abc")] == [10, 10, 10]


def test_all_threads_leaves_tenants_threads_alone(store: tuple[list[str], Any]) -> None:
    args, saver = store
    turns(saver, "one", 2)
    turns(saver, "one", 2, tenant="acme")

    done = prune(args, "--graph", "chain3", "--all-threads", "--keep-last", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "one: 9 version(s) deleted",
        "pruned 9 version(s) of 1 thread(s) of graph 'chain3'",
    ]
    assert len(versions(saver, "one", tenant="acme")) == 10


def test_all_tenants_prunes_every_tenants_threads_and_those_of_no_tenant(store: tuple[list[str], Any]) -> None:
    args, saver = store
    mine = [(None, "one"), (None, "acme/chain3:x"), ("acme", "one"), ("acme", "two"), ("beta", "one")]
    for tenant, thread in mine:
        turns(saver, thread, 2, tenant=tenant)
    for tenant in (None, "acme"):  # the same thread ids in other graphs, one named like a prefix of chain3's keys
        turns(saver, "one", 1, graph="chain3x", tenant=tenant)
        turns(saver, "one", 1, graph="other", tenant=tenant)
    before = [state(saver, thread, tenant) for tenant, thread in mine]

    done = prune(args, "--graph", "chain3", "--all-threads", "--all-tenants", "--keep-last", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert sorted(lines[:-1]) == [
        "no tenant, thread acme/chain3:x: 9 version(s) deleted",
        "no tenant, thread one: 9 version(s) deleted",
        "tenant acme, thread one: 9 version(s) deleted",
        "tenant acme, thread two: 9 version(s) deleted",
        "tenant beta, thread one: 9 version(s) deleted",
    ]
    assert lines[-1] == "pruned 45 version(s) of 5 thread(s) of graph 'chain3', of every tenant and of no tenant"
    assert [len(versions(saver, thread, tenant=tenant)) for tenant, thread in mine] == [1] * 5
    assert [state(saver, thread, tenant) for tenant, thread in mine] == before
    for tenant in (None, "acme"):
        assert len(versions(saver, "one", graph="chain3x", tenant=tenant)) == 5
        assert len(versions(saver, "one", graph="other", tenant=tenant)) == 5
    # A tenant's thread goes on from what was kept.
    turns(saver, "one", 1, tenant="acme")
    assert versions(saver, "one", tenant="acme")[0].checkpoint["channel_values"] == {"n": 3, "log": ["a", "b", "c"] * 3}


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--thread", "t"], "say what to keep"),
        (["--thread", "t", "--older-than", "soon"], "30s, 15m"),
        (["--thread", "t", "--keep-last", "0"], "at least 1"),
        (["--thread", "t", "--keep-last", "1", "--tenant", "a/b"], "--tenant 'a/b': a tenant name has"),
        (["--all-threads", "--keep-last", "1", "--tenant", ""], "--tenant '': a tenant name has"),
        (["--thread", "t", "--keep-last", "1", "--all-tenants"], "--all-tenants goes with --all-threads"),
        (["--all-threads", "--keep-last", "1", "--tenant", "x", "--all-tenants"], "not allowed with argument --tenant"),
    ],
)
def test_prune_refuses_what_it_cannot_do(store: tuple[list[str], Any], args: list[str], says: str) -> None:
    done = prune(store[0], "--graph", "chain3", *args)
    assert done.returncode == 2 and says in done.stderr, done.stderr


def test_prune_needs_an_existing_sqlite_file(tmp_path: Path) -> None:
    done = prune(["--checkpointer", str(tmp_path / "missing.db")], "--graph", "g", "--thread", "t", "--keep-last", "1")
    assert done.returncode == 2 and "no such SQLite file" in done.stderr
    assert not (tmp_path / "missing.db").exists()
