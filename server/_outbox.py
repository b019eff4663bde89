"""One call's run events waiting to be sent, bounded by a byte budget.

A run and its caller's reader go at their own pace: the run puts each event
here as it happens and never waits for the reader, and the call's handler
sends them as fast as the caller reads (:meth:`Outbox.send`). So a caller
that reads slowly, or not at all, cannot hold its thread: the run ends, its
slot and lease are let go, and what it said waits here for the reader.

What waits is bounded. ``unsent`` counts the serialized bytes of the events
put and not yet handed to gRPC (the one being written included). An event
that would take it past the budget is refused unless nothing is waiting (one
event alone may be as large as a message may be), and the outbox fails: the
call ends with RESOURCE_EXHAUSTED naming the budget, even while a write is
stuck behind a reader that does not read, and the queued events are dropped
at once. The run's last event is always taken (the run is over then; only
the reader is left to wait for), so a stream holds at most the budget, one
event being written and the final one.

The call's first write is never cut half-way (a stuck reader still takes
it: it is the small RunStarted, within gRPC's first window): gRPC counts the
call's initial metadata as sent only once that write completes, and an
abort before then would send it again, which gRPC refuses, leaving the call
without a status. The error ends the call as soon as that write is done.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

import grpc

from server._errors import RpcError

__all__ = ["Outbox"]

_Item = tuple[Any, int, Any]  # (message, its size, initial metadata to send before it, or None)


class Outbox:
    """Events of one call, from its run (:meth:`put`, :meth:`close`) to its reader (:meth:`send`).

    Args:
        budget: the most bytes of events that may wait for the reader.
        what: the call, for the refusal's message (e.g. "run R on thread 't'").
    """

    def __init__(self, budget: int, what: str) -> None:
        self.budget = budget
        self.what = what
        self.unsent = 0
        self.peak = 0  # the most bytes that waited at once
        self._items: deque[_Item] = deque()
        self._closed = False
        self._error: BaseException | None = None  # ends the call now
        self._end: BaseException | None = None  # ends the call once what waits is sent
        self._ready = asyncio.Event()
        self._sender: asyncio.Task[Any] | None = None  # the handler task, while it sends
        self._cut = False  # the sender was cancelled to end the call with the error
        # The call's first write carries its initial metadata, which gRPC counts as sent only once that
        # write completes: cancelled before, the call's abort would send it again, which gRPC refuses
        # (GRPC_CALL_ERROR_TOO_MANY_OPERATIONS) and the call never ends. So the first write is never cut.
        self._first_done = False
        self._detached = False  # the reader is gone (or done) and the run goes on: events are dropped

    @property
    def overflowed(self) -> bool:
        return isinstance(self._error, _Overflow)

    def put(self, message: Any, *, size: int | None = None, last: bool = False, metadata: Any = None) -> bool:
        """Queue ``message`` (``size``: its ``ByteSize()``, if known); False (and the
        outbox fails) when it would pass the budget.

        ``last``: the run's final event, always taken.
        """
        if self._detached:
            return True
        if self._error is not None:
            return False
        if size is None:
            size = message.ByteSize()
        if self.unsent and self.unsent + size > self.budget and not last:
            self.fail(_Overflow(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{self.what}: the caller fell behind by more than max_unsent_bytes ({self.budget} bytes of "
                f"events waiting to be sent, {size} more to come), so the call ends here and the run is "
                "cancelled as if the caller had gone; versions already saved stay",
            ))  # fmt: skip
            return False
        self._items.append((message, size, metadata))
        self.unsent += size
        self.peak = max(self.peak, self.unsent)
        self._ready.set()
        return True

    def detach(self, *, drop: bool = False) -> None:
        """The call ends once what waits is sent (``background``), or has ended (the caller left a
        run that goes on: ``drop`` what waits, nobody sends it): later events are dropped, and
        :meth:`close` changes nothing."""
        if drop:
            self._items.clear()
            self.unsent = 0
        if not self._detached:
            self._detached = True
            self._closed = True
            self._ready.set()

    def close(self, error: BaseException | None = None) -> None:
        """No more events; the reader gets those queued, then ``error`` if given (or the end)."""
        if self._detached:
            return
        self._end = error
        self._closed = True
        self._ready.set()

    def fail(self, error: BaseException) -> None:
        """End the call with ``error`` now: what waits is dropped, a write in progress is abandoned."""
        if self._error is not None:
            return
        self._error = error
        for _, size, _ in self._items:
            self.unsent -= size
        self._items.clear()
        self._ready.set()
        if self._sender is not None and self._first_done:
            # It may be in a write that waits for a reader who does not read: end it there. (Before
            # the first write completed, the sender raises the error once it has: see _first_done.)
            self._cut = True
            self._sender.cancel()

    async def send(self, context: grpc.aio.ServicerContext) -> None:
        """Write every event to ``context`` as the reader takes them; raise the outbox's error, if any.

        Runs in the call's handler task; a failure while a write waits for the
        reader cancels that task (:meth:`fail`), which ends the call here.
        """
        self._sender = asyncio.current_task()
        try:
            while True:
                if self._error is not None:
                    raise self._error
                if not self._items:
                    if self._closed:
                        if self._end is not None:
                            raise self._end
                        return
                    self._ready.clear()
                    await self._ready.wait()
                    continue
                message, size, metadata = self._items.popleft()
                if metadata is not None:
                    await context.send_initial_metadata(metadata)
                await context.write(message)
                self._first_done = True
                self.unsent -= size
        except asyncio.CancelledError:
            if not self._cut:
                raise  # the caller left, or its deadline passed
            self._sender.uncancel()  # type: ignore[union-attr]
            raise self._error from None  # type: ignore[misc]
        finally:
            self._sender = None


class _Overflow(RpcError):
    """The reader fell behind past the budget."""
