"""Runs' events on their way to the database, then to their callers: one write for every run at once.

A run that keeps its events (:mod:`server._records`) sends each one only once
it is stored. Each run has its :class:`EventLog`; the replica has one
:class:`EventWriter`, which stores the events waiting in every log in one
call of the store (:meth:`~engine.checkpoint._runs.RunStore.aadd_event_batches`:
one transaction on SQLite, one statement on PostgreSQL). A write starts a
moment (:data:`EventWriter.FLUSH_SECONDS`) after the first event not yet
stored, and what arrives while it is in flight goes in the next, right
after. So the writes a replica makes do not grow with the runs it holds:
32 runs streaming at once cost about the writes of one (measured: each
separate write is a hop to the saver's worker thread and a commit, ~230 µs of
CPU on SQLite, more than the rows it carries).

An event stored naming a version instead of holding its values
(:mod:`server._final_values`) is stored only once that version is: a joiner
reads the version as soon as it reads the event. The run reports its stored
versions (:class:`~engine.host.Landing`); a write takes a log's events up to
the first naming a version not stored yet, and asks the run's writer to write
now, if it lingers (the rest follow once it has).

A run's end (:meth:`EventLog.finish`) is its own write: what waits in its log,
its last event and its record's end, in one transaction. A write that fails
fails the runs it carried (:attr:`EventLog.failed`), as a checkpoint write
would: a caller must not see events a joiner could not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from engine.host import Landing, LastWrite, Lease, RunRecord, RunStore, ThreadMark

__all__ = ["EventLog", "EventWriter"]

#: (message, its size, initial metadata to send before it or None, what to store for it when not its own bytes:
#: server._final_values' form and the version it names, or None)
_Item = tuple[Any, int, Any, tuple[bytes, str] | None]


class EventWriter:
    """The events of every run of one replica waiting to be stored, written together (see the module's doc)."""

    #: How long a write waits after the first event not yet stored: the events of that moment go together.
    FLUSH_SECONDS = 0.02

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self._waiting: dict[EventLog, None] = {}  # logs with events no write has taken yet, in order
        self._carried: dict[EventLog, None] = {}  # the logs the write in flight carries
        self._written: asyncio.Future[None] | None = None  # done when the write in flight is
        self._task: asyncio.Task[None] | None = None

    def want(self, log: EventLog) -> None:
        """``log`` has events to store: in the next write."""
        self._waiting[log] = None
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._loop())

    def drop(self, log: EventLog) -> None:
        """``log``'s waiting events go elsewhere (with its end), or nowhere (it closed)."""
        self._waiting.pop(log, None)

    async def carried(self, log: EventLog) -> None:
        """Until the write in flight ends, if it carries ``log``'s events."""
        if log in self._carried and self._written is not None:
            await asyncio.shield(self._written)

    async def _loop(self) -> None:
        await asyncio.sleep(self.FLUSH_SECONDS)
        while self._waiting:
            logs, self._waiting = self._waiting, {}
            batches = [(log, log.take()) for log in logs]
            batches = [(log, items) for log, items in batches if items]
            if not batches:
                continue
            self._carried = dict.fromkeys(log for log, _ in batches)
            written = self._written = asyncio.get_running_loop().create_future()
            try:
                await self.store.aadd_event_batches([(log.record, log.encoded(items)) for log, items in batches])
            except BaseException as exc:
                for log, _ in batches:
                    log.failed = exc
                if not isinstance(exc, Exception):
                    raise
            else:
                for log, items in batches:
                    log.sent(items)
            finally:
                written.set_result(None)
                self._carried = {}


class LogRecords(Protocol):
    """What a run's log uses of the replica's records (:class:`server._records.Records`, which
    holds the replica's :class:`EventWriter`, so it is named here by what it offers)."""

    store: RunStore
    writer: EventWriter
    local: dict[str, asyncio.Event]


class EventLog:
    """One run's events on their way to the database and then to the caller (``forward``).

    :meth:`add` never waits; the replica's :class:`EventWriter` stores what
    waits, and ``forward(message, size, metadata)`` gets each event after it
    is stored, in order. :meth:`finish` stores what waits with the run's last
    event and its record's end, in one transaction: a short run whose caller
    asked only for RunStarted and RunFinished writes once more than a run that
    keeps no events.
    """

    #: How long a RunStarted alone waits for company, in a run with a caller (not a background one,
    #: whose call returns on it): a run's first and last events in one write whenever the run is
    #: shorter, at the cost of a later RunStarted for longer runs with nothing else to send.
    ALONE_SECONDS = 1.0

    def __init__(
        self, records: LogRecords, record: RunRecord, forward: Callable[[Any, int, Any], None], landing: Landing | None = None
    ) -> None:
        """``records``: the replica's :class:`server._records.Records` (its writer, store and local runs);
        ``landing``: what the run tells of its stored versions (None: nothing is held for them)."""
        self.records = records
        self.record = record
        self.forward = forward
        self.landing = landing  # its notify calls landed() (server._stream)
        self.failed: BaseException | None = None
        self._writer: EventWriter = records.writer
        self._pending: list[_Item] = []
        self._closed = False
        # While a RunStarted waits alone for company: the timer that hands it to the writer anyway.
        self._alone: asyncio.TimerHandle | None = None
        self._wake = records.local.setdefault(record.run_id, asyncio.Event())

    def add(self, message: Any, size: int, metadata: Any, stored: tuple[bytes, str] | None = None) -> None:
        """``message`` to store (as ``stored``'s bytes when given: server._final_values' form, naming
        ``stored``'s version, stored once that version is) and then forward."""
        if self.failed is not None:
            return
        self._pending.append((message, size, metadata, stored))
        if self._alone is not None:  # company came: they are written together
            self._alone.cancel()
            self._alone = None
        if len(self._pending) == 1 and not self.record.background and message.HasField("run_started"):
            delay = self.ALONE_SECONDS - EventWriter.FLUSH_SECONDS
            self._alone = asyncio.get_running_loop().call_later(delay, self._writer.want, self)
        else:
            self._writer.want(self)

    def take(self) -> list[_Item]:
        """The writer takes what waits, up to the first event naming a version the run has not stored
        yet (its writer is asked to write now; the rest waits for :meth:`landed`)."""
        items = self._pending
        landing = self.landing
        if landing is not None:
            for i, (_, _, _, stored) in enumerate(items):
                if stored is not None and not landing.stored(stored[1]):
                    self._pending = items[i:]
                    landing.hurry()
                    return items[:i]
        self._pending = []
        return items

    def landed(self) -> None:
        """The run stored versions: what waited for them goes in the next write."""
        if self._pending and self.failed is None and not self._closed:
            self._writer.want(self)

    def _take_all(self, versions: LastWrite | None) -> list[_Item]:
        """What waits, for the run's end: an event naming a version the run never stored (its write
        failed) is stored whole; one naming a version of ``versions`` (stored with the end) as it is."""
        items, self._pending = self._pending, []
        landing = self.landing
        if landing is None:
            return items
        last = versions.last_id if versions is not None else ""
        return [(m, size, md, s if s is None or landing.stored(s[1]) or s[1] <= last else None) for m, size, md, s in items]

    @staticmethod
    def encoded(items: list[_Item]) -> list[tuple[int, bytes]]:
        return [(m.seq, m.SerializeToString() if stored is None else stored[0]) for m, _, _, stored in items]

    def sent(self, items: list[_Item]) -> None:
        """``items`` are stored: on to the caller, and joiners woken."""
        if items:
            self.record.last_seq = items[-1][0].seq
        if not self._closed:
            for message, size, metadata, _ in items:
                self.forward(message, size, metadata)
        self._wake_joiners()

    def _wake_joiners(self) -> None:
        self._wake.set()
        self._wake.clear()

    def _stop_waiting(self) -> None:
        if self._alone is not None:
            self._alone.cancel()
            self._alone = None
        self._writer.drop(self)

    async def finish(
        self, final: Any, *, mark: ThreadMark | None = None, release: Lease | None = None, versions: LastWrite | None = None, **changes: Any
    ) -> bool:
        """Store what waits, ``final``, the record's ``changes`` and its thread's ``mark`` together, with the
        run's last ``versions`` if given (then forward what waited, not ``final``: the caller's); whether the
        record took the changes."""
        self._stop_waiting()  # what waits goes with the end
        await self._writer.carried(self)  # events of ours in a write in flight: stored first, in order
        if self.failed is not None:
            raise self.failed
        items = self._take_all(versions)
        events = self.encoded(items) + [(final.seq, changes.get("finished") or final.SerializeToString())]  # stored twice, made once
        if versions is not None:
            changes["versions"] = versions  # (a store that takes them: server._stream's ends_with_versions)
        ok = await self.records.store.afinish(self.record.run_id, self.record.attempts, self.record, events, mark=mark, release=release, **changes)
        self.sent(items)
        self.record.last_seq = final.seq
        return ok

    async def close(self) -> None:
        """The run is over here: wake its joiners a last time and stop tracking it."""
        self._stop_waiting()
        self._closed = True  # a write in flight still stores ours; nothing more is forwarded
        self._pending = []
        self._wake_joiners()
        if self.records.local.get(self.record.run_id) is self._wake:
            del self.records.local[self.record.run_id]
