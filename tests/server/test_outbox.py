"""server/_outbox.py: a call whose reader fell behind is cut, and its first write is never cut half-way.

gRPC counts a call's initial metadata as sent only once the write that carries it (the first) completes;
a call aborted while that write is in flight makes gRPC send the metadata again, which it refuses
(GRPC_CALL_ERROR_TOO_MANY_OPERATIONS), and the call never ends. The context here is a stand-in whose
writes wait for the test to let them complete, so the order of events is the test's, not the machine's.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from server._errors import RpcError
from server._outbox import Outbox


class _Context:
    """A call's context whose writes complete when the test says (``done``)."""

    def __init__(self) -> None:
        self.started: list[Any] = []
        self.written: list[Any] = []
        self.cancelled_in_write = 0
        self.done: asyncio.Queue[None] = asyncio.Queue()
        self.writing = asyncio.Event()

    async def write(self, message: Any) -> None:
        self.started.append(message)
        self.writing.set()
        try:
            await self.done.get()
        except asyncio.CancelledError:
            self.cancelled_in_write += 1
            raise
        self.written.append(message)

    async def send_initial_metadata(self, metadata: Any) -> None:  # (not used here)
        raise AssertionError("no metadata was given")


class _Message:
    def __init__(self, size: int) -> None:
        self.size = size

    def ByteSize(self) -> int:
        return self.size


def test_a_reader_behind_during_the_first_write_is_cut_once_that_write_completed() -> None:
    async def body() -> None:
        outbox = Outbox(1000, "run R on thread 't'")
        context = _Context()
        first, big = _Message(10), _Message(5000)
        assert outbox.put(first)
        sending = asyncio.ensure_future(outbox.send(context))
        await context.writing.wait()  # the first write is in flight
        assert outbox.put(big) is False  # past the budget: the outbox fails
        assert not sending.done()  # ... but the first write is not cut half-way
        context.done.put_nowait(None)  # it completes
        with pytest.raises(RpcError) as failed:
            await sending
        assert failed.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "max_unsent_bytes (1000 bytes" in str(failed.value)
        assert context.written == [first] and context.cancelled_in_write == 0

    asyncio.run(body())


def test_a_later_write_waiting_for_a_reader_who_does_not_read_is_cut() -> None:
    async def body() -> None:
        outbox = Outbox(1000, "run R on thread 't'")
        context = _Context()
        assert outbox.put(_Message(10)) and outbox.put(_Message(900))
        sending = asyncio.ensure_future(outbox.send(context))
        await context.writing.wait()
        context.writing.clear()
        context.done.put_nowait(None)  # the first write completes
        await context.writing.wait()  # the second is in flight, its reader never reads
        assert outbox.put(_Message(5000)) is False
        with pytest.raises(RpcError, match="max_unsent_bytes"):
            await sending  # cut in the write: the call ends now
        assert context.cancelled_in_write == 1 and len(context.written) == 1

    asyncio.run(body())
