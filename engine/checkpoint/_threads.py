"""Thread records, kept in the checkpointer's database beside the checkpoints and the run records.

A host that serves threads to callers (the server) keeps one record per
thread: its graph, the id its caller named it by, a metadata object, when it
was created and last changed, its status (``idle``, ``busy``, ``interrupted``
with its pending interrupts, ``error``) and, when it expires, when and how. The
engine never reads them: as run records (:mod:`engine.checkpoint._runs`), they
are the host's, stored beside the threads so that every replica sees them, and
they go with their thread (the SQL savers' thread delete takes the row).

One contract, :class:`ThreadStore`, three stores: :class:`MemoryThreads`
here (one process), SQLite (:mod:`engine.checkpoint.sqlite._threads`) and
PostgreSQL (:mod:`engine.checkpoint.postgres._threads`). Each SQL saver
carries its own (``saver.threads``); :func:`threads_of` is how a host gets it.

The decisions are pure functions over plain data, shared by the stores:
:func:`merged` (an update's metadata: a shallow merge of top-level keys, as
LangGraph's Agent Server merges it), :func:`contains` (a metadata filter: a
JSON object contained in the record's, as PostgreSQL's ``@>``),
:func:`matches` (a whole :class:`ThreadQuery`), :func:`expiry` (when a record
expires: its ``ttl_seconds`` after its ``updated_at``).

Searching is keyset-paged: a page is ordered by (``created_at`` or
``updated_at``, ``thread_id``), and the next one starts after the last row's
pair (:attr:`ThreadQuery.after`), so a page deep in the listing reads no row
before it (indexes ``threads_created`` / ``threads_updated``).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol, runtime_checkable

from engine.checkpoint._assistants import contains  # a metadata filter: jsonb's ``@>``, one definition for every store

__all__ = [
    "STATUSES", "Expected", "MemoryThreads", "RecordChanged", "ThreadMark", "ThreadQuery", "ThreadRecord", "ThreadStore", "contains",
    "expiry", "matches", "merged", "threads_of",
]  # fmt: skip

#: A thread's statuses: no run holds it (``idle``), a run does (``busy``), its last run
#: stopped at an interrupt (``interrupted``) or failed (``error``).
STATUSES = ("idle", "busy", "interrupted", "error")
#: How an expired thread is swept: deleted, or pruned to its newest version.
STRATEGIES = ("delete", "keep_latest")


@dataclass(slots=True)
class ThreadRecord:
    """One thread, as its host keeps it.

    ``thread_id`` is the checkpointer's thread id (the host's storage key); ``caller_thread``
    the id its caller names it by; ``tenant`` whose it is ("" for no tenant). ``interrupts``:
    the pending interrupts of an ``interrupted`` thread, or the last run's error of an ``error``
    one, as the host encodes them (opaque bytes).
    ``ttl_seconds``/``ttl_strategy``: the thread expires ``ttl_seconds`` after its last update
    and is then swept by ``ttl_strategy`` (:data:`STRATEGIES`); ``expires_at`` is that instant
    (None: never, or not until its next update after a ``keep_latest`` sweep).
    """

    thread_id: str
    graph: str
    caller_thread: str
    created_at: datetime
    updated_at: datetime
    tenant: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    status: str = "idle"
    interrupts: bytes = b""
    ttl_seconds: int | None = None
    ttl_strategy: str | None = None
    expires_at: datetime | None = None

    def copy(self) -> ThreadRecord:
        return dataclasses.replace(self, metadata=copy.deepcopy(self.metadata))


@dataclass(frozen=True, slots=True)
class Expected:
    """What a run's start asks of its thread's record, checked in the start's own write (a
    :class:`ThreadMark`'s ``expected``) instead of in a read before it: the record stored under
    ``key`` is there and is the only one of its tenant's with its caller's thread id, and its
    metadata contains ``holds`` and contains none of ``lacks``' pairs (each a key with that value;
    :func:`contains`). Unmet, the start writes nothing and raises :class:`RecordChanged`.

    A host serving LangGraph's HTTP API checks a run's thread before the run (made, bound,
    labelled or refused); on a chat's later turns there is nothing to do, and this lets the
    start's write say so instead of a read before it."""

    key: str
    holds: dict[str, Any]
    lacks: dict[str, Any] = field(default_factory=dict)

    def met_by(self, records: list[ThreadRecord]) -> bool:
        """Whether ``records`` (the tenant's records of the caller's thread id) meet it."""
        if len(records) != 1 or records[0].thread_id != self.key:
            return False
        metadata = records[0].metadata
        return contains(metadata, self.holds) and not any(contains(metadata, {k: v}) for k, v in self.lacks.items())

    def require(self, records: list[ThreadRecord]) -> None:
        """Raise :meth:`changed` unless ``records`` meet it (:meth:`met_by`)."""
        if not self.met_by(records):
            raise self.changed()

    def changed(self) -> RecordChanged:
        """The error of a start that found the record not as expected."""
        return RecordChanged(f"thread {self.key!r}: its record is not as the run's start expected")


class RecordChanged(Exception):
    """A run's start found its thread's record not as :class:`Expected`: nothing was written."""


@dataclass(frozen=True, slots=True)
class ThreadMark:
    """A mark of a thread's record (:meth:`ThreadStore.amark`'s arguments) that a run store writes
    with a run's record, in the same transaction (``RunStore.astart(..., mark=)``): a run's start
    and end each cost one write, not two. ``expected``: what the start needs of the record
    first (:class:`Expected`; a store that keeps marks checks it in the same transaction)."""

    record: ThreadRecord
    at: datetime
    status: str | None = None
    interrupts: bytes | None = None
    expected: Expected | None = None


#: The columns of a record, in the order the SQL stores keep them.
FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(ThreadRecord))


@dataclass(frozen=True, slots=True)
class ThreadQuery:
    """Which threads a search (or a count) reads: one tenant's, filtered, in one order.

    ``metadata``: contained in the record's (:func:`contains`); ``statuses``, ``caller_ids``:
    any of them (empty: any); times: strict bounds. ``sort_by``: ``created_at`` or
    ``updated_at``, then ``thread_id``; ``after``: the (sort value, thread_id) of the previous
    page's last row. ``limit``: None for a count.
    """

    tenant: str = ""
    graph: str | None = None
    metadata: dict[str, Any] | None = None
    statuses: tuple[str, ...] = ()
    caller_ids: tuple[str, ...] = ()
    created_after: datetime | None = None
    created_before: datetime | None = None
    updated_after: datetime | None = None
    updated_before: datetime | None = None
    sort_by: str = "created_at"
    descending: bool = True
    after: tuple[datetime, str] | None = None
    limit: int | None = None

    def __post_init__(self) -> None:
        if self.sort_by not in ("created_at", "updated_at"):
            raise ValueError(f"threads sort by created_at or updated_at, not {self.sort_by!r}")
        wrong = [s for s in self.statuses if s not in STATUSES]
        if wrong:
            raise ValueError(f"thread statuses are {', '.join(STATUSES)}; not {', '.join(map(repr, wrong))}")


def merged(metadata: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """An update's metadata: ``changes``' top-level keys replace the record's (a shallow merge)."""
    return {**metadata, **changes}


def matches(record: ThreadRecord, query: ThreadQuery) -> bool:
    """Whether ``record`` is one of ``query``'s (its filter; not its page)."""
    if record.tenant != query.tenant or (query.graph is not None and record.graph != query.graph):
        return False
    if query.statuses and record.status not in query.statuses:
        return False
    if query.caller_ids and record.caller_thread not in query.caller_ids:
        return False
    if query.metadata and not contains(record.metadata, query.metadata):
        return False
    bounds = (
        (query.created_after, record.created_at, 1), (query.created_before, record.created_at, -1),
        (query.updated_after, record.updated_at, 1), (query.updated_before, record.updated_at, -1),
    )  # fmt: skip
    for bound, value, sign in bounds:
        if bound is not None and not (value > bound if sign > 0 else value < bound):
            return False
    return True


def sort_key(record: ThreadRecord, sort_by: str) -> tuple[datetime, str]:
    return (record.created_at if sort_by == "created_at" else record.updated_at, record.thread_id)


def expiry(updated_at: datetime, ttl_seconds: int | None) -> datetime | None:
    """When a record updated at ``updated_at`` expires: ``ttl_seconds`` later (None: never)."""
    return None if ttl_seconds is None else updated_at + timedelta(seconds=ttl_seconds)


#: "Leave the TTL as it is" (:meth:`ThreadStore.aupdate`).
KEEP: Any = object()


@runtime_checkable
class ThreadStore(Protocol):
    """Threads' records, shared by every process using one database."""

    async def acreate(self, record: ThreadRecord) -> ThreadRecord | None:
        """Insert ``record`` (its ``expires_at`` from its ttl); None when inserted, else the
        record already kept under its ``thread_id`` (and nothing is written)."""
        ...

    async def aget(self, thread_id: str) -> ThreadRecord | None:
        """The record of ``thread_id``, or None."""
        ...

    async def aupdate(
        self, thread_id: str, at: datetime, *, metadata: dict[str, Any] | None = None, ttl: Any = KEEP
    ) -> ThreadRecord | None:
        """Merge ``metadata`` into the record (:func:`merged`), set its ttl (``(seconds, strategy)``,
        None for none; :data:`KEEP`: as it is), and its ``updated_at`` to ``at``, in one
        transaction; the record as it is now, or None when there is none."""
        ...

    async def amark(
        self, record: ThreadRecord, at: datetime, *, status: str | None = None, interrupts: bytes | None = None
    ) -> None:
        """The thread changed at ``at`` (a run took it, or ended, or a version was written): its
        ``updated_at``, its expiry, and ``status``/``interrupts`` when given. The record is
        ``record`` (so inserted as it is) when the thread has none yet: the first call on a
        thread creates it, and a thread from before records were kept gets one."""
        ...

    async def asearch(self, query: ThreadQuery) -> list[ThreadRecord]:
        """``query``'s page: at most ``query.limit`` records after ``query.after``, in its order."""
        ...

    async def acount(self, query: ThreadQuery) -> int:
        """How many records match ``query``'s filter (its order and page ignored)."""
        ...

    async def aexpired(self, now: datetime, *, limit: int) -> list[ThreadRecord]:
        """At most ``limit`` records expired at ``now`` and not ``busy``, the longest expired first."""
        ...

    async def aswept(self, thread_id: str, if_updated_at: datetime) -> bool:
        """A ``keep_latest`` sweep pruned the thread: it expires no more until its next update
        (if it was not updated since ``if_updated_at``); whether it was changed."""
        ...

    async def adelete(self, thread_id: str) -> None:
        """Delete the record (a SQL saver's thread delete already does)."""
        ...


class MemoryThreads:
    """A :class:`ThreadStore` in this process's memory: for savers without tables
    (``InMemorySaver``, LangGraph's own savers). Gone with the process, as their threads are."""

    def __init__(self) -> None:
        self._records: dict[str, ThreadRecord] = {}

    async def acreate(self, record: ThreadRecord) -> ThreadRecord | None:
        found = self._records.get(record.thread_id)
        if found is not None:
            return found.copy()
        stored = record.copy()
        stored.expires_at = expiry(stored.updated_at, stored.ttl_seconds)
        self._records[record.thread_id] = stored
        return None

    async def aget(self, thread_id: str) -> ThreadRecord | None:
        found = self._records.get(thread_id)
        return None if found is None else found.copy()

    async def aupdate(
        self, thread_id: str, at: datetime, *, metadata: dict[str, Any] | None = None, ttl: Any = KEEP
    ) -> ThreadRecord | None:
        found = self._records.get(thread_id)
        if found is None:
            return None
        if metadata:
            found.metadata = merged(found.metadata, copy.deepcopy(metadata))
        if ttl is not KEEP:
            found.ttl_seconds, found.ttl_strategy = ttl if ttl is not None else (None, None)
        found.updated_at = at
        found.expires_at = expiry(at, found.ttl_seconds)
        return found.copy()

    async def amark(
        self, record: ThreadRecord, at: datetime, *, status: str | None = None, interrupts: bytes | None = None
    ) -> None:
        found = self._records.get(record.thread_id)
        if found is None:
            await self.acreate(record)
            found = self._records[record.thread_id]
        found.updated_at = at
        found.expires_at = expiry(at, found.ttl_seconds)
        if status is not None:
            found.status = status
        if interrupts is not None:
            found.interrupts = interrupts

    async def asearch(self, query: ThreadQuery) -> list[ThreadRecord]:
        found = sorted(
            (r for r in self._records.values() if matches(r, query)), key=lambda r: sort_key(r, query.sort_by), reverse=query.descending
        )
        if query.after is not None:
            after = query.after
            found = [r for r in found if (sort_key(r, query.sort_by) < after if query.descending else sort_key(r, query.sort_by) > after)]
        return [r.copy() for r in found[: query.limit]]

    async def acount(self, query: ThreadQuery) -> int:
        return sum(1 for r in self._records.values() if matches(r, query))

    async def aexpired(self, now: datetime, *, limit: int) -> list[ThreadRecord]:
        found = [r for r in self._records.values() if r.expires_at is not None and r.expires_at <= now and r.status != "busy"]
        return [r.copy() for r in sorted(found, key=lambda r: (r.expires_at, r.thread_id))[:limit]]

    async def aswept(self, thread_id: str, if_updated_at: datetime) -> bool:
        found = self._records.get(thread_id)
        if found is None or found.updated_at != if_updated_at:
            return False
        found.expires_at = None
        return True

    async def adelete(self, thread_id: str) -> None:
        self._records.pop(thread_id, None)


def threads_of(saver: Any) -> ThreadStore:
    """The thread store of ``saver``: its own (``saver.threads``: the SQL savers' table), else a
    new one in this process's memory (open it once per saver: each call makes another)."""
    found = getattr(saver, "threads", None)
    if isinstance(found, ThreadStore):
        return found
    return MemoryThreads()

