"""Reading checkpoints back from PostgreSQL: get, list, list threads.

A get is one statement, one round trip on one snapshot (the checkpoint row
with its pending writes and every channel's delta chain, through a recursive
query); a listing is one statement for the rows and then one
round trip per page of checkpoints, on one snapshot (which still exist,
their chains, their writes). What is read teaches the saver's delta cache
the thread's last values (``deltas.learn``).

:class:`Reads` is part of :class:`~engine.checkpoint.postgres.PostgresSaver`
by composition: it shares the saver's retrying runner, statements, delta
cache and serializer.
"""

from __future__ import annotations

import builtins  # the class's method named list hides the type inside it

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any

from psycopg import Connection

from engine.checkpoint._chain import ChainReader
from engine.checkpoint._delta import DeltaCache
from engine.checkpoint._inline import blob_versions, values_of
from engine.checkpoint._ts import read_ts
from engine.checkpoint._helpers import (
    check_list_args,
    check_metadata,
    check_row,
    list_keys,
    load_checkpoint,
    load_meta,
    make_config,
    parse_config,
    reading,
    storable_text,
)
from engine.checkpoint._writes import unpacked, write_ref
from engine.checkpoint.base import LEASE_KEY, CheckpointTuple, Lease, PendingWrite, ThreadInfo
from engine.checkpoint.postgres import _queries as q
from engine._sql.postgres.conns import kept_cursor
from engine.serde import Serializer

__all__ = ["Reads"]

# A get's result up to this size stays with its connection's kept cursor until the next statement.
_KEEP_RESULT_BYTES = 1 << 20
# alist pages: small first (a caller often wants one or two), then larger.
_FIRST_PAGE, _MAX_PAGE = 4, 128
# Threads a run's start found without a version, kept until the run reads (see Reads.blank).
_MAX_BLANK = 1024


class Reads:
    """The saver's reads (``get_tuple``, ``list``, ``list_threads``)."""

    def __init__(
        self,
        run: Callable[[str, Callable[[Connection[Any]], Any]], Awaitable[Any]],
        queries: q.Queries,
        deltas: DeltaCache,
        serde: Callable[[], Serializer],
        keeps_runs: Callable[[], bool],
    ) -> None:
        self._keeps_runs = keeps_runs  # the saver's keeps_run_ids
        self._run = run
        self._q = queries
        self._deltas = deltas
        self._serde = serde
        # thread id -> a lease whose run's start found the thread without a version
        # (PostgresRuns.astart_taking): the lease's first read of the newest version is None without
        # a statement (see blank).
        self._blank: dict[str, Lease] = {}

    def blank(self, lease: Lease) -> None:
        """``lease``'s thread has no version: so its run's first read of the newest one says,
        without a statement, unless a write that may give it one came first (a put, pending
        writes, a copy into it: :meth:`forget`; a delete or a prune leaves none).

        Only for a thread found without a version after the lease was taken and before any
        write under it, with nobody else able to write it meanwhile (the caller's to know: see
        ``PostgresRuns.astart_taking``)."""
        blank = self._blank
        blank.pop(lease.thread_id, None)
        if len(blank) >= _MAX_BLANK:  # leases whose runs never read (they named a version): the oldest go
            try:
                del blank[next(iter(blank))]
            except (StopIteration, RuntimeError, KeyError):  # emptied, or changed by a sync call's thread meanwhile
                pass
        blank[lease.thread_id] = lease

    def forget(self, thread_id: str) -> None:
        """A write of ``thread_id`` is under way: it may have a version now."""
        if self._blank:
            self._blank.pop(thread_id, None)

    async def get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        thread_id, ns, checkpoint_id = parse_config(config)
        if not _storable(thread_id, ns, checkpoint_id):
            return None  # no such key can have been stored
        if self._blank and checkpoint_id is None and ns == "" and thread_id in self._blank:
            lease = (config.get("configurable") or {}).get(LEASE_KEY)
            if lease is not None and self._blank.pop(thread_id, None) == lease:
                return None  # the run's first read: its start found no version (see blank)

        params = {"thread_id": thread_id, "ns": ns, "checkpoint_id": checkpoint_id}
        sql = self._q.SELECT_LATEST_TUPLE if checkpoint_id is None else self._q.SELECT_TUPLE

        def work(conn: Connection[Any]) -> Any:
            cur = kept_cursor(conn)
            cur.execute(sql, params)  # one statement: one snapshot, one round trip
            row = cur.fetchone()
            if row is not None and _size(row) > _KEEP_RESULT_BYTES:
                cur.close()  # its result is not kept with the connection
            return row

        row = await self._run("get_tuple", work)
        if row is None:
            return None
        cid, parent_id, ts, meta_type, meta_data, metadata, versions, *columns = row
        write_columns, blob_columns = columns[:8], columns[8:]
        with reading(thread_id, cid):
            meta = load_meta(self._serde(), cid, (meta_type, meta_data), versions)
            reader = ChainReader(self._serde())
            for blob in zip(*(c or () for c in blob_columns)):
                _add(reader, blob)
            writes = [
                w for t, ch, ty, d, *ref in zip(*(c or () for c in write_columns))
                for w in unpacked(reader, t, ch, ty, d, write_ref((t, ch, ty, d, *ref)))
            ]  # fmt: skip
            result = self._tuple(thread_id, ns, cid, parent_id, read_ts(cid, ts), meta, metadata, reader, writes)
        self._deltas.learn(thread_id, ns, reader, meta)
        return result

    def _chains_params(
        self, thread_id: str, wanted: Sequence[tuple[str, str, int]], checkpoints: Sequence[tuple[str, str]], reader: ChainReader
    ) -> dict[str, Any]:
        """SELECT_CHAINS's parameters: the rows ``reader`` lacks to rebuild the ``(ns, channel, version)``
        keys ``wanted``, and the lists the pending writes of ``checkpoints`` ``(ns, id)`` extend."""
        wanted = [(ns, ch, v) for ns, ch, v in wanted if not reader.has(ch, v, ns)]
        return {
            "thread_id": thread_id, "wanted": json.dumps(wanted), "checkpoints": json.dumps(checkpoints),
            "known": json.dumps(reader.known_keys()),
        }  # fmt: skip

    def _tuple(
        self,
        thread_id: str,
        ns: str,
        checkpoint_id: str,
        parent_id: str | None,
        ts: str,
        meta: dict[str, Any],
        metadata: Any,
        reader: ChainReader,
        writes: list[PendingWrite],
    ) -> CheckpointTuple:
        check_row(checkpoint_id, parent_id, ts)
        return CheckpointTuple(
            config=make_config(thread_id, ns, checkpoint_id),
            checkpoint=load_checkpoint(checkpoint_id, ts, meta, values_of(reader, meta, ns)),
            metadata=check_metadata(metadata, keep_run=self._keeps_runs()),  # psycopg decoded the jsonb; check its shape
            parent_config=make_config(thread_id, ns, parent_id) if parent_id else None,
            pending_writes=writes,
        )

    async def list(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        wanted = check_list_args(filter, limit)
        if wanted is None or limit == 0:
            return
        where = {"thread": q.WHERE_THREAD, "ns": q.WHERE_NS, "id": q.WHERE_ID, "before": q.WHERE_BEFORE}
        keys = list_keys(config, before)
        if not all(_storable(value) for _, value in keys):
            return  # no such key can have been stored
        clauses = [where[kind] for kind, _ in keys]
        params: list[Any] = [value for _, value in keys]
        for key, value in wanted.items():
            if value is None:
                clauses.append(q.META_IS_NULL)
                params.append(key)
                continue
            clauses.append(q.META_EQUALS)
            params.extend((key, json.dumps(value, ensure_ascii=False, allow_nan=False)))
        sql = self._q.LIST_CHECKPOINTS + ("WHERE " + "\n  AND ".join(clauses) if clauses else "") + q.LIST_ORDER
        if limit is not None:
            sql += q.LIST_LIMIT
            params.append(limit)

        def list_rows(conn: Connection[Any]) -> builtins.list[Any]:
            with conn.cursor(binary=True) as cur:
                cur.execute(sql, params)
                return cur.fetchall()

        rows = await self._run("list", list_rows)
        readers: dict[str, ChainReader] = {}  # decoded rows, shared by the whole listing (per thread)
        start, size = 0, _FIRST_PAGE
        while start < len(rows):
            page = rows[start : start + size]
            start, size = start + size, min(size * 2, _MAX_PAGE)
            for item in await self._read_page(page, readers):
                yield item

    async def _read_page(self, page: builtins.list[Any], readers: dict[str, ChainReader]) -> builtins.list[CheckpointTuple]:
        """Values and writes of one page of listed checkpoints, from one snapshot in one
        round trip (which of them still exist, a chains query per thread, their writes).
        A checkpoint deleted since the listing began (pruned) is gone: it is skipped."""
        metas = []
        for row in page:
            with reading(row[0], row[2]):
                metas.append(load_meta(self._serde(), row[2], (row[5], row[6]), row[8]))
        keys = {"thread_ids": [r[0] for r in page], "nss": [r[1] for r in page], "checkpoint_ids": [r[2] for r in page]}

        wanted: dict[str, dict[tuple[str, str, int], None]] = {}  # per thread, in order
        checkpoints: dict[str, builtins.list[tuple[str, str]]] = {}
        for row, meta in zip(page, metas):
            readers.setdefault(row[0], ChainReader(self._serde()))
            wanted.setdefault(row[0], {}).update(dict.fromkeys((row[1], ch, v) for ch, v in blob_versions(meta).items()))
            checkpoints.setdefault(row[0], []).append((row[1], row[2]))

        def work(conn: Connection[Any]) -> tuple[set[tuple[str, str, str]], builtins.list[Any]]:
            # Every statement in one round trip, on one snapshot.
            with conn.pipeline() as pipeline:
                existing_cur, writes_cur = conn.cursor(binary=True), conn.cursor(binary=True)
                chains = []
                conn.execute(q.BEGIN_SNAPSHOT)
                existing_cur.execute(self._q.EXISTING_OF, keys)
                for thread_id, keys_wanted in wanted.items():
                    reader = readers[thread_id]
                    params = self._chains_params(thread_id, list(keys_wanted), checkpoints[thread_id], reader)
                    cur = conn.cursor(binary=True)
                    cur.execute(self._q.SELECT_CHAINS, params)
                    chains.append((reader, cur))
                writes_cur.execute(self._q.SELECT_WRITES_OF, keys)
                conn.execute(q.COMMIT)
                pipeline.sync()
                for reader, cur in chains:
                    for blob in cur.fetchall():
                        _add(reader, blob)
                existing = {(t, ns, cid) for t, ns, cid in existing_cur.fetchall()}
                return existing, writes_cur.fetchall()

        existing, write_rows = await self._run("list", work)
        writes: dict[tuple[str, str, str], builtins.list[PendingWrite]] = {}
        for thread_id, ns, cid, task_id, channel, tag, data, *ref in write_rows:
            with reading(thread_id, cid):
                found = unpacked(readers[thread_id], task_id, channel, tag, data, write_ref((task_id, channel, tag, data, *ref)))
                writes.setdefault((thread_id, ns, cid), []).extend(found)
        out = []
        for (t, ns, cid, parent, ts, _, _, metadata, _), meta in zip(page, metas):
            if (t, ns, cid) not in existing:
                continue
            with reading(t, cid):
                out.append(self._tuple(t, ns, cid, parent, read_ts(cid, ts), meta, metadata, readers[t], writes.get((t, ns, cid), [])))
        return out

    async def list_threads(self, *, prefix: str = "", limit: int | None = None) -> AsyncIterator[ThreadInfo]:
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        if limit == 0 or not _storable(prefix):
            return

        def work(conn: Connection[Any]) -> list[Any]:
            cur = conn.execute(self._q.LIST_THREADS, {"prefix": prefix, "limit": limit})
            return cur.fetchall()

        for thread_id, checkpoint_id, ts in await self._run("list_threads", work):
            yield ThreadInfo(thread_id, checkpoint_id, read_ts(checkpoint_id, ts))


def _size(row: Sequence[Any]) -> int:
    """About how many bytes a get's row holds (its meta and the writes' and blobs' data)."""
    return len(row[4]) + sum(map(len, row[10] or ())) + sum(map(len, row[19] or ()))


def _add(reader: ChainReader, row: Sequence[Any]) -> None:
    """Feed ``reader`` one row of a chains query."""
    ns, channel, version, tag, data, base, seq, ref_ns, ref_channel, ref_version, ref_key = row
    reader.add(channel, version, tag, data, base, seq, ns=ns, ref_ns=ref_ns, ref_channel=ref_channel,
               ref_version=ref_version, ref_key=ref_key)  # fmt: skip


def _storable(*texts: str | None) -> bool:
    """Whether PostgreSQL text can hold every one of these (no NUL, no lone surrogate)."""
    return all(t is None or storable_text(t) for t in texts)
