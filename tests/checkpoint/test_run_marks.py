"""A thread's mark written with its run's record (``RunStore.astart/aupdate/afinish(mark=)``), and its lease let go of with its end (``release=``).

The server marks a thread busy when a run takes it and idle (or interrupted, or
error) when the run ends; on the SQL savers the mark goes in the same
transaction as the run's record (one write at each end of a run, not two).
Each test runs on every saver kind (the ``saver`` fixture): the memory run
store keeps no thread records, so it refuses a mark rather than dropping it.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from engine.checkpoint import InMemorySaver
from engine.host import Lease, ThreadMark, ThreadRecord, runs_of, threads_of
from tests.checkpoint.test_runs import T0, record


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def thread(key: str = "g:t") -> ThreadRecord:
    return ThreadRecord(key, "g", "t", T0, T0)


def test_start_and_end_carry_the_threads_mark(saver: Any) -> None:
    runs, threads = runs_of(saver), threads_of(saver)
    if isinstance(saver, InMemorySaver):
        pytest.skip("the memory run store keeps no thread records (test_a_store_without_thread_records_refuses_a_mark)")
    assert runs.threads is threads  # the saver's own thread store, the one threads_of gives a host

    async def go() -> None:
        t1, t2, t3 = T0 + timedelta(seconds=1), T0 + timedelta(seconds=2), T0 + timedelta(seconds=3)
        assert await runs.astart(record("run-1"), mark=ThreadMark(thread(), t1, status="busy", interrupts=b"")) is None
        got = await threads.aget("g:t")
        assert got is not None and (got.status, got.created_at, got.updated_at) == ("busy", T0, t1)  # inserted as given, then marked
        assert await runs.aupdate("run-1", 1, status="INTERRUPTED", mark=ThreadMark(thread(), t2, status="interrupted", interrupts=b"\x01"))
        got = await threads.aget("g:t")
        assert got is not None and (got.status, got.interrupts, got.created_at, got.updated_at) == ("interrupted", b"\x01", T0, t2)
        rec = await runs.aget("run-1")
        assert rec is not None and rec.status == "INTERRUPTED"
        # The end with the run's last events; a record taken over meanwhile (attempts moved on) is not
        # changed, but its events and its thread's mark are written all the same.
        ok = await runs.afinish("run-1", 7, rec, [(1, b"e1")], status="SUCCESS", mark=ThreadMark(thread(), t3, status="idle", interrupts=b""))
        assert ok is False
        got = await threads.aget("g:t")
        assert got is not None and (got.status, got.interrupts, got.updated_at) == ("idle", b"", t3)
        assert await runs.aevents("run-1", 0) == [(1, b"e1")]
        rec = await runs.aget("run-1")
        assert rec is not None and rec.status == "INTERRUPTED"
        # A mark alone.
        assert await runs.aupdate("run-1", 1, mark=ThreadMark(thread(), t1 + timedelta(seconds=9), status="busy"))
        got = await threads.aget("g:t")
        assert got is not None and got.status == "busy"

    run(go())


def test_the_record_and_its_mark_are_one_transaction(saver: Any) -> None:
    """A mark that cannot be written takes the run's record with it: neither is stored."""
    runs, threads = runs_of(saver), threads_of(saver)
    if isinstance(saver, InMemorySaver):
        pytest.skip("the memory run store keeps no thread records")
    broken = ThreadRecord("g:t2", None, "t2", T0, T0)  # type: ignore[arg-type]  # graph is NOT NULL

    async def go() -> None:
        with pytest.raises(Exception):  # noqa: B017 - the driver's own error (IntegrityError / NotNullViolation)
            await runs.astart(record("run-2", "g:t2"), mark=ThreadMark(broken, T0, status="busy"))
        assert await runs.aget("run-2") is None
        assert await threads.aget("g:t2") is None
        # The store goes on working: the same run with a good mark goes in whole.
        assert await runs.astart(record("run-2", "g:t2"), mark=ThreadMark(thread("g:t2"), T0, status="busy")) is None
        got = await threads.aget("g:t2")
        assert await runs.aget("run-2") is not None and got is not None and got.status == "busy"

    run(go())


def test_a_store_without_thread_records_refuses_a_mark() -> None:
    runs = runs_of(InMemorySaver())
    assert runs.threads is None

    async def go() -> None:
        with pytest.raises(ValueError, match="writes no thread record"):
            await runs.astart(record("run-3"), mark=ThreadMark(thread(), T0, status="busy"))
        assert await runs.aget("run-3") is None  # refused before anything was written
        assert await runs.astart(record("run-3")) is None
        with pytest.raises(ValueError, match="writes no thread record"):
            await runs.aupdate("run-3", 1, status="SUCCESS", mark=ThreadMark(thread(), T0, status="idle"))
        rec = await runs.aget("run-3")
        assert rec is not None and rec.status == "RUNNING"

    run(go())


def test_a_runs_end_lets_go_of_its_lease_in_the_same_write(saver: Any) -> None:
    """PostgreSQL (the one saver with leases): ``release=`` frees the thread for the next holder with
    the record's end; a store without leases refuses one."""
    runs = runs_of(saver)
    if runs.leases is None:

        async def refused() -> None:
            lease = Lease("g:t", "r1", 1)
            assert await runs.astart(record("run-4")) is None
            with pytest.raises(ValueError, match="keeps no lease"):
                await runs.aupdate("run-4", 1, status="SUCCESS", release=lease)
            rec = await runs.aget("run-4")
            assert rec is not None and rec.status == "RUNNING"

        run(refused())
        return
    leases = saver.leases
    assert runs.leases is leases

    async def go() -> None:
        lease = await leases.aacquire_lease("g:t", "r1", ttl=60)
        assert lease is not None
        assert await leases.aacquire_lease("g:t", "r2", ttl=60) is None  # held
        assert await runs.astart(record("run-4"), mark=ThreadMark(thread(), T0, status="busy")) is None
        rec = await runs.aget("run-4")
        assert rec is not None
        ok = await runs.afinish("run-4", 1, rec, [(1, b"end")], status="SUCCESS", mark=ThreadMark(thread(), T0, status="idle"), release=lease)
        assert ok
        assert await leases.alease_holder("g:t") is None
        taken = await leases.aacquire_lease("g:t", "r2", ttl=60)
        assert taken is not None and taken.epoch == lease.epoch + 1
        # A release of a lease taken over since changes nothing: the new holder keeps it.
        assert await runs.aupdate("run-4", 1, status="SUCCESS", release=lease)
        holder = await leases.alease_holder("g:t")
        assert holder is not None and holder.owner == "r2"
        await leases.arelease_lease(taken)

    run(go())


def test_a_runs_start_takes_its_lease_with_its_record(saver: Any) -> None:
    """PostgreSQL: ``astart_taking`` takes the thread's lease and, only if taken, inserts the record
    under its epoch with the thread's mark, in one statement; the other stores refuse it."""
    runs = runs_of(saver)
    busy = ThreadMark(thread(), T0, status="busy")
    if runs.leases is None:
        with pytest.raises(ValueError, match="lease"):
            run(runs.astart_taking(record("run-5"), "r1", 60, mark=busy))
        assert run(runs.aget("run-5")) is None
        return
    leases = saver.leases

    async def go() -> None:
        other = await leases.aacquire_lease("g:t", "r2", ttl=60)
        assert other is not None
        assert await runs.astart_taking(record("run-5"), "r1", 60, mark=busy) == (None, None)  # held: nothing written
        assert await runs.aget("run-5") is None and await threads_of(saver).aget("g:t") is None
        await leases.arelease_lease(other)
        lease, first = await runs.astart_taking(record("run-5", request_id="req"), "r1", 60, mark=busy)
        assert first is None and lease is not None and lease.owner == "r1" and lease.epoch == other.epoch + 1
        rec = await runs.aget("run-5")
        assert rec is not None and rec.epoch == lease.epoch  # the record's epoch is the lease's, taken in the same write
        got = await threads_of(saver).aget("g:t")
        assert got is not None and got.status == "busy"
        holder = await leases.alease_holder("g:t")
        assert holder is not None and holder.owner == "r1"
        # A retry of the same request (the same owner takes the lease again) finds the first record.
        again, found = await runs.astart_taking(record("run-6", request_id="req"), "r1", 60, mark=busy)
        assert again is not None and found is not None and found.run_id == "run-5"
        assert await runs.aget("run-6") is None

    run(go())
