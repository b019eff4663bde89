"""Expired threads, swept while the server runs: by one replica at a time, never under a run.

A thread with a TTL (its own, or its graph's ``[thread_ttl]``) expires that
long after its ``updated_at`` (:mod:`engine.checkpoint._threads`). Every
``interval`` seconds, the :class:`ThreadSweeper` of each replica tries to
take the sweeper's lease, a lease of the checkpointer's lease store
(:data:`SWEEPER_KEY`, a key no thread can have: graph names are never empty),
so exactly one replica sweeps at a time; a replica whose checkpointer has no
leases (SQLite, memory: one process serves the data) sweeps alone. The holder
then reads the expired threads in bounded batches (``batch`` records, the
longest expired first, none ``busy``), and for each takes the thread's run
slot and lease as DeleteThread does, without waiting: a thread a run holds
(here or on another replica) is left, and swept at a later sweep once its
run ended and it expired again, if it did (its run moved its ``updated_at``).
Holding the thread, it reads the record again (an update since may have
moved its expiry), then:

* ``delete``: the thread goes, versions, runs and record (fenced by its lease);
* ``keep_latest``: every version but the newest goes (with its ended runs,
  :func:`server._prune.prune_one`), and the thread expires no more until its
  next update.

Each thread swept adds one to the OpenTelemetry counter
``graphwire.threads.swept`` (attribute ``strategy``).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from opentelemetry import metrics

from engine.host import LeaseStore
from server._errors import ThreadBusy
from server._periodic import Periodic
from server._prune import prune_one
from server._records import Records, now
from server._requests import config
from server._runs import RunManager
from server._thread_book import ThreadBook

__all__ = ["SWEEPER_KEY", "ThreadSweeper"]

log = logging.getLogger("graphwire.server")

#: The lease the sweeping replica holds (no thread's key: a graph name is never empty).
SWEEPER_KEY = ":sweeper:threads"
DEFAULT_BATCH = 100
#: The most batches one sweep reads (a larger backlog waits for the next sweep).
MAX_BATCHES = 10
SWEPT = metrics.get_meter("graphwire.server").create_counter(
    "graphwire.threads.swept", unit="{thread}", description="Expired threads swept (deleted, or pruned to their newest version)"
)


class ThreadSweeper(Periodic):
    """Sweeps expired threads every ``interval`` seconds (see the module's doc).

    Args:
        book: the thread records.
        runs: the thread slots (and leases) runs take.
        records: the run records (pruned with a ``keep_latest`` thread's versions).
        saver: the checkpointer.
        leases: its lease store (None: it has none; this replica sweeps alone).
        owner: this replica's lease owner id.
        interval: seconds between sweeps.
        batch: records read at once.
    """

    name = "graphwire-thread-sweeper"
    doing = "sweeping expired threads"

    def __init__(
        self,
        book: ThreadBook,
        runs: RunManager,
        records: Records,
        saver: Any,
        *,
        leases: LeaseStore | None,
        owner: str,
        interval: float,
        batch: int = DEFAULT_BATCH,
    ) -> None:
        self.book, self.runs, self.records, self.saver = book, runs, records, saver
        self.batch = batch
        super().__init__(key=SWEEPER_KEY, leases=leases, owner=owner, interval=interval)

    async def tick(self) -> int | None:
        return await self.sweep()

    async def sweep(self, at: datetime | None = None) -> int | None:
        """One sweep of the threads expired at ``at`` (default: now): how many were swept, or None
        when another replica holds the sweeper's lease (it sweeps)."""
        return await self.alone(lambda: self._sweep(at))

    async def _sweep(self, at: datetime | None) -> int:
        n = 0
        for _ in range(MAX_BATCHES):
            found = await self.book.store.aexpired(at or now(), limit=self.batch)
            swept = [await self._one(r.thread_id, r.graph, r.caller_thread, at) for r in found]
            n += sum(swept)
            if len(found) < self.batch or not any(swept):
                break
        if n:
            log.info("threads: %d expired thread(s) swept", n)
        return n

    async def _one(self, key: str, graph: str, caller: str, at: datetime | None) -> bool:
        """Sweep thread ``key`` if it is still expired once held; whether it was (a busy one is left)."""
        try:
            async with self.runs.slot(key, caller, "sweep", enqueue=False) as handle:
                record = await self.book.store.aget(key)
                when = at or now()
                if record is None or record.expires_at is None or record.expires_at > when or record.status == "busy":
                    return False  # updated (or deleted) since it was read
                saver = self.saver
                if record.ttl_strategy == "keep_latest":
                    if await saver.aget_tuple(config(key)) is not None:
                        await prune_one(saver, self.records.store, key, keep_last=1)
                    await self.book.store.aswept(key, record.updated_at)
                elif handle.lease is not None:  # fenced: a replica that lost the thread meanwhile deletes nothing
                    await saver.adelete_thread(key, lease=handle.lease)
                else:
                    await saver.adelete_thread(key)
                    self.records.forget_thread(key)
                    await self.book.forget(key)
        except ThreadBusy:
            return False  # a run holds it (here or on another replica): swept after its run, if still expired
        SWEPT.add(1, {"strategy": record.ttl_strategy or "delete", "graph": graph})
        return True
