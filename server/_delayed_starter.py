"""The delayed runs' starter: runs asked for with ``after_seconds`` are started when due, each by one replica;
so are background runs queued behind another on their thread (due at once, they wait for it here).

As the cron scheduler (:mod:`server._cron_scheduler`): every ``interval``
seconds the :class:`DelayedScheduler` of each replica
tries to take its lease (:data:`STARTER_KEY`, a key no thread can have); the
holder claims the delayed runs due (:meth:`engine.host.DelayedRuns.aclaim_due`:
each held for :data:`HOLD` seconds in the same transaction that reads it) and
starts them, a task per thread (a thread's in the order claimed), through ``start`` (:class:`server.http._delayed.DelayedStarter`),
which removes its row once its run has started. A replica that dies between
a claim and the row's removal leaves the row to be claimed again once its
hold ends; the run's request id (``delayed-<run_id>``) makes that second
start join the run the first one started, if any: each delayed run starts
once. The rows live in the checkpointer's database, so a run asked for before
a restart starts after it, when due.

Each start adds one to the OpenTelemetry counter ``graphwire.runs.delayed``
(attribute ``outcome``: "started" or "failed": tried again after its hold).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from opentelemetry import metrics

from engine.host import DelayedRun, DelayedRuns, LeaseStore
from server._periodic import Periodic
from server._records import now

__all__ = ["HOLD", "STARTER_KEY", "DelayedScheduler"]

log = logging.getLogger("graphwire.server")

#: The lease the starting replica holds (no thread's key: a graph name is never empty).
STARTER_KEY = ":scheduler:delayed-runs"
#: How long a claimed row is held before another claim may take it (its start failed, or its starter died).
HOLD = 60.0
#: The most delayed runs one tick claims (more wait for the next tick).
BATCH = 100
STARTED = metrics.get_meter("graphwire.server").create_counter(
    "graphwire.runs.delayed", unit="{run}", description="Delayed runs (after_seconds) started, or failing to start, when due"
)


class DelayedScheduler(Periodic):
    """Starts the delayed runs due every ``interval`` seconds (see the module's doc).

    Args:
        store: the delayed runs.
        start: starts one (a run the thread refuses ends "error" there; what it raises is tried again after :data:`HOLD`).
        leases: the checkpointer's lease store (None: it has none; this replica starts them alone).
        owner: this replica's lease owner id.
        interval: seconds between ticks.
        clock: what time it is (aware; tests may pass their own).
    """

    name = "graphwire-delayed-runs"
    doing = "starting delayed runs"

    def __init__(
        self,
        store: DelayedRuns,
        start: Callable[[DelayedRun], Awaitable[None]],
        *,
        leases: LeaseStore | None,
        owner: str,
        interval: float,
        clock: Callable[[], datetime] = now,
    ) -> None:
        self.store, self.start_one = store, start
        self.clock = clock
        self._starting: set[str] = set()  # the run ids claimed here whose start is queued or under way
        self._queues: dict[tuple[str, str], list[DelayedRun]] = {}  # (tenant, thread) -> its claimed runs, in order
        self._tasks: set[asyncio.Task[None]] = set()  # one per thread with claimed runs
        super().__init__(key=STARTER_KEY, leases=leases, owner=owner, interval=interval)

    async def tick(self, at: datetime | None = None) -> int | None:
        """Start the delayed runs due at ``at`` (default: the clock's now): how many were claimed, or None when
        another replica holds the starter's lease."""
        claimed = await self.alone(lambda: self.store.aclaim_due(at or self.clock(), HOLD, limit=BATCH))
        if claimed is None:
            return None
        for row in claimed:
            if row.run_id in self._starting:
                continue  # its start is queued or under way here (waiting its turn on a busy thread): its hold ran out
            self._starting.add(row.run_id)
            key = (row.tenant, row.thread_id or row.run_id)  # a stateless run: a thread of its own
            queue = self._queues.get(key)
            if queue is not None:
                queue.append(row)  # behind the thread's runs claimed before it
                continue
            self._queues[key] = [row]
            task = asyncio.get_running_loop().create_task(self._drain(key), name=f"{self.name}-{row.run_id}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return len(claimed)

    async def _drain(self, key: tuple[str, str]) -> None:
        """Start one thread's claimed runs, in the order they were claimed (oldest first), each once the one
        before it started: a run queued behind another waits for its thread here, and the runs of other
        threads, in tasks of their own, do not wait for it."""
        queue = self._queues[key]
        try:
            while queue:
                row = queue[0]
                try:
                    await self.start_one(row)
                except Exception:  # noqa: BLE001 - one run's failure (the database down a moment) stops no other
                    log.exception("delayed run %s: its start failed; it is tried again in %.0fs", row.run_id, HOLD)
                    STARTED.add(1, {"outcome": "failed"})
                else:
                    STARTED.add(1, {"outcome": "started"})
                finally:
                    queue.pop(0)
                    self._starting.discard(row.run_id)
        finally:
            for row in queue:  # stopped: the rest are claimed again once their hold ends
                self._starting.discard(row.run_id)
            del self._queues[key]

    async def stop(self) -> None:
        """Stop ticking, and the starts still going (their rows stay, for another replica or the next start)."""
        await super().stop()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
