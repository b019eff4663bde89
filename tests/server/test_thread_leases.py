"""How a server holds a thread's lease around a run (server/_leases.py), in process.

A fake saver keeps leases in a dict and can be told to lose one (another
replica took it over) or to fail (the database is down). Leases last a
fraction of a second here, so heartbeats happen while the test waits on a
condition; nothing asserts how long anything took.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from engine.checkpoint import InMemorySaver
from engine.checkpoint.base import Lease
from engine.errors import CheckpointError
from server._errors import RpcError
from server._leases import ThreadLeases, replica_id
from server._runs import RunManager

TTL = 0.3
DEADLINE = 10.0


class LeasingSaver(InMemorySaver):
    """Leases in a dict: {thread: (owner, epoch, held)}; ``down`` makes every lease call fail."""

    supports_leases = True

    def __init__(self) -> None:
        super().__init__()
        self.leases: dict[str, tuple[str, int, bool]] = {}
        self.down = False
        self.renewals = 0

    def _check(self) -> None:
        if self.down:
            raise CheckpointError("PostgreSQL: connection refused")

    async def aacquire_lease(self, thread_id: str, owner: str, *, ttl: float) -> Lease | None:
        self._check()
        holder, epoch, held = self.leases.get(thread_id, ("", 0, False))
        if held and holder != owner:
            return None
        self.leases[thread_id] = (owner, epoch + 1, True)
        return Lease(thread_id, owner, epoch + 1)

    async def arenew_lease(self, lease: Lease, *, ttl: float) -> bool:
        self.renewals += 1  # attempts, failed ones included
        self._check()
        return self.leases.get(lease.thread_id) == (lease.owner, lease.epoch, True)

    async def arelease_lease(self, lease: Lease) -> None:
        self._check()
        if self.leases.get(lease.thread_id) == (lease.owner, lease.epoch, True):
            self.leases[lease.thread_id] = (lease.owner, lease.epoch, False)

    async def alease_holder(self, thread_id: str) -> None:
        return None  # the busy message then says the lease is ending

    def take_over(self, thread_id: str, owner: str = "elsewhere") -> None:
        _, epoch, _ = self.leases[thread_id]
        self.leases[thread_id] = (owner, epoch + 1, True)


async def until(condition: Any, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while not condition():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


def test_replica_ids_are_unique_per_process_start() -> None:
    a, b = replica_id(), replica_id()
    assert a != b and a.count(":") == 2 and a.rsplit(":", 1)[0] == b.rsplit(":", 1)[0]


def test_a_saver_without_leases_is_refused() -> None:
    with pytest.raises(ValueError, match="supports_leases"):
        ThreadLeases(InMemorySaver())


def test_leasing_a_savers_threads_makes_it_require_leases() -> None:
    """From then on a run or write without its lease raises (tests/checkpoint/test_run_leases.py)."""
    saver = LeasingSaver()
    assert saver.requires_lease is False
    ThreadLeases(saver, ttl=TTL, owner="me")
    assert saver.requires_lease is True


def test_busy_elsewhere_is_aborted_naming_the_thread_and_release_frees_it() -> None:
    async def body() -> None:
        saver = LeasingSaver()
        saver.leases["g:t"] = ("elsewhere", 4, True)
        leases = ThreadLeases(saver, ttl=TTL, owner="me")
        with pytest.raises(RpcError) as busy:
            async with leases.hold("g:t", "t", enqueue=False, on_lost=lambda why: None):
                pass
        assert busy.value.code is grpc.StatusCode.ABORTED and "'t'" in busy.value.message
        assert "another replica" in busy.value.message
        saver.leases["g:t"] = ("elsewhere", 4, False)
        async with leases.hold("g:t", "t", enqueue=False, on_lost=lambda why: None) as lease:
            assert lease == Lease("g:t", "me", 5)
            await until(lambda: saver.renewals >= 2, "the lease to be renewed")
        assert saver.leases["g:t"] == ("me", 5, False)

    asyncio.run(body())


def test_enqueue_waits_for_the_lease_and_can_be_cancelled() -> None:
    async def body() -> None:
        saver = LeasingSaver()
        saver.leases["g:t"] = ("elsewhere", 1, True)
        leases = ThreadLeases(saver, ttl=TTL, owner="me")
        got: list[Lease] = []

        async def wait_turn() -> None:
            async with leases.hold("g:t", "t", enqueue=True, on_lost=lambda why: None) as lease:
                got.append(lease)

        waiting = asyncio.ensure_future(wait_turn())
        await asyncio.sleep(0)  # let it ask once
        assert not waiting.done()
        saver.leases["g:t"] = ("elsewhere", 1, False)
        await asyncio.wait_for(waiting, DEADLINE)
        assert got == [Lease("g:t", "me", 2)]

        saver.leases["g:t"] = ("elsewhere", 3, True)
        cancelled = asyncio.ensure_future(wait_turn())
        await until(lambda: saver.leases["g:t"][0] == "elsewhere", "the second wait to start")
        cancelled.cancel()  # the caller left, or its deadline passed
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        assert saver.leases["g:t"] == ("elsewhere", 3, True)

    asyncio.run(body())


def test_a_lease_taken_over_mid_run_stops_the_run_as_aborted() -> None:
    async def body() -> None:
        saver = LeasingSaver()
        runs = RunManager(ThreadLeases(saver, ttl=TTL, owner="me"))
        async with runs.slot("g:t", "t", "run-1", enqueue=False) as handle:
            assert handle.lease == Lease("g:t", "me", 1)
            handle.task = asyncio.ensure_future(asyncio.sleep(3600))  # the run
            saver.take_over("g:t")
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(handle.task, DEADLINE)
            assert handle.lost is not None and handle.lost.code is grpc.StatusCode.ABORTED
            assert "'t'" in handle.lost.message and "lost the thread's lease" in handle.lost.message
        assert saver.leases["g:t"] == ("elsewhere", 2, True)  # a lost lease is not released

    asyncio.run(body())


def test_a_database_down_past_the_lease_stops_the_run_as_unavailable() -> None:
    async def body() -> None:
        saver = LeasingSaver()
        runs = RunManager(ThreadLeases(saver, ttl=TTL, owner="me"))
        async with runs.slot("g:t", "t", "run-1", enqueue=False) as handle:
            handle.task = asyncio.ensure_future(asyncio.sleep(3600))
            saver.down = True
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(handle.task, DEADLINE)
            assert handle.lost is not None and handle.lost.code is grpc.StatusCode.UNAVAILABLE
            assert handle.lost.message.startswith("checkpointer unavailable: ")
        # Releasing failed too: logged, and the slot is free all the same.
        assert runs.active("g:t") is None and len(runs) == 0

    asyncio.run(body())


def test_a_short_outage_within_the_lease_does_not_stop_the_run() -> None:
    async def body() -> None:
        saver = LeasingSaver()
        runs = RunManager(ThreadLeases(saver, ttl=10 * TTL, owner="me"))  # room for one failed renewal
        async with runs.slot("g:t", "t", "run-1", enqueue=False) as handle:
            handle.task = asyncio.ensure_future(asyncio.sleep(3600))
            saver.down = True
            start = saver.renewals
            await until(lambda: saver.renewals > start, "a renewal to fail")  # counted before it raises
            saver.down = False
            await until(lambda: saver.renewals > start + 1, "a renewal to succeed")
            assert handle.lost is None and not handle.task.done()
            handle.task.cancel()

    asyncio.run(body())


class AnsweredOnCue(LeasingSaver):
    """Each renewal waits until the test lets it answer (``answer``); ``asked`` counts them."""

    def __init__(self) -> None:
        super().__init__()
        self.answer: asyncio.Event | None = None
        self.asked = 0

    async def arenew_lease(self, lease: Lease, *, ttl: float) -> bool:
        self.asked += 1
        assert self.answer is not None
        await self.answer.wait()
        return await super().arenew_lease(lease, ttl=ttl)


def test_a_release_that_meets_a_renewal_as_it_answers_ends_the_heartbeat() -> None:
    """The run ends (the heartbeat is cancelled) in the loop step where a renewal's answer comes: the
    cancellation must win. Python 3.11's ``asyncio.wait_for`` dropped a cancellation whose inner call
    had just finished, so the heartbeat went on renewing and the release waited for it forever: the
    thread stayed leased, its slot held, and the run's caller never saw its stream end."""

    async def body() -> None:
        saver = AnsweredOnCue()
        saver.answer = asyncio.Event()
        leases = ThreadLeases(saver, ttl=TTL, owner="me")
        async with asyncio.timeout(DEADLINE):
            async with leases.hold("g:t", "t", enqueue=False, on_lost=lambda why: None):
                await until(lambda: saver.asked == 1, "a renewal to be asked")
                saver.answer.set()  # it answers in the next loop step, as the block ends here
        assert saver.leases["g:t"] == ("me", 1, False)  # released
        assert saver.asked == 1  # and the heartbeat ended: no renewal after the end
        assert not [t for t in asyncio.all_tasks() if t.get_name().startswith("graphwire-lease-")]

    asyncio.run(body())
