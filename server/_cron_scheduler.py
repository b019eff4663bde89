"""The cron scheduler: crons due are fired as background runs, each firing by exactly one replica.

Every ``interval`` seconds the :class:`CronScheduler` of each replica tries to
take the scheduler's lease (:data:`SCHEDULER_KEY`, a key of the
checkpointer's lease store no thread can have), as the thread sweeper does
(:mod:`server._thread_sweep`): one replica at a time looks for crons due; a
replica whose checkpointer has no leases (SQLite, memory) schedules alone.
The holder claims the crons due (:meth:`engine.host.CronStore.aclaim_due`:
their ``next_run_date`` moved past now in the same transaction that reads
them), then fires each through ``fire`` (the HTTP face's background run,
:mod:`server.http._cron_fire`). A claimed firing is never claimed again, on
this replica or another, after a restart too; a replica that dies between
the claim and the run's start loses that one firing (at most once), and the
cron fires again at its next date.

Each firing adds one to the OpenTelemetry counter ``graphwire.crons.fired``
(attribute ``outcome``: "started" or "failed").
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from opentelemetry import metrics

from engine.host import CronRecord, CronStore, LeaseStore
from server._periodic import Periodic
from server._records import now

__all__ = ["SCHEDULER_KEY", "CronScheduler"]

log = logging.getLogger("graphwire.server")

#: The lease the scheduling replica holds (no thread's key: a graph name is never empty).
SCHEDULER_KEY = ":scheduler:crons"
#: The most crons one tick claims (more wait for the next tick).
BATCH = 100
FIRED = metrics.get_meter("graphwire.server").create_counter(
    "graphwire.crons.fired", unit="{run}", description="Cron firings: runs started (or failing to start) on a schedule"
)


class CronScheduler(Periodic):
    """Fires the crons due every ``interval`` seconds (see the module's doc).

    Args:
        store: the crons.
        fire: starts one cron's run (a failure is logged; the firing is not retried).
        leases: the checkpointer's lease store (None: it has none; this replica schedules alone).
        owner: this replica's lease owner id.
        interval: seconds between ticks.
        clock: what time it is (aware; tests may pass their own).
    """

    name = "graphwire-cron-scheduler"
    doing = "firing crons"

    def __init__(
        self,
        store: CronStore,
        fire: Callable[[CronRecord], Awaitable[None]],
        *,
        leases: LeaseStore | None,
        owner: str,
        interval: float,
        clock: Callable[[], datetime] = now,
    ) -> None:
        self.store, self.fire = store, fire
        self.clock = clock
        super().__init__(key=SCHEDULER_KEY, leases=leases, owner=owner, interval=interval)

    async def tick(self, at: datetime | None = None) -> int | None:
        """Fire the crons due at ``at`` (default: the clock's now): how many were claimed, or None when
        another replica holds the scheduler's lease."""
        claimed = await self.alone(lambda: self.store.aclaim_due(at or self.clock(), limit=BATCH))
        if claimed is None:
            return None
        for cron in claimed:
            try:
                await self.fire(cron)
            except Exception:  # noqa: BLE001 - one cron's failure (its assistant deleted...) stops no other
                log.exception("cron %s: its run could not be started", cron.cron_id)
                FIRED.add(1, {"outcome": "failed"})
            else:
                FIRED.add(1, {"outcome": "started"})
        if claimed:
            log.info("crons: %d fired", len(claimed))
        return len(claimed)
