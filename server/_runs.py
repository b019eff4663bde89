"""Runs are owned by the server: at most one per thread, cancellable from anywhere.

Each thread has a slot: a lock taken for the whole run. A second call on a
busy thread fails at once with ABORTED naming the thread, or, when it asked to
enqueue, waits for the lock (FIFO: asyncio locks wake waiters in order).
The slot remembers the running task so ``CancelRun`` (from another
connection) and shutdown can cancel it.

This holds one run per thread within one server process. Across replicas on
one database the checkpointer enforces it: when the manager has
:class:`~server._leases.ThreadLeases` (a checkpointer with
``supports_leases``), a slot also holds the thread's lease for as long as it
is held, after the local lock (see :mod:`server._leases`). The handle carries
the lease (the run's fencing token) and, if the lease is lost mid-run, the
status the run must end with; the run's task is cancelled then.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import AsyncIterator

import grpc

from engine.checkpoint.base import Lease
from server._errors import RpcError, ThreadBusy
from server._leases import Take, ThreadLeases

__all__ = ["Abandoned", "RunManager", "RunHandle"]


@dataclass(slots=True)
class RunHandle:
    run_id: str
    thread_id: str
    task: asyncio.Task[None] | None = None
    lease: Lease | None = None  # the thread's lease in the checkpointer, when it has leases
    lost: RpcError | None = None  # set when the lease was lost mid-run: how the run ends
    durable: bool = False  # continued by another replica (or this one restarted) if this one stops it

    def lose(self, why: RpcError) -> None:
        """The lease is gone: stop the run (its writes are fenced off anyway)."""
        self.lost = why
        if self.task is not None:
            self.task.cancel()


class Abandoned(RpcError):
    """A durable run this replica stopped at shutdown: its record stays active, for another
    replica (or this one, restarted) to continue it."""

    def __init__(self, run_id: str) -> None:
        super().__init__(grpc.StatusCode.UNAVAILABLE, f"run {run_id}: the server stopped; the run is continued by another replica")


@dataclass(slots=True)
class _Slot:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    waiters: int = 0
    handle: RunHandle | None = None


class RunManager:
    """Run slots of one process; ``leases``: also hold each thread's lease in the checkpointer."""

    def __init__(self, leases: ThreadLeases | None = None) -> None:
        self.leases = leases
        self._slots: dict[str, _Slot] = {}
        self._idle = asyncio.Event()
        self._idle.set()

    @contextlib.asynccontextmanager
    async def slot(self, key: str, thread_id: str, run_id: str, *, enqueue: bool, take: Take | None = None) -> AsyncIterator[RunHandle]:
        """The thread's slot in this process, and its lease (``take``: the first try at it, see
        :meth:`server._leases.ThreadLeases.hold`)."""
        slot = self._slots.setdefault(key, _Slot())
        if slot.lock.locked() and not enqueue:
            active = slot.handle.run_id if slot.handle else "?"
            raise ThreadBusy(
                f"thread {thread_id!r} already has a run in progress (run {active}); "
                "wait for it to finish, cancel it with CancelRun, or set enqueue to wait your turn",
            )
        slot.waiters += 1
        try:
            await slot.lock.acquire()
        finally:
            slot.waiters -= 1
        handle = RunHandle(run_id, thread_id)
        slot.handle = handle
        self._idle.clear()
        try:
            if self.leases is None:
                yield handle
            else:
                async with self.leases.hold(key, thread_id, enqueue=enqueue, on_lost=handle.lose, take=take) as lease:
                    handle.lease = lease
                    yield handle
        finally:
            slot.handle = None
            slot.lock.release()
            if not slot.waiters and not slot.lock.locked():
                self._slots.pop(key, None)
            if not self._slots:
                self._idle.set()

    def waiting(self, key: str) -> int:
        """Calls in this process waiting for the thread: for its slot, or, holding it, for its lease."""
        slot = self._slots.get(key)
        if slot is None:
            return 0
        acquiring = self.leases is not None and slot.handle is not None and slot.handle.lease is None
        return slot.waiters + acquiring

    def active(self, key: str) -> RunHandle | None:
        slot = self._slots.get(key)
        return slot.handle if slot else None

    def cancel(self, key: str, run_id: str = "") -> bool:
        handle = self.active(key)
        if handle is None or handle.task is None or (run_id and handle.run_id != run_id):
            return False
        handle.task.cancel()
        return True

    def cancel_all(self) -> int:
        """Cancel every run (shutdown); a durable one is stopped without an end, to be continued elsewhere."""
        n = 0
        for key in list(self._slots):
            handle = self.active(key)
            if handle is not None and handle.durable and handle.task is not None:
                handle.lose(Abandoned(handle.run_id))
                n += 1
                continue
            n += self.cancel(key)
        return n

    async def wait_idle(self, timeout: float) -> bool:
        try:
            async with asyncio.timeout(timeout):  # not wait_for: see server._leases
                await self._idle.wait()
            return True
        except TimeoutError:
            return False

    def __len__(self) -> int:
        return sum(1 for s in self._slots.values() if s.handle is not None)
