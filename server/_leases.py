"""A thread's lease in the checkpointer, held for as long as a run uses the thread.

Within one process, :class:`server._runs.RunManager` gives a thread to one run
at a time. Across replicas on one database that is not enough: the
checkpointer (PostgreSQL, ``supports_leases``) keeps a lease per thread in its
lease store (``saver.leases``), and
:class:`ThreadLeases` holds it for the run:

* take it after the local slot (a process never competes with itself); busy
  on another replica → ABORTED naming the thread, as the local busy case; with
  ``enqueue``, poll with backoff until it is free (the handler's cancellation,
  by the client leaving or its deadline, ends the wait);
* renew it every ``ttl / 3`` seconds; when a renewal finds it lost (taken
  over, or not renewable before it lapses because the database is down), call
  ``on_lost`` with the status the run should end with, so the run is
  cancelled; its writes are fenced by the database anyway;
* release it at the end (a failed release is left to lapse).

The lease (a :class:`~engine.checkpoint.base.Lease`) is the run's fencing
token: the service passes it to the engine (``aevents(..., lease=)``,
``aupdate_state(..., lease=)``). Leasing a store's threads sets its
``requires_lease`` (its saver's follows), so a run or a write without its lease raises instead of
writing unfenced.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime, timezone

import grpc

from engine.checkpoint.base import Lease, LeaseHolder, LeaseStore
from engine.errors import CheckpointError
from server._errors import RpcError, ThreadBusy

__all__ = ["DEFAULT_LEASE_SECONDS", "Take", "ThreadLeases", "replica_id"]

log = logging.getLogger("graphwire.server")

#: A first try at a thread's lease for (owner, ttl): the lease, or None when another holds it.
Take = Callable[[str, float], Awaitable["Lease | None"]]

DEFAULT_LEASE_SECONDS = 15.0
_FIRST_POLL, _MAX_POLL = 0.05, 1.0
_RELEASE_TIMEOUT = 2.0


def replica_id() -> str:
    """This process's name as a lease owner: ``hostname:pid:random`` (unique even when pids repeat)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def busy(thread_id: str, holder: LeaseHolder | None) -> RpcError:
    if holder is None:  # released (or its holder gone) since the acquire found it held
        who = "its lease is ending now"
    else:
        left = (holder.expires_at - datetime.now(timezone.utc)).total_seconds()
        ends = holder.expires_at.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        who = f"held by {holder.owner}, whose lease ends at {ends} (in {max(left, 0):.1f}s) unless renewed"
    return ThreadBusy(
        f"thread {thread_id!r} already has a run in progress on another replica ({who}); "
        "wait for it to finish, or set enqueue to wait your turn",
    )


class ThreadLeases:
    """Leases of threads for one replica.

    Args:
        store: a lease store (:class:`~engine.checkpoint._lease.LeaseStore`:
            a checkpointer's ``leases``).
        ttl: seconds a lease lasts unless renewed (renewed every ``ttl / 3``).
        owner: this replica's id (default :func:`replica_id`).
    """

    def __init__(self, store: LeaseStore, *, ttl: float = DEFAULT_LEASE_SECONDS, owner: str | None = None) -> None:
        if not isinstance(store, LeaseStore):
            raise ValueError(f"{type(store).__name__} has no leases (supports_leases is False)")
        store.requires_lease = True  # from now on no write of its saver goes unfenced
        self.store = store
        self.ttl = float(ttl)
        self.owner = owner or replica_id()
        self._held: dict[Lease, _Held] = {}  # the leases held now, each with its renewal

    @contextlib.asynccontextmanager
    async def hold(
        self, key: str, thread_id: str, *, enqueue: bool, on_lost: Callable[[RpcError], None], take: Take | None = None
    ) -> AsyncIterator[Lease]:
        """The thread's lease (``key``: the checkpointer's thread id), renewed until the block ends.

        ``take(owner, ttl)``: the first try at the lease, in place of the store's acquire (a run's
        start that takes it with its record, in one write: :meth:`server._stream.Streams._run`).

        Raises:
            RpcError: ABORTED, the thread is busy on another replica (without ``enqueue``).
            CheckpointError: the checkpointer could not be reached.
        """
        lease, asked = await self._acquire(key, thread_id, enqueue, take)
        loop = asyncio.get_running_loop()
        held = _Held()

        def beat() -> None:  # the first renewal is due: from here on a task renews it (most runs end before)
            held.task = loop.create_task(self._heartbeat(lease, asked, thread_id, on_lost), name=f"graphwire-lease-{key}")

        held.timer = loop.call_later(self.ttl / 3, beat)
        self._held[lease] = held
        try:
            yield lease
        finally:
            del self._held[lease]
            await held.stop()
            if not held.released:
                await self._release(lease)

    async def stop_renewing(self, lease: Lease) -> None:
        """Renew ``lease`` (one :meth:`hold` holds) no more: its holder is about to let go of it with
        another write (a run's end, :meth:`released`); if it does not, the hold's end releases it."""
        held = self._held.get(lease)
        if held is not None:
            await held.stop()

    def released(self, lease: Lease) -> None:
        """``lease`` was let go of by another write (a run's end, in its record's statement): the
        hold's end does not release it again."""
        held = self._held.get(lease)
        if held is not None:
            held.released = True

    async def _acquire(self, key: str, thread_id: str, enqueue: bool, take: Take | None) -> tuple[Lease, float]:
        """The lease, and the loop time just before the database granted it."""
        loop = asyncio.get_running_loop()
        wait = _FIRST_POLL
        while True:
            asked = loop.time()
            if take is not None:
                lease, take = await take(self.owner, self.ttl), None
            else:
                lease = await self.store.aacquire_lease(key, self.owner, ttl=self.ttl)
            if lease is not None:
                return lease, asked
            if not enqueue:
                raise busy(thread_id, await self.store.alease_holder(key))
            await asyncio.sleep(wait * random.uniform(0.8, 1.2))  # jitter: replicas waiting for one thread spread out
            wait = min(wait * 2, _MAX_POLL, self.ttl / 3)

    async def _heartbeat(self, lease: Lease, asked: float, thread_id: str, on_lost: Callable[[RpcError], None]) -> None:
        loop = asyncio.get_running_loop()
        every = self.ttl / 3
        held_until = asked + self.ttl  # by our clock, no later than the database's expiry
        due = True  # started when the first renewal is due (hold's timer)
        while True:
            if not due:
                await asyncio.sleep(every)
            due = False
            asked = loop.time()
            # A renewal that cannot finish before the lease lapses is as good as failed. One
            # asked after it lapsed by our clock (this process was paused) is answered by the
            # database: renewed if nobody took the thread meanwhile, else lost.
            limit = held_until - asked if held_until > asked else every
            try:
                # Not asyncio.wait_for: on Python 3.11 it drops a cancellation that comes as the renewal
                # answers, and this loop would renew on while the release waits for it (see _release).
                async with asyncio.timeout(limit):
                    renewed = await self.store.arenew_lease(lease, ttl=self.ttl)
            except (CheckpointError, TimeoutError) as exc:
                why = str(exc) if isinstance(exc, CheckpointError) else "the database did not answer in time"
                if loop.time() + every < held_until:
                    log.warning("renewing the lease on thread %r failed, will retry: %s", thread_id, why)
                    continue
                on_lost(RpcError(
                    grpc.StatusCode.UNAVAILABLE,
                    f"checkpointer unavailable: the lease on thread {thread_id!r} could not be renewed "
                    f"before it lapsed, so the run was stopped: {why}",
                ))  # fmt: skip
                return
            if not renewed:
                on_lost(RpcError(
                    grpc.StatusCode.ABORTED,
                    f"thread {thread_id!r}: this replica lost the thread's lease (it lapsed or another "
                    "replica took the thread over), so the run was stopped; nothing more of it is saved",
                ))  # fmt: skip
                return
            held_until = asked + self.ttl

    async def _release(self, lease: Lease) -> None:
        # Bounded: the call that ends here waits for it. A lease not released lapses by itself.
        try:
            async with asyncio.timeout(_RELEASE_TIMEOUT):  # (not wait_for: see _heartbeat)
                await self.store.arelease_lease(lease)
        except CheckpointError as exc:
            log.warning("releasing the lease on %r failed; it lapses by itself: %s", lease.thread_id, exc)
        except TimeoutError:
            log.warning("releasing the lease on %r took over %gs; it lapses by itself", lease.thread_id, _RELEASE_TIMEOUT)


class _Held:
    """One held lease's renewal: a timer until the first renewal is due, then a task; and whether
    the holder let go of the lease with another write."""

    __slots__ = ("released", "task", "timer")

    def __init__(self) -> None:
        self.timer: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None
        self.released = False

    async def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        task, self.task = self.task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
