"""PostgreSQL: a run's start that takes a new thread's lease finds, in the same statement
(``PostgresRuns.astart_taking``), whether the thread has a version; when it has none, the run's
first read of the newest version is None without a statement of its own.

Only a lease row the start inserted (epoch 1) counts: no fenced write of the thread was ever made
or is under way, so the statement's snapshot tells. A lease taken over (epoch 2 on) reads as
before, as does a thread with versions (written without a lease), and a write of the thread
forgets what the start found.
"""

from __future__ import annotations

import asyncio
from typing import Any

from engine.checkpoint.base import LEASE_KEY, Lease
from engine.checkpoint.postgres import PostgresSaver
from engine.host import ThreadMark, ThreadRecord, runs_of
from tests.checkpoint._util import make_cp
from tests.checkpoint.test_leases import cfg as leases_cfg
from tests.checkpoint.test_runs import T0, record

T = "g:t"
BUSY = ThreadMark(ThreadRecord(T, "g", "t", T0, T0), T0, status="busy")


def cfg(lease: Lease | None = None, cid: str | None = None) -> dict[str, Any]:
    return leases_cfg(cid, lease, thread=T)


def counting(saver: PostgresSaver) -> list[str]:
    """The statements the saver's reads run from now on, by name."""
    ran: list[str] = []
    inner = saver._reads._run

    async def run(what: str, work: Any) -> Any:
        ran.append(what)
        return await inner(what, work)

    saver._reads._run = run  # type: ignore[method-assign]
    return ran


async def put(saver: PostgresSaver, n: int, lease: Lease | None = None, parent: str | None = None) -> str:
    done = await saver.aput(cfg(lease, parent), make_cp({"n": n}, n), {"step": n}, {"n": n})
    return str(done["configurable"]["checkpoint_id"])


def test_a_new_thread_without_versions_reads_none_without_a_statement(pg: PostgresSaver) -> None:
    async def go() -> None:
        ran = counting(pg)
        lease, found = await runs_of(pg).astart_taking(record("run-1"), "r1", 60, mark=BUSY)
        assert lease is not None and lease.epoch == 1 and found is None
        assert await pg.aget_tuple(cfg(None)) is None  # no lease: not the run's read, a statement
        assert ran == ["get_tuple"]
        assert await pg.aget_tuple(cfg(lease)) is None  # the run's read: what the start found
        assert ran == ["get_tuple"]
        assert await pg.aget_tuple(cfg(lease)) is None  # once: the next read is a statement
        assert ran == ["get_tuple", "get_tuple"]

    asyncio.run(go())


def test_another_leases_read_is_a_statement(pg: PostgresSaver) -> None:
    async def go() -> None:
        lease, _ = await runs_of(pg).astart_taking(record("run-1"), "r1", 60, mark=BUSY)
        assert lease is not None and lease.epoch == 1
        ran = counting(pg)
        assert await pg.aget_tuple(cfg(Lease(T, "r1", 7))) is None
        assert await pg.aget_tuple(cfg(lease)) is None
        assert ran == ["get_tuple", "get_tuple"]

    asyncio.run(go())


def test_a_new_lease_on_a_thread_with_versions_reads_them(pg: PostgresSaver) -> None:
    async def go() -> None:
        first = await put(pg, 1)  # written without a lease: the lease row does not exist yet
        second = await put(pg, 2, parent=first)
        ran = counting(pg)
        lease, _ = await runs_of(pg).astart_taking(record("run-1"), "r1", 60, mark=BUSY)
        assert lease is not None and lease.epoch == 1
        got = await pg.aget_tuple(cfg(lease))
        assert ran == ["get_tuple"]
        assert got is not None and got.checkpoint["id"] == second and got.checkpoint["channel_values"] == {"n": 2}

    asyncio.run(go())


def test_a_write_of_the_thread_forgets_what_the_start_found(pg: PostgresSaver) -> None:
    async def go() -> None:
        lease, _ = await runs_of(pg).astart_taking(record("run-1"), "r1", 60, mark=BUSY)
        assert lease is not None and lease.epoch == 1
        written = await put(pg, 1, lease)
        got = await pg.aget_tuple(cfg(lease))
        assert got is not None and got.checkpoint["id"] == written

    asyncio.run(go())


def test_a_copy_into_the_thread_forgets_what_the_start_found(pg: PostgresSaver) -> None:
    async def go() -> None:
        done = await pg.aput({"configurable": {"thread_id": "g:src", "checkpoint_ns": ""}}, make_cp({"n": 5}, 5), {"step": 5}, {"n": 5})
        lease, _ = await runs_of(pg).astart_taking(record("run-1"), "r1", 60, mark=BUSY)
        assert lease is not None and lease.epoch == 1
        await pg.acopy_thread("g:src", T, lease=lease)
        got = await pg.aget_tuple(cfg(lease))
        assert got is not None and got.checkpoint["id"] == done["configurable"]["checkpoint_id"]

    asyncio.run(go())


def test_a_lease_taken_over_reads_with_a_statement_of_its_own(pg: PostgresSaver) -> None:
    """Epoch 2 on: a fenced write of the previous holder may have committed while the start waited
    for the lease's row, after the statement's snapshot; the run reads the thread afresh."""

    async def go() -> None:
        assert pg.leases is not None
        old = await pg.leases.aacquire_lease(T, "r0", ttl=60)
        assert old is not None
        written = await put(pg, 1, old)
        await pg.leases.arelease_lease(old)
        ran = counting(pg)
        lease, _ = await runs_of(pg).astart_taking(record("run-1"), "r1", 60, mark=BUSY)
        assert lease is not None and lease.epoch == 2
        got = await pg.aget_tuple(cfg(lease))
        assert ran == ["get_tuple"]
        assert got is not None and got.checkpoint["id"] == written

    asyncio.run(go())


def test_what_starts_found_is_bounded_the_oldest_forgotten(pg: PostgresSaver, monkeypatch: Any) -> None:
    """Runs that never read the newest version (they named one) leave what their start found:
    past the bound the oldest goes, and its read is a statement again."""
    from engine.checkpoint.postgres import _reads

    monkeypatch.setattr(_reads, "_MAX_BLANK", 2)
    leases = [Lease(f"g:t{i}", "r1", 1) for i in range(3)]
    for lease in leases:
        pg._reads.blank(lease)
    ran = counting(pg)

    async def go() -> None:
        for lease in leases:
            conf = {"configurable": {"thread_id": lease.thread_id, "checkpoint_ns": "", LEASE_KEY: lease}}
            assert await pg.aget_tuple(conf) is None

    asyncio.run(go())
    assert ran == ["get_tuple"]  # the first one's, forgotten
