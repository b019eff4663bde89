"""Run records and their events, kept in the checkpointer's database (durable turns).

A host that runs graphs for callers across a network (the server) records
each run: which thread and call, its status, the replica running it and the
attempt, the ``request_id`` that makes its call idempotent, and, for runs that
can be joined or continued, every event it sent (opaque bytes keyed by
``run_id`` and ``seq``). The engine never reads them: they are the host's
memory of its calls, stored beside the threads so that every replica sees
them, they go with their thread (deleted with it), and no other service is
needed.

One contract, :class:`RunStore`, three stores: :class:`MemoryRuns` here (one
process; what a saver without tables of its own gets), SQLite
(:mod:`engine.checkpoint.sqlite._runs`) and PostgreSQL
(:mod:`engine.checkpoint.postgres._runs`). Each SQL saver carries its own
(``saver.runs``) on its connections, as it carries its leases and messages,
handed the saver's means to run SQL (never the saver itself); :func:`runs_of`
is how a host gets it (one in memory for any other saver). A host that keeps
an outline of each run's end (see :class:`RunRecord`) asks the store for a
view that makes it (:meth:`RunStore.outlined`).

Times are UTC datetimes chosen by the host (a replica's clock): they label
records and bound the retention window, and no decision between replicas
depends on them (takeover does: the database's lease, see ``aorphans``).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Protocol, Sequence, TypeVar, runtime_checkable

from engine.checkpoint._lease import Lease, LeaseStore
from engine.checkpoint._threads import ThreadMark, ThreadStore

__all__ = ["ACTIVE", "MemoryRuns", "Outline", "RunRecord", "RunStore", "runs_of", "with_outline"]

#: Statuses of a run that has not ended.
ACTIVE = ("PENDING", "RUNNING", "RECOVERING")


@dataclass(slots=True)
class RunRecord:
    """One run of a graph on a thread, as its host recorded it.

    ``thread_id`` is the checkpointer's thread id (the host's storage key);
    ``caller_thread`` the id the caller named it by. ``request`` is the call
    as the host can replay it (opaque bytes), ``fingerprint`` what a retry's
    request must equal. ``epoch``: the lease epoch the run holds its thread
    by (None without leases). ``durable``: continued by another replica when
    this one dies. ``keeps_events``: its events are stored (``aadd_events``).
    ``started``/``finished``: its first and last events, as sent. ``outcome``: the last
    event as a listing reads it (the store's ``outline`` of ``finished``: without the final
    state, say), so that listing a thread's runs does not read every run's final state.
    ``replaces``/``replaced_by``: the run this one cancelled as it started, and the run that
    cancelled this one (a host's double-texting strategies), else None.
    """

    run_id: str
    thread_id: str
    graph: str
    caller_thread: str
    call: str
    status: str
    replica: str
    started_at: datetime
    request_id: str | None = None
    fingerprint: bytes | None = None
    request: bytes = b""
    call_json: str = "{}"
    epoch: int | None = None
    attempts: int = 1
    durable: bool = False
    keeps_events: bool = False
    on_disconnect: int = 0
    background: bool = False
    ended_at: datetime | None = None
    checkpoint_id: str | None = None
    started: bytes | None = None
    finished: bytes | None = None
    last_seq: int = 0
    outcome: bytes | None = None
    replaces: str | None = None
    replaced_by: str | None = None

    def copy(self) -> RunRecord:
        return dataclasses.replace(self)


#: The columns of a record, in the order the SQL stores keep them.
FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RunRecord))
_BYTES = ("fingerprint", "request", "started", "finished", "outcome")
#: Makes a record's ``outcome`` from its ``finished`` (see :class:`RunRecord`); a store given
#: none keeps no outcome, and its listings read ``finished`` in its place.
Outline = Callable[[bytes], bytes]
_S = TypeVar("_S")


#: What :meth:`RunStore.aupdate` may change.
UPDATABLE = frozenset({
    "status", "replica", "epoch", "attempts", "request_id", "ended_at", "checkpoint_id", "started", "finished", "last_seq",
    "outcome", "replaced_by",
})  # fmt: skip


def outlined(changes: dict[str, Any], outline: Outline | None) -> dict[str, Any]:
    """``changes`` (checked: :data:`UPDATABLE`) with the ``outcome`` of the ``finished`` they set."""
    check_changes(changes)
    if outline is not None and changes.get("finished") is not None and "outcome" not in changes:
        return {**changes, "outcome": outline(changes["finished"])}
    return changes


def outlined_record(record: RunRecord, outline: Outline | None) -> RunRecord:
    """``record`` with the ``outcome`` of its ``finished``, if it has one (a record seldom starts ended)."""
    finished = record.finished
    if outline is not None and finished is not None and record.outcome is None:
        record = record.copy()
        record.outcome = outline(finished)
    return record


def slim(record: RunRecord) -> RunRecord:
    """``record`` as a listing gives it, unless asked for all (``alist(full=True)``): without
    what may be large and a listing does not show (the call as it can be replayed, the last
    event with the final state), ``outcome`` standing in for ``finished``."""
    out = record.copy()
    if out.outcome is None:
        out.outcome = out.finished  # a record written before outcomes were kept, or by a store without an outline
    out.request, out.finished = b"", None
    return out


def with_outline(store: _S, outline: Outline | None) -> _S:
    """``store`` as a view that outlines each ``finished`` it writes with ``outline``: the same
    tables (or memory) and connections, shared; only the outline differs."""
    view = copy.copy(store)
    view._outline = outline  # type: ignore[attr-defined]  # every store of this module keeps its outline there
    return view


@runtime_checkable
class RunStore(Protocol):
    """Runs' records and events, shared by every process using one database."""

    def outlined(self, outline: Outline | None) -> RunStore:
        """This store, keeping ``outline(finished)`` as the ``outcome`` of every record it ends
        (see :class:`RunRecord`): a view on the same data."""
        ...

    @property
    def threads(self) -> ThreadStore | None:
        """The thread store whose records this store marks with its own writes (``mark=``), in
        their transaction; None: it takes no mark."""
        ...

    async def astart(
        self, record: RunRecord, events: Sequence[tuple[int, bytes]] = (), *, mark: ThreadMark | None = None
    ) -> RunRecord | None:
        """Insert ``record`` and its first ``events`` (as :meth:`aadd_events`), and ``mark``
        its thread's record (as :attr:`threads`' ``amark``), in one transaction; None when
        inserted. A record of the same thread with the same ``request_id`` wins instead: it is
        returned and nothing is written (whether it is too old to count is the caller's business).

        Raises:
            CheckpointError: the store could not be reached.
        """
        ...

    @property
    def leases(self) -> LeaseStore | None:
        """The lease store whose leases this store takes and lets go of with a run's records; None: none."""
        ...

    async def astart_taking(
        self, record: RunRecord, owner: str, ttl: float, *, mark: ThreadMark
    ) -> tuple[Lease | None, RunRecord | None]:
        """Take the thread's lease for ``owner`` (as :attr:`leases`' ``aacquire_lease``) and, only if taken,
        :meth:`astart` ``record`` under its epoch with ``mark``, in one transaction: (the lease, None when
        another holds it and nothing was written; what :meth:`astart` returns). ValueError without
        :attr:`leases` and :attr:`threads`."""
        ...

    async def aupdate(
        self, run_id: str, if_attempts: int, /, *, mark: ThreadMark | None = None, release: Lease | None = None, **changes: Any
    ) -> bool:
        """Change fields of ``run_id`` (among :data:`UPDATABLE`) if its ``attempts``
        is still ``if_attempts`` (no other replica took it over); whether it was. ``mark``: as
        :meth:`astart`'s, written whether or not the change applies; ``release``: the run's lease,
        let go of (as :attr:`leases`' ``arelease_lease``) in the same transaction, whether or not it applies."""
        ...

    async def afinish(
        self, run_id: str, if_attempts: int, /, record: RunRecord | None, events: Sequence[tuple[int, bytes]],
        *, mark: ThreadMark | None = None, release: Lease | None = None, **changes: Any,
    ) -> bool:
        """:meth:`aadd_events` (of ``record``) and :meth:`aupdate` in one transaction: a run's
        last events and its end. The events (and ``mark``, and ``release``) are stored whether or not the update applies."""
        ...

    async def aget(self, run_id: str) -> RunRecord | None:
        """The record of ``run_id``, or None."""
        ...

    async def afind(self, thread_id: str, request_id: str) -> RunRecord | None:
        """The record of ``thread_id``'s run started with ``request_id``, or None."""
        ...

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None, full: bool = False
    ) -> list[RunRecord]:
        """``thread_id``'s runs, newest first (by ``started_at``, then ``run_id``), at most
        ``limit`` of them, reading no more rows than that (a page costs the same on a thread of
        any length); ``before``: only the runs after that one in this order (KeyError when it is
        not a run of the thread). Without ``full``, each record is :func:`slim`: its
        ``request`` and ``finished`` are not read."""
        ...

    async def aactive(self, thread_id: str) -> list[RunRecord]:
        """``thread_id``'s runs that have not ended (:data:`ACTIVE`), :func:`slim`."""
        ...

    async def aadd_events(self, record: RunRecord, events: Sequence[tuple[int, bytes]]) -> None:
        """Store events ``(seq, bytes)`` of ``record``'s run and move its ``last_seq``
        to the last of them (a seq stored twice reads once, from its first copy but in a
        race of two writers, see :func:`events_of_rows`). The SQL stores keep them in one
        row (:func:`engine.checkpoint._run_sql.pack_events`)."""
        ...

    async def aadd_event_batches(self, batches: Sequence[tuple[RunRecord, Sequence[tuple[int, bytes]]]]) -> None:
        """:meth:`aadd_events` of several runs at once, in one transaction (a host's runs
        streaming together cost one write, not one each)."""
        ...

    async def aevents(self, run_id: str, after_seq: int, *, limit: int = 256) -> list[tuple[int, bytes]]:
        """Stored events of ``run_id`` with seq > ``after_seq``, in seq order, at most ``limit``."""
        ...

    async def aorphans(self, replica: str, *, limit: int = 32) -> list[RunRecord]:
        """Active runs whose replica is gone: on a store with leases, the thread's
        live lease is not the run's (its replica and epoch); without leases (one
        process per database), any run not of ``replica``."""
        ...

    async def aexpire(self, ended_before: datetime) -> int:
        """Delete the stored events of runs that ended before ``ended_before``; how many events."""
        ...

    async def aprune(self, thread_id: str, *, ended_before: datetime | None = None, keep_last: int | None = None) -> int:
        """Delete ended runs of ``thread_id`` (and their events): those that ended before
        ``ended_before``, or all but the ``keep_last`` newest; how many."""
        ...

    async def adelete(self, run_id: str) -> bool:
        """Delete the run ``run_id`` (and its events) if it has ended; whether it did."""
        ...


class MemoryRuns:
    """A :class:`RunStore` in this process's memory: for savers without tables
    (``InMemorySaver``, LangGraph's own savers). Gone with the process, as
    their threads are; no other process shares it."""

    threads: ThreadStore | None = None  # its threads' records are kept apart (threads_of): it takes no mark
    leases: LeaseStore | None = None  # nor a lease

    def __init__(self, *, outline: Outline | None = None) -> None:
        self._runs: dict[str, RunRecord] = {}
        self._events: dict[str, dict[int, bytes]] = {}
        self._lock = asyncio.Lock()
        self._outline = outline

    def outlined(self, outline: Outline | None) -> MemoryRuns:
        return with_outline(self, outline)

    async def astart(
        self, record: RunRecord, events: Sequence[tuple[int, bytes]] = (), *, mark: ThreadMark | None = None
    ) -> RunRecord | None:
        no_mark(self, mark)
        if record.request_id is not None:
            found = await self.afind(record.thread_id, record.request_id)
            if found is not None:
                return found
        self._runs[record.run_id] = outlined_record(record, self._outline).copy()
        await self.aadd_events(record, events)
        return None

    async def astart_taking(
        self, record: RunRecord, owner: str, ttl: float, *, mark: ThreadMark
    ) -> tuple[Lease | None, RunRecord | None]:
        raise ValueError("MemoryRuns keeps no lease: take it on its own lease store")

    async def aupdate(
        self, run_id: str, if_attempts: int, /, *, mark: ThreadMark | None = None, release: Lease | None = None, **changes: Any
    ) -> bool:
        no_mark(self, mark, release)
        changes = outlined(changes, self._outline)
        found = self._runs.get(run_id)
        if found is None or found.attempts != if_attempts:
            return False
        for k, v in changes.items():
            setattr(found, k, v)
        return True

    async def afinish(
        self, run_id: str, if_attempts: int, /, record: RunRecord | None, events: Sequence[tuple[int, bytes]],
        *, mark: ThreadMark | None = None, release: Lease | None = None, **changes: Any,
    ) -> bool:
        no_mark(self, mark, release)
        changes = outlined(changes, self._outline)  # checked before anything is stored
        if events and record is not None:
            await self.aadd_events(record, events)
        return await self.aupdate(run_id, if_attempts, **changes)

    async def aget(self, run_id: str) -> RunRecord | None:
        found = self._runs.get(run_id)
        return None if found is None else found.copy()

    async def afind(self, thread_id: str, request_id: str) -> RunRecord | None:
        for r in self._runs.values():
            if r.thread_id == thread_id and r.request_id == request_id:
                return r.copy()
        return None

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None, full: bool = False
    ) -> list[RunRecord]:
        mine = sorted((r for r in self._runs.values() if r.thread_id == thread_id), key=lambda r: (r.started_at, r.run_id), reverse=True)
        if before is not None:
            ids = [r.run_id for r in mine]
            if before not in ids:
                raise KeyError(before)
            mine = mine[ids.index(before) + 1 :]
        return [r.copy() if full else slim(r) for r in (mine[:limit] if limit else mine)]

    async def aactive(self, thread_id: str) -> list[RunRecord]:
        return [slim(r) for r in self._runs.values() if r.thread_id == thread_id and r.status in ACTIVE]

    async def aadd_events(self, record: RunRecord, events: Sequence[tuple[int, bytes]]) -> None:
        if not events:
            return
        stored = self._events.setdefault(record.run_id, {})
        for seq, data in events:
            stored.setdefault(seq, data)
        found = self._runs.get(record.run_id)
        if found is not None:
            found.last_seq = max(found.last_seq, events[-1][0])

    async def aadd_event_batches(self, batches: Sequence[tuple[RunRecord, Sequence[tuple[int, bytes]]]]) -> None:
        for record, events in batches:
            await self.aadd_events(record, events)

    async def aevents(self, run_id: str, after_seq: int, *, limit: int = 256) -> list[tuple[int, bytes]]:
        stored = self._events.get(run_id, {})
        return sorted((s, d) for s, d in stored.items() if s > after_seq)[:limit]

    async def aorphans(self, replica: str, *, limit: int = 32) -> list[RunRecord]:
        found = [r for r in self._runs.values() if r.status in ACTIVE and r.replica != replica]
        return [r.copy() for r in found[:limit]]

    async def aexpire(self, ended_before: datetime) -> int:
        gone = [k for k in self._events if (r := self._runs.get(k)) is None or (r.ended_at is not None and r.ended_at < ended_before)]
        return sum(len(self._events.pop(k)) for k in gone)

    async def aprune(self, thread_id: str, *, ended_before: datetime | None = None, keep_last: int | None = None) -> int:
        ended = [r for r in await self.alist(thread_id) if r.status not in ACTIVE]
        gone = prune_choice(ended, ended_before, keep_last)
        for r in gone:
            self._runs.pop(r.run_id, None)
            self._events.pop(r.run_id, None)
        return len(gone)

    async def adelete(self, run_id: str) -> bool:
        found = self._runs.get(run_id)
        if found is None or found.status in ACTIVE:
            return False
        del self._runs[run_id]
        self._events.pop(run_id, None)
        return True

    def forget_thread(self, thread_id: str) -> None:
        """Drop ``thread_id``'s runs (its saver deleted the thread)."""
        for k in [k for k, r in self._runs.items() if r.thread_id == thread_id]:
            del self._runs[k]
            self._events.pop(k, None)


def prune_choice(ended_newest_first: list[RunRecord], ended_before: datetime | None, keep_last: int | None) -> list[RunRecord]:
    """Which ended runs a prune deletes (pure): past ``keep_last``, or ended before ``ended_before``."""
    gone = []
    for i, r in enumerate(ended_newest_first):
        if keep_last is not None and i >= keep_last:
            gone.append(r)
        elif ended_before is not None and r.ended_at is not None and r.ended_at < ended_before:
            gone.append(r)
    return gone


def no_mark(store: Any, mark: ThreadMark | None, release: Lease | None = None) -> None:
    """A store that keeps no thread records (``threads`` None) is given no mark, and one that keeps no
    leases (``leases`` None) no lease to let go of: either would be lost."""
    if mark is not None and store.threads is None:
        raise ValueError(f"{type(store).__name__} writes no thread record: mark the thread on its own thread store")
    if release is not None and store.leases is None:
        raise ValueError(f"{type(store).__name__} keeps no lease: release it on its own lease store")


def check_changes(changes: dict[str, Any]) -> None:
    wrong = set(changes) - UPDATABLE
    if wrong:
        raise ValueError(f"a run record's {sorted(wrong)} cannot change")


def runs_of(saver: Any) -> RunStore:
    """The run store of ``saver``: its own (``saver.runs``: the SQL savers' tables), else a new
    one in this process's memory (the in-memory saver, LangGraph's own savers)."""
    found = getattr(saver, "runs", None)
    if isinstance(found, RunStore):
        return found
    return MemoryRuns()
