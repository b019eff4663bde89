"""Thread records (engine/checkpoint/_threads.py): one contract, kept by memory, SQLite and PostgreSQL alike.

Each test runs on every saver kind (the ``saver`` fixture); the SQL stores use
the saver's own table (migration 0007 on SQLite, 0008 on PostgreSQL), which
goes with its thread. The metadata filter is containment as PostgreSQL's
``@>``: SQLite's JSON functions and the memory store's Python give the same
answers (checked here on the same cases).
"""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import datetime, timedelta, timezone
from typing import Any, TypedDict

import pytest

from engine.checkpoint import InMemorySaver, SqliteSaver
from engine.checkpoint._threads import KEEP, MemoryThreads, ThreadQuery, ThreadRecord, ThreadStore, contains, threads_of
from engine.checkpoint.postgres import PostgresSaver
from engine.checkpoint.sqlite import _migrate
from engine.graph import START, StateGraph

T0 = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)


class S(TypedDict, total=False):
    n: int


def store_of(saver: Any) -> ThreadStore:
    if isinstance(saver, (SqliteSaver, PostgresSaver)):
        assert threads_of(saver) is saver.threads  # each SQL saver carries its thread store
        return saver.threads
    assert isinstance(saver, InMemorySaver)
    return MemoryThreads()


def rec(key: str, *, at: datetime = T0, tenant: str = "", **kw: Any) -> ThreadRecord:
    graph, _, caller = key.rpartition("/")[2].partition(":")
    return ThreadRecord(key, graph, caller, at, at, tenant=tenant, **kw)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_create_get_and_if_exists(saver: Any) -> None:
    threads = store_of(saver)

    async def go() -> None:
        first = rec("g:t1", metadata={"user": "ann", "n": 1}, ttl_seconds=60, ttl_strategy="delete")
        assert await threads.acreate(first) is None
        got = await threads.aget("g:t1")
        assert got is not None and got.metadata == {"user": "ann", "n": 1} and got.created_at == T0
        assert got.expires_at == T0 + timedelta(seconds=60) and got.status == "idle"
        again = await threads.acreate(rec("g:t1", metadata={"other": True}))
        assert again is not None and again.metadata == {"user": "ann", "n": 1}  # the first one stays
        assert await threads.aget("g:nope") is None

    run(go())


def test_update_merges_top_level_keys_and_moves_the_expiry(saver: Any) -> None:
    threads = store_of(saver)

    async def go() -> None:
        await threads.acreate(rec("g:t", metadata={"a": {"x": 1, "y": 2}, "b": 1}, ttl_seconds=10, ttl_strategy="delete"))
        later = T0 + timedelta(hours=1)
        done = await threads.aupdate("g:t", later, metadata={"a": {"x": 3}, "c": [1]})
        assert done is not None
        assert done.metadata == {"a": {"x": 3}, "b": 1, "c": [1]}  # shallow: "a" replaced whole
        assert done.updated_at == later and done.expires_at == later + timedelta(seconds=10)
        cleared = await threads.aupdate("g:t", later, ttl=None)
        assert cleared is not None and cleared.ttl_seconds is None and cleared.expires_at is None
        kept = await threads.aupdate("g:t", later, ttl=(5, "keep_latest"))
        assert kept is not None and (kept.ttl_seconds, kept.ttl_strategy) == (5, "keep_latest")
        same = await threads.aupdate("g:t", later, ttl=KEEP)
        assert same is not None and same.ttl_seconds == 5
        assert await threads.aget("g:t") == same
        assert await threads.aupdate("g:none", later, metadata={"a": 1}) is None

    run(go())


def test_mark_creates_then_changes_status_and_times(saver: Any) -> None:
    threads = store_of(saver)

    async def go() -> None:
        template = rec("g:t", metadata={"from": "first call"}, ttl_seconds=30, ttl_strategy="delete")
        at = T0 + timedelta(minutes=1)
        await threads.amark(template, at, status="busy")
        got = await threads.aget("g:t")
        assert got is not None and got.status == "busy" and got.updated_at == at and got.metadata == {"from": "first call"}
        later = at + timedelta(minutes=1)
        await threads.amark(template, later, status="interrupted", interrupts=b"\x01pending")
        got = await threads.aget("g:t")
        assert got is not None and (got.status, got.interrupts) == ("interrupted", b"\x01pending")
        assert got.created_at == T0 and got.updated_at == later and got.expires_at == later + timedelta(seconds=30)
        await threads.amark(template, later + timedelta(seconds=1))  # a version written: status kept
        got = await threads.aget("g:t")
        assert got is not None and got.status == "interrupted" and got.interrupts == b"\x01pending"

    run(go())


def test_search_filters_sorts_and_pages_and_count_agrees(saver: Any) -> None:
    threads = store_of(saver)

    async def go() -> None:
        for i in range(12):
            meta = {"user": "ann" if i % 2 else "bob", "n": i, "tags": ["x", i % 3], "deep": {"k": i % 4, "b": i % 2 == 0}}
            await threads.acreate(rec(f"g:t{i:02}", at=T0 + timedelta(seconds=i), metadata=meta, status="busy" if i == 5 else "idle"))
        await threads.acreate(rec("other:t00", metadata={"user": "ann"}))
        await threads.acreate(rec("ten/g:t00", tenant="ten", metadata={"user": "ann"}))
        q = ThreadQuery(graph="g", metadata={"user": "ann"}, limit=4)
        first = await threads.asearch(q)
        assert [r.caller_thread for r in first] == ["t11", "t09", "t07", "t05"]  # newest created first
        after = (first[-1].created_at, first[-1].thread_id)
        second = await threads.asearch(ThreadQuery(graph="g", metadata={"user": "ann"}, limit=4, after=after))
        assert [r.caller_thread for r in second] == ["t03", "t01"]
        assert await threads.acount(ThreadQuery(graph="g", metadata={"user": "ann"})) == 6
        assert await threads.acount(ThreadQuery(metadata={"user": "ann"})) == 7  # every graph, this tenant
        assert await threads.acount(ThreadQuery(tenant="ten")) == 1
        up = await threads.asearch(ThreadQuery(graph="g", sort_by="updated_at", descending=False, limit=3))
        assert [r.caller_thread for r in up] == ["t00", "t01", "t02"]
        for filt, want in [
            ({"tags": [0]}, {0, 3, 6, 9}), ({"tags": ["x", 2]}, {2, 5, 8, 11}), ({"deep": {"k": 1}}, {1, 5, 9}),
            ({"deep": {"b": True}, "n": 4}, {4}), ({"n": 4.0}, {4}), ({"n": "4"}, set()), ({"deep": {"b": 1}}, set()),
            ({"missing": None}, set()),
        ]:  # fmt: skip
            found = await threads.asearch(ThreadQuery(graph="g", metadata=filt))
            assert {int(r.caller_thread[1:]) for r in found} == want, filt
        assert [r.caller_thread for r in await threads.asearch(ThreadQuery(statuses=("busy",)))] == ["t05"]
        assert {r.caller_thread for r in await threads.asearch(ThreadQuery(graph="g", caller_ids=("t01", "t02", "zz")))} == {"t01", "t02"}
        window = ThreadQuery(graph="g", created_after=T0 + timedelta(seconds=2), created_before=T0 + timedelta(seconds=5))
        assert {r.caller_thread for r in await threads.asearch(window)} == {"t03", "t04"}
        assert await threads.acount(window) == 2

    run(go())


def test_expired_skips_busy_and_swept_stops_the_clock(saver: Any) -> None:
    threads = store_of(saver)

    async def go() -> None:
        await threads.acreate(rec("g:old", ttl_seconds=10, ttl_strategy="delete"))
        await threads.acreate(rec("g:busy", ttl_seconds=10, ttl_strategy="delete", status="busy"))
        await threads.acreate(rec("g:keep", at=T0 + timedelta(seconds=1), ttl_seconds=10, ttl_strategy="keep_latest"))
        await threads.acreate(rec("g:never"))
        now = T0 + timedelta(seconds=30)
        found = await threads.aexpired(now, limit=10)
        assert [r.thread_id for r in found] == ["g:old", "g:keep"]
        assert [r.thread_id for r in await threads.aexpired(now, limit=1)] == ["g:old"]
        assert await threads.aexpired(T0 + timedelta(seconds=5), limit=10) == []
        keep = found[1]
        assert not await threads.aswept("g:keep", keep.updated_at + timedelta(seconds=1))  # updated since: left
        assert await threads.aswept("g:keep", keep.updated_at)
        assert [r.thread_id for r in await threads.aexpired(now, limit=10)] == ["g:old"]
        await threads.amark(rec("g:keep"), now)  # its next update: it expires again, from then
        got = await threads.aget("g:keep")
        assert got is not None and got.expires_at == now + timedelta(seconds=10)
        await threads.adelete("g:old")
        assert await threads.aget("g:old") is None

    run(go())


def test_the_thread_delete_takes_its_record(saver: Any) -> None:
    if isinstance(saver, InMemorySaver):
        pytest.skip("the memory store is the host's to forget (MemoryThreads.adelete)")
    threads = store_of(saver)
    builder = StateGraph(S)
    builder.add_node("a", lambda s: {"n": s.get("n", 0) + 1})
    builder.add_edge(START, "a")
    graph = builder.compile(checkpointer=saver)

    async def go() -> None:
        await graph.ainvoke({"n": 1}, {"configurable": {"thread_id": "g:t"}})
        await threads.acreate(rec("g:t"))
        await saver.adelete_thread("g:t")
        assert await threads.aget("g:t") is None

    run(go())


@pytest.mark.parametrize("part", [{"a": 1}, {"a": [1]}, {"a": {"b": [True, None]}}, {"a": "1"}, {"z": None}, {"a": [[1]]}])
def test_sqlite_containment_is_postgres_containment(part: dict[str, Any]) -> None:
    """The same answers as ``contains`` (itself PostgreSQL's rule: see its doc) on a few shapes."""
    from engine.checkpoint.sqlite._threads import contains_sql

    wholes: list[Any] = [{"a": 1}, {"a": 1.0}, {"a": True}, {"a": "1"}, {"a": [1, 2]}, {"a": {"b": [None, True, 3]}}, {"z": None}, {"a": [[1, 2]]}]
    conn = sqlite3.connect(":memory:")
    for whole in wholes:
        import json

        sql, params = contains_sql(part)
        found = conn.execute(f"SELECT {sql} FROM (SELECT ? AS metadata)", [*params, json.dumps(whole)]).fetchone()[0]
        assert bool(found) == contains(whole, part), (whole, part)


def test_migration_backfills_threads_of_the_server_form(tmp_path: Any) -> None:
    """A file at version 6 with threads gets their records at 0007 (the server's keys only)."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for number, text in _migrate.migrations()[:6]:
        conn.executescript(text)
    conn.execute("PRAGMA user_version = 6")
    rows = [("g:t1", "1", "2026-01-01T00:00:00.000000+00:00"), ("g:t1", "2", "2026-01-02T00:00:00.000000+00:00"),
            ("ten/g:a/b", "1", "2026-01-03T00:00:00.000000+00:00"), ("plain", "1", "2026-01-04T00:00:00.000000+00:00")]  # fmt: skip
    for tid, cid, ts in rows:
        conn.execute("INSERT INTO checkpoints (thread_id, checkpoint_id, ts, type, checkpoint) VALUES (?, ?, ?, 'x', X'00')", (tid, cid, ts))
    conn.commit()
    conn.close()
    saver = SqliteSaver(path)
    try:
        got = {r.thread_id: r for r in run(saver.threads.asearch(ThreadQuery(limit=10)))}
        ten = run(saver.threads.asearch(ThreadQuery(tenant="ten")))
    finally:
        run(saver.aclose())
    assert set(got) == {"g:t1"} and got["g:t1"].caller_thread == "t1" and got["g:t1"].graph == "g"
    assert got["g:t1"].created_at.day == 1 and got["g:t1"].updated_at.day == 2 and got["g:t1"].status == "idle"
    assert [(r.graph, r.caller_thread) for r in ten] == [("g", "a/b")]


def test_postgres_migration_backfills_threads_of_the_server_form() -> None:
    """A schema at version 7 with threads gets their records at 0008 (the server's keys only)."""
    import psycopg
    from psycopg import sql

    from engine.checkpoint.postgres import _migrate as pg_migrate
    from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg

    dsn, schema = require_pg(), new_schema_name()
    try:
        with psycopg.connect(dsn, autocommit=True) as admin, admin.transaction():
            admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
            admin.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))
            admin.execute(pg_migrate._CREATE_TABLE)
            for number, text in pg_migrate.migrations()[:7]:
                admin.execute(text)
                admin.execute(sql.SQL("INSERT INTO {} (version) VALUES (%s)").format(sql.Identifier(pg_migrate.MIGRATIONS_TABLE)), (number,))
            for tid, cid, ts in [("g:t1", "1", "2026-01-01T00:00:00.000000+00:00"), ("g:t1", "2", "2026-01-02T00:00:00.000000+00:00"),
                                 ("ten/g:a/b", "1", "2026-01-03T00:00:00.000000+00:00"), ("plain", "1", "2026-01-04T00:00:00+00:00")]:  # fmt: skip
                admin.execute(
                    "INSERT INTO checkpoints (thread_id, checkpoint_id, ts, type, checkpoint, versions) VALUES (%s, %s, %s, 'x', '\\x00', '{}')",
                    (tid, cid, ts),
                )
        saver = PostgresSaver.from_dsn(dsn, schema=schema)
        try:
            got = {r.thread_id: r for r in run(saver.threads.asearch(ThreadQuery(limit=10)))}
            ten = run(saver.threads.asearch(ThreadQuery(tenant="ten")))
        finally:
            saver.close()
    finally:
        drop_schema(schema)
    assert set(got) == {"g:t1"} and (got["g:t1"].graph, got["g:t1"].caller_thread, got["g:t1"].status) == ("g", "t1", "idle")
    assert got["g:t1"].created_at.day == 1 and got["g:t1"].updated_at.day == 2
    assert [(r.graph, r.caller_thread) for r in ten] == [("g", "a/b")]
