"""Run records on PostgreSQL: the ``runs`` and ``run_events`` tables (migrations 0005, 0006, 0007).

A :class:`~engine.checkpoint._runs.RunStore` on a :class:`PostgresSaver`'s
connections (its retrying runner) and schema: the saver carries one
(``saver.runs``), handed its runner and its rendered queries, as its leases are. Every write is one
statement whose commit does not wait for the WAL flush (``RETURNING ...
NO_FLUSH``, see ``_queries.py``), as the lease statements' (``_leases.py``): a record or an event matters only beside
the versions its run writes, and each of those commits flushes the WAL up to
itself, records and events before it included. A crash that loses an
unflushed record loses nothing a version depends on.

Which runs are orphans is the database's to say, by the lease: an active
run whose thread's live lease is not the one it ran under (its
replica and epoch), because that replica's session ended or its lease lapsed
(``_run_queries.ORPHANS``; the statements are in that module).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Sequence

from psycopg import Connection, sql
from psycopg.types.json import Jsonb

from engine.checkpoint._runs import ACTIVE, FIELDS, Outline, RunRecord, check_changes, no_mark, outlined, outlined_record, prune_choice, with_outline
from engine.checkpoint._run_sql import events_of_rows, pack_events, record_of
 # fmt: skip
from engine.checkpoint._lease import Lease
from engine.checkpoint._threads import ThreadMark
from engine.checkpoint.postgres._leases import PostgresLeases
from engine.checkpoint.postgres._run_queries import (
    ACTIVE_OF, ADD_EVENTS, ADD_ONE_EACH, DELETE_RUNS, ENDING, ENDING_ROW, EVENTS, EXPIRE, FIND, FINISH, INSERT, INSERT_MARKED,
    INSERT_MARKED_EXPECTED, IS_RUN_OF, LIST, ORPHANS, RELEASED, SELECT, TAKING, TAKING_EXPECTED,
)  # fmt: skip
from engine.checkpoint.postgres._prepared import Ending, PreparedPut
from engine.checkpoint.postgres._threads import PostgresThreads
from engine._sql.postgres.conns import kept_cursor
from engine._sql.postgres.text import compact, positional

__all__ = ["PostgresRuns"]

#: The saver's runner (see :class:`PostgresRuns`).
Run = Callable[[str, Callable[[Connection[Any]], Any]], Awaitable[Any]]


def _one_each(batches: Sequence[tuple[RunRecord, Sequence[tuple[int, bytes]]]]) -> dict[str, Any]:
    """``ADD_ONE_EACH``'s parameters: every event of ``batches``."""
    rows = [(r.run_id, seq, r.thread_id, data) for r, events in batches for seq, data in events]
    return {"run_ids": [x[0] for x in rows], "seqs": [x[1] for x in rows], "thread_ids": [x[2] for x in rows], "datas": [x[3] for x in rows]}


#: Tells the saver's reads that a lease's thread has no version (see
#: :meth:`~engine.checkpoint.postgres._reads.Reads.blank`).
Blank = Callable[[Lease], None]


def _record(row: Sequence[Any]) -> RunRecord:
    return record_of(dict(zip(FIELDS, row)))


class PostgresRuns:
    """Run records in a PostgreSQL saver's schema.

    Args:
        run: the saver's runner: ``run(what, work)`` runs ``work(conn)`` on one of its connections.
        queries: the saver's queries rendered for its schema (their ``tables``).
        outline: see :class:`~engine.checkpoint._runs.RunRecord`.
    """

    #: :meth:`afinish` and :meth:`aupdate` take a run's last versions (``versions=``, see :mod:`._prepared`)
    stores_last_versions = True

    def __init__(
        self, run: Run, queries: Any, *, outline: Outline | None = None, threads: PostgresThreads | None = None,
        leases: PostgresLeases | None = None, blank: Blank | None = None,
    ) -> None:
        self._run = run
        self._outline = outline
        self.threads = threads  # the schema's thread records: a mark goes in the record's statement
        self.leases = leases  # the schema's leases: a run's end lets go of its lease in the same statement
        self._blank = blank  # the saver's reads: a thread a run's start found without a version
        tables = queries.tables
        names = {n: sql.SQL(tables[n]) for n in ("runs", "run_events", "leases", "checkpoints")}  # already quoted identifiers
        self._sql = {
            k: sql.SQL(v).format(**names).as_string(None)  # type: ignore[arg-type]
            for k, v in {
                "INSERT": INSERT, "SELECT": SELECT, "FIND": FIND, "LIST": LIST[False, False], "LIST_FULL": LIST[True, False],
                "LIST_BEFORE": LIST[False, True], "LIST_BEFORE_FULL": LIST[True, True], "IS_RUN_OF": IS_RUN_OF,
                "ACTIVE_OF": ACTIVE_OF, "ADD_EVENTS": ADD_EVENTS, "ADD_ONE_EACH": ADD_ONE_EACH, "EVENTS": EVENTS, "ORPHANS": ORPHANS,
                "EXPIRE": EXPIRE, "DELETE_RUNS": DELETE_RUNS,
            }.items()
        }  # fmt: skip
        self._finishes: dict[tuple[tuple[str, ...], bool, bool, bool], str] = {}  # see _finish_sql
        self._queries = queries
        self._endings: dict[tuple[tuple[str, ...], bool, bool, bool], tuple[str, tuple[str, ...]]] = {}  # see _ending_sql
        self._tables = tables
        if threads is not None:  # the record and its thread's mark in one statement
            mark = sql.SQL(threads.mark_with("EXISTS (SELECT FROM ins)"))
            self._sql["INSERT_MARKED"] = sql.SQL(INSERT_MARKED).format(mark=mark, **names).as_string(None)  # type: ignore[arg-type]
            self._sql["INSERT_MARKED_EXPECTED"] = sql.SQL(INSERT_MARKED_EXPECTED).format(
                mark=mark, threads=sql.SQL(tables["threads"]), **names
            ).as_string(None)  # type: ignore[arg-type]
            if leases is not None:  # and the lease taken, in the same statement
                self._sql["TAKING"] = sql.SQL(TAKING).format(mark=mark, **names).as_string(None)  # type: ignore[arg-type]
                self._sql["TAKING_EXPECTED"] = sql.SQL(TAKING_EXPECTED).format(
                    mark=mark, threads=sql.SQL(tables["threads"]), **names
                ).as_string(None)  # type: ignore[arg-type]

    def outlined(self, outline: Outline | None) -> PostgresRuns:
        return with_outline(self, outline)

    async def _write(self, what: str, name: str, params: dict[str, Any]) -> Any:
        """One statement whose commit does not wait for the WAL flush (``RETURNING ...
        NO_FLUSH``, see :mod:`._queries`); (rows, rowcount)."""
        statement = self._sql[name]

        def work(conn: Connection[Any]) -> Any:
            cur = kept_cursor(conn)
            cur.execute(statement, params)
            return cur.fetchall(), cur.rowcount

        return await self._run(what, work)

    async def _read(self, what: str, name: str, params: dict[str, Any]) -> list[Any]:
        statement = self._sql[name]

        def work(conn: Connection[Any]) -> list[Any]:
            cur = kept_cursor(conn)
            cur.execute(statement, params)
            return cur.fetchall()

        return await self._run(what, work)

    async def astart(
        self, record: RunRecord, events: Sequence[tuple[int, bytes]] = (), *, mark: ThreadMark | None = None
    ) -> RunRecord | None:
        no_mark(self, mark)
        record = outlined_record(record, self._outline)
        params = {n: getattr(record, n) for n in FIELDS}
        params["first__"], params["last__"], params["data__"] = pack_events(events) if events else (None, None, None)
        if events:
            params["last_seq"] = max(record.last_seq, events[-1][0])
        name = "INSERT" if mark is None else "INSERT_MARKED" if mark.expected is None else "INSERT_MARKED_EXPECTED"
        if mark is not None:
            params.update(self._mark_params(mark))
        rows, _ = await self._write("start_run", name, params)
        if mark is not None and mark.expected is not None:
            if not rows[0][-1]:  # the record not as expected: nothing was written
                raise mark.expected.changed()
            rows = [row for row in rows if row[0] is not None]
        if rows:
            return None
        if record.request_id is not None:
            found = await self.afind(record.thread_id, record.request_id)
            if found is not None:
                return found
        raise ValueError(f"run {record.run_id!r} is already recorded")

    async def astart_taking(
        self, record: RunRecord, owner: str, ttl: float, *, mark: ThreadMark
    ) -> tuple[Lease | None, RunRecord | None]:
        if self.leases is None or self.threads is None:
            raise ValueError("PostgresRuns without its saver's leases and thread records takes no lease")
        record = outlined_record(record, self._outline)
        params: dict[str, Any] = {n: getattr(record, n) for n in FIELDS if n != "epoch"}
        params.update(self._mark_params(mark))
        taking = await self.leases.acquire_params(record.thread_id, owner, ttl=ttl)
        params.update({f"l__{k}": v for k, v in taking.items()})
        if mark.expected is None:
            rows, _ = await self._write("start_run", "TAKING", params)
            epoch, inserted, blank, _ = rows[0]
        else:
            rows, _ = await self._write("start_run", "TAKING_EXPECTED", params)
            epoch, inserted, blank, _, met = rows[0]
            if not met:  # nothing was written: each part needs the lease, which needs ``ok``
                raise mark.expected.changed()
        if epoch is None:
            return None, None
        lease = Lease(taking["thread_id"], owner, int(epoch))
        if blank and lease.epoch == 1 and inserted is not None and self._blank is not None:
            # The lease row is new: no fenced write of the thread was ever made or is under way
            # (each needs the row), so the thread the snapshot saw without a version has none
            # until this lease writes, whatever the statement waited for.
            self._blank(lease)
        if inserted is not None:
            return lease, None
        if record.request_id is not None:
            found = await self.afind(record.thread_id, record.request_id)
            if found is not None:
                return lease, found
        raise ValueError(f"run {record.run_id!r} is already recorded")

    async def aupdate(
        self, run_id: str, if_attempts: int, /, *, mark: ThreadMark | None = None, release: Lease | None = None,
        versions: Any = None, **changes: Any,
    ) -> bool:
        check_changes(changes)
        if not changes and mark is None and release is None and versions is None:
            return True
        return await self.afinish(run_id, if_attempts, None, (), mark=mark, release=release, versions=versions, **changes)

    def _mark_params(self, mark: ThreadMark) -> dict[str, Any]:
        """``mark``'s parameters in a statement of ours (``t__``-prefixed, see ``PostgresThreads.mark_with``;
        its ``expected``'s ``x__``-prefixed)."""
        assert self.threads is not None  # no_mark() let no mark through otherwise
        params = {f"t__{k}": v for k, v in self.threads.marking(mark)[1].items()}
        if mark.expected is not None:
            params.update(x__key=mark.expected.key, x__holds=Jsonb(mark.expected.holds), x__lacks=Jsonb(mark.expected.lacks))
        return params

    async def afinish(
        self, run_id: str, if_attempts: int, /, record: RunRecord | None, events: Sequence[tuple[int, bytes]],
        *, mark: ThreadMark | None = None, release: Lease | None = None, versions: Any = None, **changes: Any,
    ) -> bool:
        """``versions``: the run's last versions (``engine.host.LastWrite``), stored first, in the same
        statement when they can be (see :mod:`._prepared`); a failure stores neither (it raises)."""
        no_mark(self, mark, release)
        prepared = None if versions is None or not changes else self._ending(versions, release)
        if versions is not None and prepared is None:
            await versions.astore()  # on its own, as the run would have: then the end
        if not changes:  # a mark or a release alone (aupdate)
            if mark is not None and self.threads is not None:
                await self.threads.amark(mark.record, mark.at, status=mark.status, interrupts=mark.interrupts)
            if release is not None and self.leases is not None:
                await self.leases.arelease_lease(release)
            return True
        changes = outlined(changes, self._outline)
        if record is None:
            events = ()
        kind = (tuple(sorted(changes)), bool(events) and "last_seq" not in changes, mark is not None, release is not None)
        first, last, data = pack_events(events) if events else (None, None, None)
        params = {
            **changes, "run_id": run_id, "attempts__": if_attempts, "thread_id__": record.thread_id if record else "",
            "first__": first, "last__": last, "data__": data,
        }  # fmt: skip
        if mark is not None:
            params.update(self._mark_params(mark))
        one_each = self._sql["ADD_ONE_EACH"]
        if prepared is not None:
            ending = Ending(*self._ending_sql(kind), {f"e__{k}": v for k, v in params.items()})
            await versions.astore(ending)
            assert ending.value is not None  # (the statement's row, once its fence matched: else it raised)
            changed, added = ending.value % 2, ending.value // 2
            if events and not added and record is not None:
                await self._run("update_run", lambda conn: kept_cursor(conn).execute(one_each, _one_each([(record, events)])))
            return changed == 1
        if release is not None:
            params.update(l__thread_id=release.thread_id, l__owner=release.owner, l__epoch=release.epoch)
        statement = self._finish_sql(*kind)

        def work(conn: Connection[Any]) -> int:
            cur = kept_cursor(conn)
            cur.execute(statement, params)
            row = cur.fetchone()
            assert row is not None  # the statement's one row
            changed, added, _ = row
            if events and not added and record is not None:
                cur.execute(one_each, _one_each([(record, events)]))
            return changed

        return await self._run("update_run", work) == 1

    def _finish_sql(self, names: tuple[str, ...], moves_last_seq: bool, marked: bool, releases: bool, ending: bool = False) -> str:
        """:data:`FINISH` setting the columns ``names`` (and ``last_seq`` to the events' last, if
        ``moves_last_seq``; with the thread's mark, if ``marked``; letting go of the lease, if
        ``releases``), composed once per kind of change; ``ending``: the statement storing a run's last
        versions with those parts (:data:`ENDING`; ``releases``: its fence lets go of the lease)."""
        key = (names, moves_last_seq, marked, releases)
        statement = None if ending else self._finishes.get(key)  # (an ending's is kept as _ending_sql's)
        if statement is None:
            sets = [sql.SQL("{} = {}").format(sql.Identifier(n), sql.Placeholder(n)) for n in names]
            if moves_last_seq:
                sets.append(sql.SQL("last_seq = greatest(last_seq, {})").format(sql.Placeholder("last__")))
            when = "EXISTS (SELECT FROM fence)" if ending else "true"
            text = sql.SQL(ENDING if ending else FINISH).format(
                runs=sql.SQL(self._tables["runs"]), run_events=sql.SQL(self._tables["run_events"]),
                sets=sql.SQL(", ").join(sets),
                marked=sql.SQL(", marked AS ({})\n").format(sql.SQL(self.threads.mark_with(when))) if marked and self.threads else sql.SQL(""),
                released=sql.SQL(RELEASED).format(leases=sql.SQL(self._tables["leases"])) if releases and not ending else sql.SQL(""),
            ).as_string(None)  # fmt: skip
            if ending:
                put = self._queries.PUT_ENDING_RELEASING if releases else self._queries.PUT_ENDING
                return put.replace("/*end*/", compact(text).replace("%(", "%(e__")).replace("/*end row*/", ENDING_ROW)
            statement = self._finishes[key] = text
        return statement

    def _ending_sql(self, kind: tuple[tuple[str, ...], bool, bool, bool]) -> tuple[str, tuple[str, ...]]:
        """The statement storing a run's last versions with an end of ``kind`` (see :meth:`_finish_sql`),
        with positional placeholders, and its parameters' names in order."""
        found = self._endings.get(kind)
        if found is None:
            found = self._endings[kind] = positional(self._finish_sql(*kind, ending=True))
        return found

    def _ending(self, versions: Any, release: Lease | None) -> PreparedPut | None:
        """The saver's prepared write in ``versions`` (a run's last write, ``engine.host.LastWrite``) if
        this store can put a run's end in its statement: a root-namespace chain under a lease, on these
        tables, whose lease is the one to let go of (if any)."""
        prepared = getattr(versions, "prepared", None)
        if not isinstance(prepared, PreparedPut) or prepared.tables != self._tables:
            return None
        lease = prepared.lease()
        if lease is None or (release is not None and release != lease):
            return None
        return prepared

    async def aget(self, run_id: str) -> RunRecord | None:
        rows = await self._read("get_run", "SELECT", {"run_id": run_id})
        return _record(rows[0]) if rows else None

    async def afind(self, thread_id: str, request_id: str) -> RunRecord | None:
        rows = await self._read("find_run", "FIND", {"thread_id": thread_id, "request_id": request_id})
        return _record(rows[0]) if rows else None

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None, full: bool = False
    ) -> list[RunRecord]:
        params = {"thread_id": thread_id, "before": before, "limit": limit or None}
        suffix = "_FULL" if full else ""
        if before is None:
            return [_record(r) for r in await self._read("list_runs", "LIST" + suffix, params)]
        page, is_run_of = self._sql["LIST_BEFORE" + suffix], self._sql["IS_RUN_OF"]

        def work(conn: Connection[Any]) -> list[Any] | None:
            cur = kept_cursor(conn)
            rows = cur.execute(page, params).fetchall()
            if not rows and not cur.execute(is_run_of, params).fetchall():
                return None
            return rows

        rows = await self._run("list_runs", work)
        if rows is None:
            raise KeyError(before)
        return [_record(r) for r in rows]

    async def aactive(self, thread_id: str) -> list[RunRecord]:
        return [_record(r) for r in await self._read("active_runs", "ACTIVE_OF", {"thread_id": thread_id})]

    async def aadd_events(self, record: RunRecord, events: Sequence[tuple[int, bytes]]) -> None:
        await self.aadd_event_batches([(record, events)])

    async def aadd_event_batches(self, batches: Sequence[tuple[RunRecord, Sequence[tuple[int, bytes]]]]) -> None:
        batches = sorted(((r, events) for r, events in batches if events), key=lambda b: b[0].run_id)
        if not batches:
            return
        rows, datas, at = [], [], 1
        for r, events in batches:
            first, last, data = pack_events(events)
            rows.append((r.run_id, first, last, r.thread_id, at, len(data)))
            datas.append(data)
            at += len(data)
        params = {"rows": json.dumps(rows), "bytes": b"".join(datas)}
        statement, one_each = self._sql["ADD_EVENTS"], self._sql["ADD_ONE_EACH"]

        def work(conn: Connection[Any]) -> None:
            cur = kept_cursor(conn)
            cur.execute(statement, params)
            row = cur.fetchone()
            assert row is not None  # the statement's one row
            added = set(row[0])
            missed = [(r, events) for r, events in batches if r.run_id not in added]
            if missed:
                cur.execute(one_each, _one_each(missed))

        await self._run("add_run_events", work)

    async def aevents(self, run_id: str, after_seq: int, *, limit: int = 256) -> list[tuple[int, bytes]]:
        statement = self._sql["EVENTS"]

        def work(conn: Connection[Any]) -> list[tuple[int, bytes]]:
            def fetch(start: int, n: int) -> list[Any]:
                return conn.execute(statement, {"run_id": run_id, "after": after_seq, "start": start, "limit": n}).fetchall()

            return events_of_rows(fetch, after_seq, limit)

        return await self._run("run_events", work)

    async def aorphans(self, replica: str, *, limit: int = 32) -> list[RunRecord]:
        return [_record(r) for r in await self._read("orphan_runs", "ORPHANS", {"limit": limit})]

    async def aexpire(self, ended_before: datetime) -> int:
        _, count = await self._write("expire_run_events", "EXPIRE", {"before": ended_before})
        return max(count, 0)

    async def aprune(self, thread_id: str, *, ended_before: datetime | None = None, keep_last: int | None = None) -> int:
        ended = [r for r in await self.alist(thread_id) if r.status not in ACTIVE]
        gone = prune_choice(ended, ended_before, keep_last)
        if gone:
            await self._write("prune_runs", "DELETE_RUNS", {"ids": [r.run_id for r in gone]})
        return len(gone)

    async def adelete(self, run_id: str) -> bool:
        found = await self.aget(run_id)
        if found is None or found.status in ACTIVE:
            return False
        await self._write("delete_run", "DELETE_RUNS", {"ids": [run_id]})
        return True
