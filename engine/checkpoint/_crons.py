"""Crons, kept in the checkpointer's database: runs started on a schedule.

A cron (LangGraph's Agent Server has them) names an assistant, a schedule (a
five-field cron expression, UTC unless a ``timezone`` is named:
:mod:`engine.checkpoint._cron_schedule`) and the body of the runs it starts
(``payload``: input, config, context, metadata...). A cron on a thread
(``thread_id``) runs there each time; a stateless one (``thread_id`` None)
runs on a new thread each time, deleted after the run unless
``on_run_completed`` is "keep". ``next_run_date`` is when it fires next;
past ``end_time`` it fires no more.

:meth:`CronStore.aclaim_due` is how a scheduler takes the crons due: in one
transaction it moves each one's ``next_run_date`` past now and returns them,
so a firing is claimed once, whichever replica claims it, and a restart never
fires it again. Records belong to a tenant (``""``: no tenants), which sees
and changes only its own.

One contract, three stores: :class:`MemoryCrons` here, SQLite
(:mod:`engine.checkpoint.sqlite._crons`) and PostgreSQL
(:mod:`engine.checkpoint.postgres._crons`); :func:`crons_of` gets a saver's.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

from engine.checkpoint._assistants import contains
from engine.checkpoint._cron_schedule import next_fire

__all__ = ["CRON_SORT_KEYS", "CronRecord", "CronSearch", "CronStore", "MemoryCrons", "advanced", "crons_of"]

#: What a search may sort by.
CRON_SORT_KEYS = ("cron_id", "assistant_id", "thread_id", "next_run_date", "end_time", "created_at", "updated_at")
#: What :meth:`CronStore.aupdate` may change.
CHANGEABLE = ("schedule", "timezone", "end_time", "enabled", "payload", "metadata", "on_run_completed", "next_run_date")


@dataclass(slots=True)
class CronRecord:
    """A cron. ``payload``: the run body (a JSON object, LangGraph's shape); ``metadata``: a JSON object;
    ``next_run_date``: when it fires next (None: never again)."""

    cron_id: str
    assistant_id: str
    schedule: str
    created_at: datetime
    updated_at: datetime
    next_run_date: datetime | None
    thread_id: str | None = None
    tenant: str = ""
    user_id: str | None = None
    timezone: str | None = None
    end_time: datetime | None = None
    enabled: bool = True
    on_run_completed: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CronSearch:
    """A search's filter, order and page: every field set must match (``metadata``: contained)."""

    tenant: str = ""
    assistant_id: str | None = None
    thread_id: str | None = None
    enabled: bool | None = None
    metadata: Mapping[str, Any] | None = None
    sort_by: str = "created_at"
    descending: bool = True
    limit: int | None = 10
    offset: int = 0

    def __post_init__(self) -> None:
        if self.sort_by not in CRON_SORT_KEYS:
            raise ValueError(f"sort_by {self.sort_by!r}: one of {', '.join(CRON_SORT_KEYS)}")
        if (self.limit is not None and self.limit < 0) or self.offset < 0:
            raise ValueError("limit and offset: at least 0")


@runtime_checkable
class CronStore(Protocol):
    """Where crons are kept. Every method is one transaction; each names the caller's tenant but :meth:`aclaim_due`."""

    async def acreate(self, record: CronRecord) -> CronRecord:
        """Store ``record`` (a new ``cron_id``)."""
        ...

    async def aget(self, tenant: str, cron_id: str) -> CronRecord | None:
        """The tenant's cron, or None."""
        ...

    async def aupdate(self, tenant: str, cron_id: str, changes: Mapping[str, Any], now: datetime) -> CronRecord | None:
        """The cron with ``changes`` (fields of :data:`CHANGEABLE`), updated at ``now``; None if not found."""
        ...

    async def adelete(self, tenant: str, cron_id: str) -> bool:
        """Delete the tenant's cron; False if there was none."""
        ...

    async def asearch(self, search: CronSearch) -> list[CronRecord]:
        """The crons that match, in the search's order and page."""
        ...

    async def acount(self, search: CronSearch) -> int:
        """How many crons match (the order and page aside)."""
        ...

    async def aclaim_due(self, now: datetime, *, limit: int = 100) -> list[CronRecord]:
        """The enabled crons of every tenant due at ``now`` (``next_run_date`` ≤ now), at most ``limit``, each
        returned as it was (its ``next_run_date``: the firing claimed) while its stored ``next_run_date`` moves
        to its next firing after ``now`` (None past its ``end_time``), in the same transaction: a firing is
        claimed once, by one caller, even when several claim at once."""
        ...


def advanced(record: CronRecord, now: datetime) -> datetime | None:
    """The cron's next firing after ``now`` (None: past its end, or never)."""
    nxt = next_fire(record.schedule, now, record.timezone)
    if nxt is not None and record.end_time is not None and nxt > record.end_time:
        return None
    return nxt


def updated(current: CronRecord, changes: Mapping[str, Any], now: datetime) -> CronRecord:
    """The cron :meth:`CronStore.aupdate` stores (its next firing recomputed when its schedule changed)."""
    unknown = set(changes) - set(CHANGEABLE)
    if unknown:
        raise ValueError(f"not a changeable field of a cron: {sorted(unknown)}")
    out = dataclasses.replace(current, updated_at=now, **dict(changes))
    if ("schedule" in changes or "timezone" in changes or "end_time" in changes) and "next_run_date" not in changes:
        out.next_run_date = advanced(out, now)
    return out


def matches(record: CronRecord, search: CronSearch) -> bool:
    return (
        record.tenant == search.tenant
        and (search.assistant_id is None or record.assistant_id == search.assistant_id)
        and (search.thread_id is None or record.thread_id == search.thread_id)
        and (search.enabled is None or record.enabled == search.enabled)
        and (not search.metadata or contains(record.metadata, dict(search.metadata)))
    )


def page(records: Sequence[CronRecord], search: CronSearch) -> list[CronRecord]:
    """``records`` in the search's order (None last ascending), its page of them."""
    def key(r: CronRecord) -> Any:
        v = getattr(r, search.sort_by)
        return (v is not None, v if v is not None else "", r.cron_id) if search.descending else (v is None, v or "", r.cron_id)

    ordered = sorted(records, key=key, reverse=search.descending)
    end = None if search.limit is None else search.offset + search.limit
    return ordered[search.offset : end]


class MemoryCrons:
    """Crons in this process's memory (a saver without tables of its own)."""

    def __init__(self) -> None:
        self._crons: dict[str, CronRecord] = {}
        self._lock = asyncio.Lock()

    async def acreate(self, record: CronRecord) -> CronRecord:
        async with self._lock:
            if record.cron_id in self._crons:
                raise ValueError(f"cron {record.cron_id!r} exists")
            self._crons[record.cron_id] = copy.deepcopy(record)
            return copy.deepcopy(record)

    async def aget(self, tenant: str, cron_id: str) -> CronRecord | None:
        found = self._crons.get(cron_id)
        return copy.deepcopy(found) if found is not None and found.tenant == tenant else None

    async def aupdate(self, tenant: str, cron_id: str, changes: Mapping[str, Any], now: datetime) -> CronRecord | None:
        async with self._lock:
            found = self._crons.get(cron_id)
            if found is None or found.tenant != tenant:
                return None
            new = self._crons[cron_id] = updated(found, copy.deepcopy(dict(changes)), now)
            return copy.deepcopy(new)

    async def adelete(self, tenant: str, cron_id: str) -> bool:
        async with self._lock:
            found = self._crons.get(cron_id)
            if found is None or found.tenant != tenant:
                return False
            del self._crons[cron_id]
            return True

    async def asearch(self, search: CronSearch) -> list[CronRecord]:
        return copy.deepcopy(page([r for r in self._crons.values() if matches(r, search)], search))

    async def acount(self, search: CronSearch) -> int:
        return sum(matches(r, search) for r in self._crons.values())

    async def aclaim_due(self, now: datetime, *, limit: int = 100) -> list[CronRecord]:
        async with self._lock:
            due = sorted(
                (r for r in self._crons.values() if r.enabled and r.next_run_date is not None and r.next_run_date <= now),
                key=lambda r: (r.next_run_date, r.cron_id),
            )[:limit]
            out = [copy.deepcopy(r) for r in due]
            for r in due:
                r.next_run_date = advanced(r, now)
            return out


def crons_of(saver: Any) -> CronStore:
    """The crons of ``saver``'s database (``saver.crons``: the SQL savers' tables), else a new store in memory."""
    found = getattr(saver, "crons", None)
    if isinstance(found, CronStore):
        return found
    return MemoryCrons()
