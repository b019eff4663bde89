"""A run's last versions stored with its end, in one statement (PostgreSQL: ``afinish(..., versions=)``).

The engine hands a run's last write to a host that takes it (``Landing(takes_last=True)``,
engine/pregel/_landing.py), prepared by the saver (``prepare_many``); the PostgreSQL run store
puts the run's end (its record's change, its last events, its thread's mark, its lease let go)
in the versions' statement (engine/checkpoint/postgres/_prepared.py). These tests drive the
stores directly; the server's side is tests/server/test_run_end_write.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from engine._internal._ids import checkpoint_id
from engine.checkpoint.base import LEASE_KEY, empty_checkpoint
from engine.checkpoint.postgres import PostgresSaver
from engine.errors import LeaseLostError
from engine.host import Landing, LastWrite, Lease, RunRecord, ThreadMark, ThreadRecord
from tests.checkpoint._pg import DSN, clean_schema
from tests.checkpoint.test_runs import T0, record

THREAD = "g:t"


@pytest.fixture
def saver(pg_schema: str, pg_admin: psycopg.Connection[Any]) -> Iterator[PostgresSaver]:
    clean_schema(pg_admin, pg_schema)
    saver = PostgresSaver.from_dsn(DSN, schema=pg_schema, max_size=4)
    saver.setup()
    yield saver
    saver.close()


def _chain(lease: Lease | None, n: int, parent: str | None = None, start: int = 0) -> list[tuple[Any, ...]]:
    """``n`` versions of THREAD under ``lease`` (None: none), each the parent of the next (``parent``: the
    first's), the list ``items`` one item longer in each (a delta of the one before, in the saver's rows)."""
    puts = []
    for i in range(start, start + n):
        ck = empty_checkpoint()
        ck["id"] = checkpoint_id()
        ck["channel_values"] = {"n": i, "items": [f"item {j} " + "x" * 300 for j in range(i + 1)]}
        ck["channel_versions"] = {"n": i + 1, "items": i + 1}
        conf: dict[str, Any] = {"thread_id": THREAD, "checkpoint_ns": ""}
        if lease is not None:
            conf[LEASE_KEY] = lease
        if parent is not None:
            conf["checkpoint_id"] = parent
        puts.append(({"configurable": conf}, ck, {"source": "loop", "step": i, "parents": {}}, {"n": i + 1, "items": i + 1}))
        parent = ck["id"]
    return puts


def _last_write(saver: PostgresSaver, puts: list[tuple[Any, ...]]) -> tuple[LastWrite, Landing]:
    landing = Landing(takes_last=True)
    prepared = saver.prepare_many(puts)
    assert prepared is not None
    last = LastWrite(prepared, puts[-1][1]["id"], landing, {})
    landing.last = last
    return last, landing


class _Statements:
    """Counts the work the saver's connections run (one statement each here)."""

    def __init__(self, saver: PostgresSaver) -> None:
        self.n = 0
        run = saver._conns.run

        async def counted(work: Any, **kw: Any) -> Any:
            self.n += 1
            return await run(work, **kw)

        saver._conns.run = counted  # type: ignore[method-assign]


def _stored_ids(saver: PostgresSaver) -> list[str]:
    return [t.checkpoint["id"] for t in saver.list({"configurable": {"thread_id": THREAD, "checkpoint_ns": ""}})]


def _thread() -> ThreadRecord:
    return ThreadRecord(THREAD, "g", "t", T0, T0)


async def _started(saver: PostgresSaver, *, marked: bool = True) -> tuple[Lease, RunRecord]:
    """THREAD's lease taken by "r1", and the record of its run "run-1" (its thread marked busy)."""
    lease = await saver.leases.aacquire_lease(THREAD, "r1", ttl=60)
    assert lease is not None
    mark = ThreadMark(_thread(), T0, status="busy") if marked else None
    assert await saver.runs.astart(record("run-1"), mark=mark) is None
    rec = await saver.runs.aget("run-1")
    assert rec is not None
    return lease, rec


def test_a_runs_last_versions_and_its_end_are_one_statement(saver: PostgresSaver) -> None:
    runs, leases = saver.runs, saver.leases

    async def go() -> None:
        lease, rec = await _started(saver)
        puts = _chain(lease, 3)
        last, landing = _last_write(saver, puts)
        counted = _Statements(saver)
        ok = await runs.afinish(
            "run-1", 1, rec, [(1, b"e1"), (2, b"end")], status="SUCCESS", mark=ThreadMark(_thread(), T0, status="idle"),
            release=lease, versions=last,
        )  # fmt: skip
        assert ok and counted.n == 1
        assert landing.newest == puts[-1][1]["id"] and landing.last is None  # landed, and no longer waiting
        assert _stored_ids(saver) == [p[1]["id"] for p in reversed(puts)]
        assert saver.get({"configurable": {"thread_id": THREAD}})["channel_values"]["n"] == 2  # type: ignore[index]
        got = await runs.aget("run-1")
        assert got is not None and got.status == "SUCCESS"
        assert await runs.aevents("run-1", 0) == [(1, b"e1"), (2, b"end")]
        thread = await runs.threads.aget(THREAD)  # type: ignore[union-attr]
        assert thread is not None and thread.status == "idle"
        assert await leases.alease_holder(THREAD) is None  # let go of: the next holder takes it at once
        taken = await leases.aacquire_lease(THREAD, "r2", ttl=60)
        assert taken is not None and taken.epoch == lease.epoch + 1

    asyncio.run(go())


def test_an_end_whose_lease_was_taken_over_stores_neither_its_versions_nor_itself(saver: PostgresSaver) -> None:
    runs, leases = saver.runs, saver.leases

    async def go() -> None:
        lease, rec = await _started(saver)
        last, landing = _last_write(saver, _chain(lease, 3))
        await leases.arelease_lease(lease)  # it lapsed, and another replica took the thread
        other = await leases.aacquire_lease(THREAD, "r2", ttl=60)
        assert other is not None
        with pytest.raises(LeaseLostError):
            await runs.afinish(
                "run-1", 1, rec, [(1, b"end")], status="SUCCESS", mark=ThreadMark(_thread(), T0, status="idle"),
                release=lease, versions=last,
            )  # fmt: skip
        assert _stored_ids(saver) == [] and landing.newest == ""
        got = await runs.aget("run-1")
        assert got is not None and got.status == "RUNNING"
        assert await runs.aevents("run-1", 0) == []
        thread = await runs.threads.aget(THREAD)  # type: ignore[union-attr]
        assert thread is not None and thread.status == "busy"
        holder = await leases.alease_holder(THREAD)
        assert holder is not None and holder.owner == "r2"

    asyncio.run(go())


def test_the_end_sent_again_after_an_unknown_outcome_stores_it_once(saver: PostgresSaver) -> None:
    # The saver's runner sends a statement again on a new connection when it lost the first: the
    # first may have committed, and let go of the lease. The retry passes the fence (the head is the
    # batch's last version: this run stored it) and writes nothing twice.
    runs, leases = saver.runs, saver.leases

    async def go() -> None:
        lease, rec = await _started(saver, marked=False)
        puts = _chain(lease, 2)
        last, _ = _last_write(saver, puts)
        assert await runs.afinish("run-1", 1, rec, [(1, b"end")], status="SUCCESS", release=lease, versions=last)
        again = LastWrite(last.prepared, last.last_id, Landing(takes_last=True), {})
        assert await runs.afinish("run-1", 1, rec, [(1, b"end")], status="SUCCESS", release=lease, versions=again)
        assert _stored_ids(saver) == [p[1]["id"] for p in reversed(puts)]
        assert await runs.aevents("run-1", 0) == [(1, b"end")]
        assert await leases.alease_holder(THREAD) is None
        # Once another replica holds the thread, the same statement is refused.
        other = await leases.aacquire_lease(THREAD, "r2", ttl=60)
        assert other is not None
        third = LastWrite(last.prepared, last.last_id, Landing(takes_last=True), {})
        with pytest.raises(LeaseLostError):
            await runs.afinish("run-1", 1, rec, [(1, b"end")], status="SUCCESS", release=lease, versions=third)

    asyncio.run(go())


def test_an_end_whose_versions_build_on_a_base_gone_stores_them_whole(saver: PostgresSaver, pg_schema: str) -> None:
    runs = saver.runs

    async def go() -> None:
        lease, rec = await _started(saver, marked=False)
        first = _chain(lease, 2)
        await saver.aput_many(first)  # the saver's cache now plans deltas on these rows
        with psycopg.connect(DSN, autocommit=True) as conn:  # pruned elsewhere, behind the cache's back
            conn.execute(f'DELETE FROM "{pg_schema}".checkpoints WHERE thread_id = %s', (THREAD,))
            conn.execute(f'DELETE FROM "{pg_schema}".blobs WHERE thread_id = %s', (THREAD,))
        puts = _chain(lease, 2, parent=first[-1][1]["id"], start=2)  # deltas of the gone rows, as planned
        last, _ = _last_write(saver, puts)
        assert await runs.afinish("run-1", 1, rec, [(1, b"end")], status="SUCCESS", release=lease, versions=last)
        assert _stored_ids(saver) == [p[1]["id"] for p in reversed(puts)]
        got = saver.get({"configurable": {"thread_id": THREAD}})
        assert got is not None and got["channel_values"] == puts[-1][1]["channel_values"]
        done = await runs.aget("run-1")
        assert done is not None and done.status == "SUCCESS"

    asyncio.run(go())


def test_an_end_without_a_lease_to_fence_stores_its_versions_then_itself(saver: PostgresSaver) -> None:
    # A chain the statement cannot carry the end in (no lease: nothing to fence, nothing to let go of)
    # is stored on its own first, as the run would have stored it.
    runs = saver.runs

    async def go() -> None:
        assert await runs.astart(record("run-1")) is None
        rec = await runs.aget("run-1")
        puts = _chain(Lease(THREAD, "r1", 1), 2)
        for conf, *_ in puts:
            del conf["configurable"][LEASE_KEY]
        last, landing = _last_write(saver, puts)
        counted = _Statements(saver)
        assert await runs.afinish("run-1", 1, rec, [(1, b"end")], status="SUCCESS", versions=last)
        assert counted.n == 2 and landing.newest == puts[-1][1]["id"]
        assert _stored_ids(saver) == [p[1]["id"] for p in reversed(puts)]

    asyncio.run(go())
