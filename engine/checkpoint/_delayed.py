"""Delayed runs (LangGraph's ``after_seconds``), kept in the checkpointer's database until they start.

A run asked for with ``after_seconds`` gets a row here when it is asked for,
before its caller hears of it: its id (the run's id once it runs), its
tenant, its thread (None: a stateless run's, made when it starts), the run's
body as the caller sent it, and ``not_before``. A starter
(:mod:`server._delayed_starter`, one replica at a time) claims the rows due
(:meth:`DelayedRuns.aclaim_due`: their ``not_before`` moved ``hold`` seconds on
in the same transaction, so no other claim takes them meanwhile, and a
starter killed before starting one leaves it to be claimed again after),
starts each run, and removes its row (:meth:`DelayedRuns.adone`): the run's
record takes over. A row waiting can be cancelled (:meth:`DelayedRuns.aend`,
status "cancelled"), and one that could not start says why (status "error").

One contract, three stores: :class:`MemoryDelayed` here, SQLite
(:mod:`engine.checkpoint.sqlite._delayed`) and PostgreSQL
(:mod:`engine.checkpoint.postgres._delayed`); :func:`delayed_of` gets a saver's.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol, runtime_checkable

__all__ = ["DelayedRun", "DelayedRuns", "MemoryDelayed", "delayed_of"]


@dataclass(slots=True)
class DelayedRun:
    """A run that starts at ``not_before``: ``body`` (a JSON object as text) on ``thread_id`` (the caller's id;
    None: stateless) of ``tenant``. ``status``: "pending", "cancelled" or "error" (``message`` says why)."""

    run_id: str
    tenant: str
    thread_id: str | None
    body: str
    not_before: datetime
    created_at: datetime
    status: str = "pending"
    message: str = ""


@runtime_checkable
class DelayedRuns(Protocol):
    """Where delayed runs wait. Every method is one transaction."""

    async def aadd(self, record: DelayedRun) -> None:
        """Keep ``record`` (its ``run_id`` is new)."""
        ...

    async def aget(self, run_id: str) -> DelayedRun | None:
        """``run_id``'s row, or None (never asked for, or started)."""
        ...

    async def alist(self, tenant: str, thread_id: str) -> list[DelayedRun]:
        """The rows of ``thread_id`` of ``tenant``, newest first."""
        ...

    async def aclaim_due(self, now: datetime, hold: float, *, limit: int = 100) -> list[DelayedRun]:
        """The pending rows due at ``now`` (oldest first, at most ``limit``), each returned as it was while its
        stored ``not_before`` moves to ``now + hold`` seconds: no other claim takes it until then."""
        ...

    async def aend(self, run_id: str, status: str, message: str = "") -> bool:
        """``run_id``'s pending row ended without starting (``status`` "cancelled" or "error"); False when
        there is no pending row (started, or ended already)."""
        ...

    async def adone(self, run_id: str) -> None:
        """``run_id`` started (its record takes over), or its thread is gone: remove its row."""
        ...


class MemoryDelayed:
    """Delayed runs in this process's memory (a saver without tables of its own)."""

    def __init__(self) -> None:
        self._rows: dict[str, DelayedRun] = {}
        self._lock = asyncio.Lock()

    async def aadd(self, record: DelayedRun) -> None:
        async with self._lock:
            self._rows.setdefault(record.run_id, copy.deepcopy(record))

    async def aget(self, run_id: str) -> DelayedRun | None:
        async with self._lock:
            found = self._rows.get(run_id)
            return copy.deepcopy(found) if found is not None else None

    async def alist(self, tenant: str, thread_id: str) -> list[DelayedRun]:
        async with self._lock:
            mine = [copy.deepcopy(r) for r in self._rows.values() if r.tenant == tenant and r.thread_id == thread_id]
            return sorted(mine, key=lambda r: (r.created_at, r.run_id), reverse=True)

    async def aclaim_due(self, now: datetime, hold: float, *, limit: int = 100) -> list[DelayedRun]:
        async with self._lock:
            pending = (r for r in self._rows.values() if r.status == "pending" and r.not_before <= now)
            due = sorted(pending, key=lambda r: (r.not_before, r.run_id))[:limit]
            out = [copy.deepcopy(r) for r in due]
            for r in due:
                r.not_before = now + timedelta(seconds=hold)
            return out

    async def aend(self, run_id: str, status: str, message: str = "") -> bool:
        async with self._lock:
            found = self._rows.get(run_id)
            if found is None or found.status != "pending":
                return False
            self._rows[run_id] = dataclasses.replace(found, status=status, message=message)
            return True

    async def adone(self, run_id: str) -> None:
        async with self._lock:
            self._rows.pop(run_id, None)


def delayed_of(saver: Any) -> DelayedRuns:
    """The delayed runs of ``saver``'s database (``saver.delayed``), else a new store in memory."""
    found = getattr(saver, "delayed", None)
    if isinstance(found, DelayedRuns):
        return found
    return MemoryDelayed()
