"""engine._internal._worker.CallThread: the SQLite files' SQL thread, awaited from an event loop."""

from __future__ import annotations

import asyncio
import threading

import pytest

from engine._internal._worker import CallThread


def test_calls_run_on_one_thread_of_their_own_in_the_order_they_were_made() -> None:
    worker = CallThread("test-call-thread")
    seen: list[tuple[int, str]] = []

    def record(n: int) -> int:
        seen.append((n, threading.current_thread().name))
        return n * 2

    async def main() -> list[int]:
        return await asyncio.gather(*(worker.call(record, n) for n in range(50)))

    try:
        assert not worker.started  # no thread until a first call
        assert asyncio.run(main()) == [n * 2 for n in range(50)]
        assert [n for n, _ in seen] == list(range(50))
        assert {name for _, name in seen} == {"test-call-thread"}
        assert worker.started
    finally:
        worker.stop()


def test_an_exception_reaches_the_caller_and_the_thread_goes_on() -> None:
    worker = CallThread("test-call-thread")

    def fail() -> None:
        raise ValueError("no such row")

    async def main() -> int:
        with pytest.raises(ValueError, match="no such row"):
            await worker.call(fail)
        return await worker.call(int, "7")

    try:
        assert asyncio.run(main()) == 7
        with pytest.raises(ValueError, match="no such row"):
            worker.submit_wait(fail)
        assert worker.submit_wait(len, "abc") == 3
    finally:
        worker.stop()


def test_a_call_whose_caller_was_cancelled_before_it_started_is_skipped() -> None:
    worker = CallThread("test-call-thread")
    gate = threading.Event()
    ran: list[str] = []

    async def main() -> None:
        first = asyncio.ensure_future(worker.call(gate.wait))  # holds the thread
        await asyncio.sleep(0)  # one turn of the loop (no time): the task runs its first step, queuing its call
        second = asyncio.ensure_future(worker.call(ran.append, "second"))
        await asyncio.sleep(0)
        second.cancel()
        with pytest.raises(asyncio.CancelledError):
            await second
        gate.set()
        assert await first is True
        await worker.call(ran.append, "third")  # runs after the skipped one's turn

    try:
        asyncio.run(main())
        assert ran == ["third"]
    finally:
        worker.stop()


def test_a_stopped_thread_refuses_calls_and_runs_those_queued_before() -> None:
    worker = CallThread("test-call-thread")
    assert worker.submit_wait(abs, -3) == 3
    worker.stop()
    with pytest.raises(RuntimeError, match="stopped"):
        worker.submit_wait(abs, -4)

    async def main() -> None:
        await worker.call(abs, -5)

    with pytest.raises(RuntimeError, match="stopped"):
        asyncio.run(main())


def test_a_call_raising_stop_iteration_fails_its_caller_instead_of_leaving_it_waiting() -> None:
    worker = CallThread("test-call-thread")

    async def main() -> None:
        with pytest.raises(RuntimeError, match="StopIteration"):
            await worker.call(next, iter(()))

    try:
        asyncio.run(main())
    finally:
        worker.stop()
