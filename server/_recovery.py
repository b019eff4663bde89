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
  its input again (:meth:`server._continuing.Continuations.take_orphan`, on the
  decision of :mod:`server._going_on`). Both
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
from collections.abc import Awaitable, Callable

from engine.host import RunRecord
from server._records import Records, now

__all__ = ["RunSweeper"]

log = logging.getLogger("graphwire.server")

#: Acts on an orphan: the task continuing it here, True when it was closed, False when it was left.
Take = Callable[[RunRecord], Awaitable["asyncio.Task[None] | bool"]]


class RunSweeper:
    """Takes over a replica's orphaned runs and expires old events, periodically.

    Args:
        records: the replica's run records (their store, retention and replica).
        take: acts on an orphan (:meth:`server._continuing.Continuations.take_orphan`).
        interval: seconds between sweeps.
    """

    def __init__(self, records: Records, take: Take, interval: float) -> None:
        self.records = records
        self.take = take
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._taking: set[str] = set()  # runs being taken over here

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="graphwire-run-sweeper")

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

    def _track(self, run_id: str, task: asyncio.Task[None]) -> None:
        self._taking.add(run_id)
        task.add_done_callback(lambda _: self._taking.discard(run_id))

    async def sweep(self) -> int:
        """One sweep: how many orphans were taken over or closed."""
        records = self.records
        await records.store.aexpire(now() - records.retention)
        n = 0
        for record in await records.store.aorphans(records.replica):
            if record.run_id in self._taking:
                continue
            taken = await self.take(record)
            if isinstance(taken, asyncio.Task):
                self._track(record.run_id, taken)
            n += bool(taken)
        return n
