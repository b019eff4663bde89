"""Runs whose replica died, taken over; run events past the retention window, dropped.

Every replica sweeps (:class:`RunSweeper`, every ``interval`` seconds, the
first time at start-up). An *orphan* is an active run whose replica is gone,
as the run store sees it (:meth:`~engine.checkpoint._runs.RunStore.aorphans`:
on PostgreSQL, the thread's live lease is not the run's; on SQLite, whose
file one process serves, a run of an earlier process). Then:

* a durable one (``on_disconnect = CONTINUE`` or ``background``) is continued
  here: its record says RECOVERING at once (its replica and attempts as they
  were), then its thread's slot and lease are taken (waiting while the
  thread is busy), the record is claimed with one more attempt (RUNNING,
  this replica), and it runs from its last stored version without applying
  its input again (:meth:`server._durable.DurableRpcs._continue`). Both
  writes apply only while the attempts are the ones read: another replica
  that claimed it first wins, and a replica that dies while the run is
  RECOVERING leaves it an orphan still, for the next sweep of any replica.
  After ``max_run_attempts`` starts it ends ERROR instead (never RECOVERING);
* any other one is recorded CANCELLED, as its caller's stream went with its
  replica: a retry with its request_id continues it then.

The tasks of a step that finished before the replica died are not run again
(their writes were stored as pending writes); the one in flight runs again
from its first line.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from engine.host import RunRecord
from server._reads import owner_of
from server._records import now
from server._tenants import TENANT

__all__ = ["RunSweeper"]

log = logging.getLogger("graphwire.server")


class RunSweeper:
    """Takes over a replica's orphaned runs and expires old events, periodically.

    Args:
        service: the GraphService (its records, graphs, and how it continues a run).
        interval: seconds between sweeps.
    """

    def __init__(self, service: Any, interval: float) -> None:
        self.service = service
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._taking: set[str] = set()  # runs being taken over here

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _loop(self) -> None:
        while True:
            try:
                await self.sweep()
            except Exception:  # noqa: BLE001 - the database may be down for a while; sweep again later
                log.warning("sweeping runs failed; trying again in %.1fs", self.interval, exc_info=True)
            await asyncio.sleep(self.interval)

    async def sweep(self) -> int:
        """One sweep: how many orphans were taken over or closed."""
        records = self.service.records
        await records.store.aexpire(now() - records.retention)
        n = 0
        for record in await records.store.aorphans(records.replica):
            if record.run_id in self._taking:
                continue
            if await self._take(record):
                n += 1
        return n

    async def _take(self, record: RunRecord) -> bool:
        records = self.service.records
        if not record.durable:
            return await records.store.aupdate(record.run_id, record.attempts, status="CANCELLED", ended_at=now())
        entry = self.service.graphs.get(record.graph)
        owner = owner_of(record.thread_id, record.graph)
        if entry is None or owner is None:
            return False  # a graph this replica does not serve: left to one that does
        tenant, thread_id = owner
        if record.attempts < records.max_attempts:  # it will be continued (not given up): say so before waiting for its thread
            if not await records.store.aupdate(record.run_id, record.attempts, status="RECOVERING"):
                return False  # another replica claimed it since it was read
            record.status = "RECOVERING"
        log.info("run %s on thread %r: its replica %s is gone; continuing it (attempt %d)", record.run_id, thread_id,
                 record.replica, record.attempts + 1)  # fmt: skip
        token = TENANT.set(tenant)  # the run's tasks are the tenant's (its store, its hub watchers)
        try:
            task = await self.service._continue(entry, thread_id, record)
        finally:
            TENANT.reset(token)
        self._taking.add(record.run_id)
        task.add_done_callback(lambda _: self._taking.discard(record.run_id))
        return True
