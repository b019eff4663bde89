"""Run records on SQLite: the ``runs`` and ``run_events`` tables (migrations 0004, 0005, 0006).

A :class:`~engine.checkpoint._runs.RunStore` on a :class:`SqliteSaver`'s one
connection, its lock and its worker thread (so no call blocks the event loop,
and each is one transaction): the saver carries one (``saver.runs``), handed
its means to run SQL, ``work`` and ``transaction``. One process serves a file (the serving lock),
so a run that is active in the table and not of this process's replica was
left by a process that is gone (:meth:`SqliteRuns.aorphans`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from datetime import datetime, timezone
from typing import Any, Protocol, Sequence

from engine.checkpoint._runs import ACTIVE, FIELDS, Outline, RunRecord, check_changes, no_mark, outlined, outlined_record, prune_choice, with_outline
from engine.checkpoint._run_sql import events_of_rows, listed_columns, listing_sql, pack_events, record_of
 # fmt: skip
from engine.checkpoint._lease import Lease, LeaseStore
from engine.checkpoint._threads import ThreadMark, ThreadStore
from engine.checkpoint.sqlite._prepared import Ending

__all__ = ["SqliteRuns"]


class _Threads(ThreadStore, Protocol):
    """The file's thread store (:class:`~engine.checkpoint.sqlite._threads.SqliteThreads`, which imports this module)."""

    def mark_in(self, cur: Any, mark: ThreadMark) -> None:
        """Write ``mark`` in the transaction of ``cur``."""

    def expect_in(self, cur: Any, mark: ThreadMark) -> None:
        """Raise ``RecordChanged`` unless the record is as ``mark.expected`` says, in the transaction of ``cur``."""

_COLUMNS = ", ".join(FIELDS)
_ACTIVE = ", ".join(f"'{s}'" for s in ACTIVE)  # constants of ours, not input
INSERT = f"INSERT INTO runs ({_COLUMNS}) VALUES ({', '.join('?' for _ in FIELDS)}) ON CONFLICT DO NOTHING"
SELECT = f"SELECT {_COLUMNS} FROM runs WHERE run_id = ?"
FIND = f"SELECT {_COLUMNS} FROM runs WHERE thread_id = ? AND request_id = ?"
_LISTED = listed_columns("X''")  # a listing's columns (engine.checkpoint._runs.slim)
LIST = listing_sql("runs", lambda name: f":{name}", "X''")  # by (full, before given); LIMIT -1: all
IS_RUN_OF = "SELECT 1 FROM runs WHERE run_id = ? AND thread_id = ?"
ACTIVE_OF = f"SELECT {_LISTED} FROM runs WHERE thread_id = ? AND status IN ({_ACTIVE})"
# A write's events: one row (engine.checkpoint._run_sql.pack_events).
ADD_EVENTS = "INSERT INTO run_events (run_id, seq, last_seq, thread_id, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
MOVE_LAST_SEQ = "UPDATE runs SET last_seq = max(last_seq, ?) WHERE run_id = ?"
EVENTS = "SELECT seq, last_seq, data FROM run_events WHERE run_id = ? AND last_seq > ? AND seq > ? ORDER BY seq LIMIT ?"
ORPHANS = f"SELECT {_COLUMNS} FROM runs WHERE status IN ({_ACTIVE}) AND replica != ? LIMIT ?"
EXPIRE = "DELETE FROM run_events WHERE run_id IN (SELECT run_id FROM runs WHERE ended_at IS NOT NULL AND ended_at < ?)"
DELETE_RUN = ("DELETE FROM run_events WHERE run_id = ?", "DELETE FROM runs WHERE run_id = ?")


def text_of(t: datetime | None) -> str | None:
    """A time as the table keeps it: ISO-8601 in UTC, to the microsecond (sorts as text)."""
    return None if t is None else t.astimezone(timezone.utc).isoformat(timespec="microseconds")


def _row(record: RunRecord) -> tuple[Any, ...]:
    out = []
    for name in FIELDS:
        v = getattr(record, name)
        out.append(text_of(v) if isinstance(v, datetime) else int(v) if isinstance(v, bool) else v)
    return tuple(out)


def _add_events(cur: Any, run_id: str, thread_id: str, events: Sequence[tuple[int, bytes]], *, move: bool = True) -> None:
    """Store ``events`` of a run in one row; if a row of it starts at the same seq (a second
    writer of the run), one row each, so that no seq the other row lacks is lost. ``move``: the
    run's ``last_seq`` moved to the last of them (not when the caller's update of the run sets it)."""
    if not events:
        return
    first, last, data = pack_events(events)
    if cur.execute(ADD_EVENTS, (run_id, first, last, thread_id, data)).rowcount == 0:
        cur.executemany(ADD_EVENTS, [(run_id, seq, seq, thread_id, data) for seq, data in events])
    if move:
        cur.execute(MOVE_LAST_SEQ, (events[-1][0], run_id))


def _record(row: Sequence[Any]) -> RunRecord:
    values = dict(zip(FIELDS, row))
    for name in ("started_at", "ended_at"):
        if values[name] is not None:
            values[name] = datetime.fromisoformat(values[name])
    for name in ("durable", "keeps_events", "background"):
        values[name] = bool(values[name])
    return record_of(values)


#: Runs a blocking function on the saver's worker thread (or in place under a sync call).
Work = Callable[[Callable[[], Any]], Awaitable[Any]]
#: Holds the saver's lock and a transaction begun with the given statement; commits or rolls back.
Transaction = Callable[[str], AbstractContextManager[Any]]


class SqliteRuns:
    """Run records in a SQLite saver's file, on its ``work`` and ``transaction``
    (``outline``: see :class:`~engine.checkpoint._runs.RunRecord`)."""

    #: :meth:`afinish` and :meth:`aupdate` take a run's last versions (``versions=``, see :mod:`._prepared`)
    stores_last_versions = True

    def __init__(
        self, work: Work, transaction: Transaction, *, outline: Outline | None = None, threads: _Threads | None = None
    ) -> None:
        self._work = work
        self._transaction = transaction
        self._outline = outline
        self.threads = threads  # the file's thread records: a mark goes in the record's transaction
        self.leases: LeaseStore | None = None  # a SQLite file has no leases (one writer process)

    def outlined(self, outline: Outline | None) -> SqliteRuns:
        return with_outline(self, outline)

    async def _write(self, fn: Any, *args: Any) -> Any:
        def work() -> Any:
            with self._transaction("BEGIN IMMEDIATE") as cur:
                return fn(cur, *args)

        return await self._work(work)

    async def _read(self, fn: Any, *args: Any) -> Any:
        def work() -> Any:
            with self._transaction("BEGIN") as cur:
                return fn(cur, *args)

        return await self._work(work)

    async def astart(
        self, record: RunRecord, events: Sequence[tuple[int, bytes]] = (), *, mark: ThreadMark | None = None
    ) -> RunRecord | None:
        no_mark(self, mark)
        record = outlined_record(record, self._outline)

        def start(cur: Any) -> RunRecord | None:
            if mark is not None and self.threads is not None:
                self.threads.expect_in(cur, mark)  # unmet: raises before anything is written
            if record.request_id is not None:
                row = cur.execute(FIND, (record.thread_id, record.request_id)).fetchone()
                if row is not None:
                    return _record(row)
            cur.execute(INSERT, _row(record))
            _add_events(cur, record.run_id, record.thread_id, events)
            if mark is not None and self.threads is not None:
                self.threads.mark_in(cur, mark)
            return None

        return await self._write(start)

    async def astart_taking(
        self, record: RunRecord, owner: str, ttl: float, *, mark: ThreadMark
    ) -> tuple[Lease | None, RunRecord | None]:
        raise ValueError("a SQLite file keeps no lease (one writer process)")

    async def aupdate(
        self, run_id: str, if_attempts: int, /, *, mark: ThreadMark | None = None, release: Lease | None = None,
        versions: Any = None, **changes: Any,
    ) -> bool:
        check_changes(changes)
        no_mark(self, mark, release)
        if not changes and mark is None and versions is None:
            return True
        return await self.afinish(run_id, if_attempts, None, (), mark=mark, versions=versions, **changes)

    async def afinish(
        self, run_id: str, if_attempts: int, /, record: RunRecord | None, events: Sequence[tuple[int, bytes]],
        *, mark: ThreadMark | None = None, release: Lease | None = None, versions: Any = None, **changes: Any,
    ) -> bool:
        """``versions``: the run's last versions (``engine.host.LastWrite``), stored in the end's transaction
        when they are this file's (engine/checkpoint/sqlite/_prepared.py); a failure stores neither (it raises)."""
        no_mark(self, mark, release)
        changes = outlined(changes, self._outline)
        names = sorted(changes)
        sql = f"UPDATE runs SET {', '.join(f'{n} = ?' for n in names)} WHERE run_id = ? AND attempts = ?"  # names: UPDATABLE's
        params = [text_of(changes[n]) if isinstance(changes[n], datetime) else changes[n] for n in names]

        def finish(cur: Any) -> bool:
            if record is not None:
                _add_events(cur, run_id, record.thread_id, events, move=False)
            changed = not names or cur.execute(sql, (*params, run_id, if_attempts)).rowcount == 1
            if record is not None and events and not (changed and "last_seq" in changes):  # (an update that applied set it)
                cur.execute(MOVE_LAST_SEQ, (events[-1][0], run_id))
            if mark is not None and self.threads is not None:
                self.threads.mark_in(cur, mark)
            return changed

        if versions is not None:
            if getattr(versions.prepared, "work", None) == self._work:  # this file's: one transaction for both
                ending = Ending(finish)
                await versions.astore(ending)
                return bool(ending.value)
            await versions.astore()  # on its own, as the run would have: then the end
        return await self._write(finish)

    async def aget(self, run_id: str) -> RunRecord | None:
        row = await self._read(lambda cur: cur.execute(SELECT, (run_id,)).fetchone())
        return None if row is None else _record(row)

    async def afind(self, thread_id: str, request_id: str) -> RunRecord | None:
        row = await self._read(lambda cur: cur.execute(FIND, (thread_id, request_id)).fetchone())
        return None if row is None else _record(row)

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None, full: bool = False
    ) -> list[RunRecord]:
        params = {"thread_id": thread_id, "before": before, "limit": limit or -1}

        def read(cur: Any) -> list[Any] | None:
            rows = cur.execute(LIST[full, before is not None], params).fetchall()
            if not rows and before is not None and cur.execute(IS_RUN_OF, (before, thread_id)).fetchone() is None:
                return None  # not a run of the thread (an empty page after the last run is one)
            return rows

        rows = await self._read(read)
        if rows is None:
            raise KeyError(before)
        return [_record(r) for r in rows]

    async def aactive(self, thread_id: str) -> list[RunRecord]:
        return [_record(r) for r in await self._read(lambda cur: cur.execute(ACTIVE_OF, (thread_id,)).fetchall())]

    async def aadd_events(self, record: RunRecord, events: Sequence[tuple[int, bytes]]) -> None:
        await self.aadd_event_batches([(record, events)])

    async def aadd_event_batches(self, batches: Sequence[tuple[RunRecord, Sequence[tuple[int, bytes]]]]) -> None:
        batches = [(r, events) for r, events in batches if events]
        if not batches:
            return

        def add(cur: Any) -> None:
            for r, events in batches:
                _add_events(cur, r.run_id, r.thread_id, events)

        await self._write(add)

    async def aevents(self, run_id: str, after_seq: int, *, limit: int = 256) -> list[tuple[int, bytes]]:
        def read(cur: Any) -> list[tuple[int, bytes]]:
            return events_of_rows(lambda start, n: cur.execute(EVENTS, (run_id, after_seq, start, n)).fetchall(), after_seq, limit)

        return await self._read(read)

    async def aorphans(self, replica: str, *, limit: int = 32) -> list[RunRecord]:
        rows = await self._read(lambda cur: cur.execute(ORPHANS, (replica, limit)).fetchall())
        return [_record(r) for r in rows]

    async def aexpire(self, ended_before: datetime) -> int:
        return await self._write(lambda cur: cur.execute(EXPIRE, (text_of(ended_before),)).rowcount)

    async def aprune(self, thread_id: str, *, ended_before: datetime | None = None, keep_last: int | None = None) -> int:
        ended = [r for r in await self.alist(thread_id) if r.status not in ACTIVE]
        gone = prune_choice(ended, ended_before, keep_last)
        if not gone:
            return 0

        def delete(cur: Any) -> None:
            for statement in DELETE_RUN:
                cur.executemany(statement, [(r.run_id,) for r in gone])

        await self._write(delete)
        return len(gone)

    async def adelete(self, run_id: str) -> bool:
        found = await self.aget(run_id)
        if found is None or found.status in ACTIVE:
            return False

        def delete(cur: Any) -> None:
            for statement in DELETE_RUN:
                cur.execute(statement, (run_id,))

        await self._write(delete)
        return True
