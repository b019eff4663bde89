"""Background work of one replica at a time: a task that runs every ``interval`` seconds, and a lease.

The thread sweeper, the cron scheduler and the webhook sender (and the
store's TTL sweep) each do their work on one replica at a time: a pass takes
a well-known lease of the checkpointer's lease store first (:func:`alone`),
and a replica that finds it held skips that pass. :class:`Periodic` is the
task that runs a pass every ``interval`` seconds until stopped, a failed pass
(the database down a while) logged and tried again at the next.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from engine.host import LeaseStore

__all__ = ["Periodic", "alone"]

log = logging.getLogger("graphwire.server")
T = TypeVar("T")


async def alone(leases: LeaseStore | None, key: str, owner: str, ttl: float, work: Callable[[], Awaitable[T]]) -> T | None:
    """``work()`` holding the lease ``key`` (as ``owner``, for at most ``ttl`` seconds); None, without
    running it, when another replica holds it. Without a lease store (SQLite, memory: one process
    per database), ``work()`` alone."""
    lease = await leases.aacquire_lease(key, owner, ttl=ttl) if leases is not None else None
    if leases is not None and lease is None:
        return None
    try:
        return await work()
    finally:
        if lease is not None and leases is not None:
            await leases.arelease_lease(lease)


class Periodic:
    """A pass (:meth:`tick`) every ``interval`` seconds, in a task named ``name``, until :meth:`stop`.

    Subclasses define :meth:`tick`; :meth:`alone` runs part of it under the lease ``key``
    (held at most twice the interval, and at least 30 s).
    """

    name = "graphwire-periodic"
    #: What a failed pass was doing, for its log line ("sweeping expired threads").
    doing = "a periodic pass"

    def __init__(self, *, key: str, leases: LeaseStore | None, owner: str, interval: float) -> None:
        self.key, self.leases, self.owner, self.interval = key, leases, owner, interval
        self._task: asyncio.Task[None] | None = None

    async def tick(self) -> Any:
        raise NotImplementedError

    async def alone(self, work: Callable[[], Awaitable[T]]) -> T | None:
        return await alone(self.leases, self.key, self.owner, max(self.interval * 2, 30.0), work)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _loop(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:  # noqa: BLE001 - the database may be down for a while; try again later
                log.warning("%s failed; trying again in %.1fs", self.doing, self.interval, exc_info=True)
            await asyncio.sleep(self.interval)
