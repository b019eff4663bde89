"""Expired threads swept (issue 33 item 2): gone from every read and from the database, never under a run,
by one replica at a time.

The servers run in the test's event loop (:func:`tests.hardening.conftest.in_process`); two of them
on one PostgreSQL schema are two replicas (each its own saver, connections and lease owner). A sweep
is driven by the test at an instant past the threads' expiry (``ThreadSweeper.sweep(at=...)``), so no
test waits for a clock; the servers' own periodic sweeps are an hour apart. Gated nodes hold runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from psycopg import sql

from engine.checkpoint import SqliteSaver
from server._thread_sweep import SWEEPER_KEY
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg
from tests.hardening.conftest import in_process

DEADLINE = 60.0
LATER = timedelta(hours=2)  # past every TTL these tests set
TABLES = ("checkpoints", "blobs", "writes", "runs", "run_events", "threads")


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Any]]:
    (tmp_path / "gates").mkdir()
    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(tmp_path / "gates"))
    if request.param == "sqlite":
        yield "sqlite", tmp_path / "gw.db"
        return
    require_pg()
    schema = new_schema_name()
    try:
        yield "postgres", schema
    finally:
        drop_schema(schema)


def new_saver(backend: tuple[str, Any]) -> Any:
    kind, where = backend
    if kind == "sqlite":
        return SqliteSaver(str(where))
    from engine.checkpoint.postgres import PostgresSaver

    return PostgresSaver.from_dsn(DSN, schema=where)


def rows_of(backend: tuple[str, Any], key: str) -> dict[str, int]:
    """How many rows each table holds for the thread stored under ``key``, read from the database itself."""
    kind, where = backend
    if kind == "sqlite":
        with contextlib.closing(sqlite3.connect(str(where))) as conn:
            return {t: conn.execute(f"SELECT count(*) FROM {t} WHERE thread_id = ?", (key,)).fetchone()[0] for t in TABLES}
    with psycopg.connect(DSN) as conn:
        out = {}
        for t in TABLES:
            row = conn.execute(sql.SQL("SELECT count(*) FROM {} WHERE thread_id = %s").format(sql.Identifier(where, t)), (key,)).fetchone()
            out[t] = row[0] if row else 0
        return out


@contextlib.asynccontextmanager
async def serving(backend: tuple[str, Any], **config: Any) -> AsyncIterator[tuple[Any, Any]]:
    async with in_process(new_saver(backend), thread_sweep_seconds=3600.0, **config) as srv:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
            yield srv, pb_grpc.GraphServiceStub(channel)


async def run_to_end(stub: Any, graph: str, thread: str, inp: Any) -> list[pb.RunEvent]:
    return [e async for e in stub.Invoke(pb.InvokeRequest(graph=graph, thread_id=thread, input_json=json.dumps(inp)), timeout=DEADLINE)]


async def code_of(call: Any) -> grpc.StatusCode:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    return info.value.code()


def later() -> datetime:
    return datetime.now(timezone.utc) + LATER


def test_a_swept_thread_is_gone_from_every_read_and_the_database(backend: tuple[str, Any]) -> None:
    async def body() -> None:
        async with serving(backend) as (srv, stub):
            await stub.CreateThread(pb.CreateThreadRequest(graph="chain3", thread_id="old", ttl=pb.ThreadTtl(seconds=60)), timeout=DEADLINE)
            await stub.CreateThread(pb.CreateThreadRequest(graph="chain3", thread_id="kept"), timeout=DEADLINE)
            for n in (1, 2):
                await run_to_end(stub, "chain3", "old", {"n": n})
            await run_to_end(stub, "chain3", "kept", {"n": 1})
            assert all(rows_of(backend, "chain3:old")[t] for t in ("checkpoints", "blobs", "runs", "threads"))
            assert await srv.service.thread_sweeper.sweep(at=datetime.now(timezone.utc)) == 0  # not expired yet
            assert await srv.service.thread_sweeper.sweep(at=later()) == 1
            for call in (
                stub.GetThread(pb.GetThreadRequest(graph="chain3", thread_id="old"), timeout=DEADLINE),
                stub.GetState(pb.GetStateRequest(graph="chain3", thread_id="old"), timeout=DEADLINE),
            ):
                assert await code_of(call) == grpc.StatusCode.NOT_FOUND
            assert (await stub.ListHistory(pb.ListHistoryRequest(graph="chain3", thread_id="old"), timeout=DEADLINE)).snapshots == []
            assert (await stub.ListRuns(pb.ListRunsRequest(graph="chain3", thread_id="old"), timeout=DEADLINE)).runs == []
            found = await stub.SearchThreads(pb.SearchThreadsRequest(filter=pb.ThreadFilter(graph="chain3")), timeout=DEADLINE)
            assert [t.thread_id for t in found.threads] == ["kept"]
            assert (await stub.CountThreads(pb.CountThreadsRequest(), timeout=DEADLINE)).count == 1
            assert rows_of(backend, "chain3:old") == dict.fromkeys(TABLES, 0)
            assert rows_of(backend, "chain3:kept")["checkpoints"] > 0

    asyncio.run(body())


def test_keep_latest_from_the_graphs_default_prunes_to_the_newest(backend: tuple[str, Any]) -> None:
    async def body() -> None:
        async with serving(backend, thread_ttl={"chain3": {"ttl": "1h", "strategy": "keep_latest"}}) as (srv, stub):
            await run_to_end(stub, "chain3", "t", {"n": 1})  # the first run makes the record, with the graph's TTL
            got = await stub.GetThread(pb.GetThreadRequest(graph="chain3", thread_id="t"), timeout=DEADLINE)
            assert (got.ttl.seconds, got.ttl.strategy) == (3600, pb.TTL_STRATEGY_KEEP_LATEST) and got.HasField("expires_at")
            newest = (await stub.GetState(pb.GetStateRequest(graph="chain3", thread_id="t"), timeout=DEADLINE)).checkpoint.checkpoint_id
            assert await srv.service.thread_sweeper.sweep(at=later()) == 1
            left = await stub.ListHistory(pb.ListHistoryRequest(graph="chain3", thread_id="t"), timeout=DEADLINE)
            assert [s.checkpoint.checkpoint_id for s in left.snapshots] == [newest]
            after = await stub.GetThread(pb.GetThreadRequest(graph="chain3", thread_id="t"), timeout=DEADLINE)
            assert not after.HasField("expires_at")  # until its next update
            assert await srv.service.thread_sweeper.sweep(at=later()) == 0
            await run_to_end(stub, "chain3", "t", {"n": 5})
            assert (await stub.GetThread(pb.GetThreadRequest(graph="chain3", thread_id="t"), timeout=DEADLINE)).HasField("expires_at")

    asyncio.run(body())


def test_a_thread_busy_at_its_expiry_is_swept_after_its_run(backend: tuple[str, Any], tmp_path: Path) -> None:
    async def body() -> None:
        async with serving(backend) as (srv, stub):
            await stub.CreateThread(pb.CreateThreadRequest(graph="gated", thread_id="t", ttl=pb.ThreadTtl(seconds=60)), timeout=DEADLINE)
            stream = stub.Invoke(pb.InvokeRequest(graph="gated", thread_id="t", input_json=json.dumps({"gate": "hold", "label": "x"})), timeout=DEADLINE)
            async for e in stream:
                if e.HasField("custom"):
                    break  # the run holds the thread
            assert await srv.service.thread_sweeper.sweep(at=later()) == 0  # busy: left
            (tmp_path / "gates" / "hold").touch()
            assert [e async for e in stream][-1].run_finished.reason == pb.FINISH_REASON_END  # it ran to its end
            assert rows_of(backend, "gated:t")["checkpoints"] > 0
            assert await srv.service.thread_sweeper.sweep(at=later()) == 1
            assert rows_of(backend, "gated:t") == dict.fromkeys(TABLES, 0)

    asyncio.run(body())


def test_two_replicas_one_sweeper_and_never_under_anothers_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "gates").mkdir()
    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(tmp_path / "gates"))
    require_pg()
    backend = ("postgres", new_schema_name())

    async def body() -> None:
        async with serving(backend) as (a, stub_a), serving(backend) as (b, stub_b):
            for t in ("busy", "idle"):
                await stub_a.CreateThread(pb.CreateThreadRequest(graph="gated", thread_id=t, ttl=pb.ThreadTtl(seconds=60)), timeout=DEADLINE)
            await run_to_end(stub_b, "gated", "idle", {"label": "done"})
            stream = stub_a.Invoke(pb.InvokeRequest(graph="gated", thread_id="busy", input_json=json.dumps({"gate": "hold"})), timeout=DEADLINE)
            async for e in stream:
                if e.HasField("custom"):
                    break  # replica A's run holds "busy"
            # Replica A holds the sweeper's lease: B does not sweep.
            sweeping_a = a.service.thread_sweeper
            lease = await sweeping_a.leases.aacquire_lease(SWEEPER_KEY, sweeping_a.owner, ttl=60)
            assert lease is not None
            assert await b.service.thread_sweeper.sweep(at=later()) is None
            assert rows_of(backend, "gated:idle")["threads"] == 1
            await sweeping_a.leases.arelease_lease(lease)
            # B sweeps now; "busy" is held by A's run (its lease, on another replica): left.
            assert await b.service.thread_sweeper.sweep(at=later()) == 1
            assert rows_of(backend, "gated:idle") == dict.fromkeys(TABLES, 0)
            assert rows_of(backend, "gated:busy")["threads"] == 1
            (tmp_path / "gates" / "hold").touch()
            assert [e async for e in stream][-1].run_finished.reason == pb.FINISH_REASON_END
            assert await b.service.thread_sweeper.sweep(at=later()) == 1  # after its run
            assert rows_of(backend, "gated:busy") == dict.fromkeys(TABLES, 0)
            get = pb.GetThreadRequest(graph="gated", thread_id="busy")
            assert await code_of(stub_a.GetThread(get, timeout=DEADLINE)) == grpc.StatusCode.NOT_FOUND

    try:
        asyncio.run(body())
    finally:
        drop_schema(backend[1])
