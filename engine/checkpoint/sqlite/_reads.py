"""Reading checkpoints back from SQLite: get, list, list threads.

A get is one read transaction (the checkpoint row, the rows of the delta
chains its values need, its pending writes); a listing is one read for the
rows, then one read transaction per page of checkpoints (which still exist,
a chains query per thread, their writes). What a get reads teaches the
saver's delta cache the thread's last values (``deltas.learn``).

:class:`Reads` is part of :class:`~engine.checkpoint.sqlite.SqliteSaver` by
composition: it shares the saver's file (:class:`~._file.SaverFile`), delta
cache and serializer.
"""

from __future__ import annotations

import builtins  # the class's method named list hides the type inside it
import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from engine.checkpoint._chain import ChainReader
from engine.checkpoint._delta import DeltaCache
from engine.checkpoint._inline import blob_versions, values_of
from engine.checkpoint._ts import read_ts
from engine.checkpoint._helpers import (
    check_list_args,
    check_row,
    list_keys,
    load_checkpoint,
    load_meta,
    load_metadata,
    make_config,
    parse_config,
    reading,
)
from engine.checkpoint._writes import load_writes
from engine.checkpoint.base import CheckpointTuple, ThreadInfo
from engine.checkpoint.sqlite import _queries as q
from engine.checkpoint.sqlite._file import SaverFile
from engine.checkpoint.sqlite._filters import matches, metadata_clause, prefix_end
from engine.errors import CorruptCheckpointError
from engine.serde import Serializer

__all__ = ["Reads"]

# alist pages: small first (a caller often wants one or two), then larger.
_FIRST_PAGE, _MAX_PAGE = 4, 128


class Reads:
    """The saver's reads (``get_tuple``, ``list``, ``list_threads``)."""

    def __init__(self, file: SaverFile, deltas: DeltaCache, serde: Callable[[], Serializer], keeps_runs: Callable[[], bool]) -> None:
        self._file = file
        self._keeps_runs = keeps_runs  # the saver's keeps_run_ids
        self._deltas = deltas
        self._serde = serde

    async def get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        return await self._file.work(self._get_tuple, config)

    def _get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        thread_id, ns, checkpoint_id = parse_config(config)
        with self._file.transaction(q.BEGIN_READ) as cur:
            if checkpoint_id is None:
                row = cur.execute(q.SELECT_LATEST_CHECKPOINT, (thread_id, ns)).fetchone()
            else:
                row = cur.execute(q.SELECT_CHECKPOINT, (thread_id, ns, checkpoint_id)).fetchone()
            if row is None:
                return None
            reader = ChainReader(self._serde())
            with reading(thread_id, row[0]):
                meta, writes = self._fetch_parts(cur, thread_id, ns, row, reader)
        found = self._tuple(thread_id, ns, row, meta, reader, writes)
        self._deltas.learn(thread_id, ns, reader, meta)
        return found

    async def list(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        wanted = check_list_args(filter, limit)
        if wanted is None:
            return
        where = {"thread": q.WHERE_THREAD, "ns": q.WHERE_NS, "id": q.WHERE_ID, "before": q.WHERE_BEFORE}
        keys = list_keys(config, before)
        clauses = [where[kind] for kind, _ in keys]
        params: builtins.list[Any] = [value for _, value in keys]
        exact_in_sql = True
        for key, value in wanted.items():
            found = metadata_clause(key, value)
            if found is None:
                exact_in_sql = False  # checked in Python below; LIMIT moves there too
            else:
                clauses.append(found[0])
                params.extend(found[1])
        sql = q.LIST_CHECKPOINTS + ("WHERE " + "\n  AND ".join(clauses) if clauses else "") + q.LIST_ORDER
        if limit is not None and exact_in_sql:
            sql += q.LIST_LIMIT
            params.append(limit)
        rows = await self._file.work(self._file.fetch_all, sql, params)
        if wanted:
            rows = [r for r in rows if matches(r, wanted)]
        if limit is not None:
            rows = rows[:limit]
        readers: dict[str, ChainReader] = {}  # decoded rows, shared by the whole listing (per thread)
        start, size = 0, _FIRST_PAGE
        while start < len(rows):
            page = rows[start : start + size]
            start, size = start + size, min(size * 2, _MAX_PAGE)
            for item in await self._file.work(self._page, page, readers):
                if isinstance(item, CorruptCheckpointError):
                    raise item
                yield item

    def _page(
        self, page: builtins.list[Any], readers: dict[str, ChainReader]
    ) -> builtins.list[CheckpointTuple | CorruptCheckpointError]:
        """One page of a listing, in one read transaction: each checkpoint, or why it does not read.

        One read per page: a chains query per thread (each row decoded once
        per listing) and the writes of each checkpoint. A checkpoint pruned
        since the listing began is gone: skipped. A checkpoint that does not
        read fails the listing when it is reached, not before.
        """
        serde = self._serde()
        with self._file.transaction(q.BEGIN_READ) as cur:
            page = [row for row in page if cur.execute(q.CHECKPOINT_EXISTS, (row[0], row[1], row[2])).fetchone()]
            metas = []
            for row in page:
                with reading(row[0], row[2]):
                    metas.append(load_meta(serde, row[2], (row[5], row[6])))
            keys: dict[str, dict[tuple[str, str, int], None]] = {}  # per thread, in order
            checkpoints: dict[str, builtins.list[tuple[str, str]]] = {}
            for row, meta in zip(page, metas):
                keys.setdefault(row[0], {}).update(dict.fromkeys((row[1], ch, v) for ch, v in blob_versions(meta).items()))
                checkpoints.setdefault(row[0], []).append((row[1], row[2]))
            for thread_id, wanted in keys.items():
                reader = readers.setdefault(thread_id, ChainReader(serde))
                _read_chains(cur, thread_id, builtins.list(wanted), checkpoints[thread_id], reader)
            writes = [cur.execute(q.SELECT_WRITES, (row[0], row[1], row[2])).fetchall() for row in page]
        out: builtins.list[CheckpointTuple | CorruptCheckpointError] = []
        for (thread_id, ns, *row), meta, w in zip(page, metas, writes):
            try:
                out.append(self._tuple(thread_id, ns, row, meta, readers[thread_id], w))
            except CorruptCheckpointError as exc:
                out.append(exc)
        return out

    def _fetch_parts(
        self, cur: sqlite3.Cursor, thread_id: str, ns: str, row: Sequence[Any], reader: ChainReader
    ) -> tuple[dict[str, Any], builtins.list[Any]]:
        """Decode the meta, feed ``reader`` the rows of the channel values it lacks, fetch the writes."""
        meta = load_meta(self._serde(), row[0], (row[3], row[4]))
        _read_chains(cur, thread_id, [(ns, ch, v) for ch, v in blob_versions(meta).items()], [(ns, row[0])], reader)
        writes = cur.execute(q.SELECT_WRITES, (thread_id, ns, row[0])).fetchall()
        return meta, writes

    def _tuple(
        self, thread_id: str, ns: str, row: Sequence[Any], meta: dict[str, Any], reader: ChainReader, writes: builtins.list[Any]
    ) -> CheckpointTuple:
        checkpoint_id, parent_id, ts, _, _, metadata = row
        ts = read_ts(checkpoint_id, ts)
        with reading(thread_id, checkpoint_id):
            check_row(checkpoint_id, parent_id, ts)
            return CheckpointTuple(
                config=make_config(thread_id, ns, checkpoint_id),
                checkpoint=load_checkpoint(checkpoint_id, ts, meta, values_of(reader, meta, ns)),
                metadata=load_metadata(metadata, keep_run=self._keeps_runs()),
                parent_config=make_config(thread_id, ns, parent_id) if parent_id else None,
                pending_writes=load_writes(reader, writes),
            )

    async def list_threads(self, *, prefix: str = "", limit: int | None = None) -> AsyncIterator[ThreadInfo]:
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        params = (prefix, prefix_end(prefix), -1 if limit is None else limit)
        for thread_id, checkpoint_id, ts in await self._file.work(self._file.fetch_all, q.LIST_THREADS, params):
            yield ThreadInfo(thread_id, checkpoint_id, read_ts(checkpoint_id, ts))


def _read_chains(
    cur: sqlite3.Cursor,
    thread_id: str,
    wanted: Sequence[tuple[str, str, int]],
    checkpoints: Sequence[tuple[str, str]],
    reader: ChainReader,
) -> None:
    """Feed ``reader`` the rows it lacks to rebuild the ``(ns, channel, version)`` keys
    ``wanted``, and the lists the pending writes of ``checkpoints`` ``(ns, id)`` extend."""
    wanted = [k for k in wanted if not reader.has(k[1], k[2], k[0])]
    known = json.dumps(reader.known_keys())
    checkpoints = [c for c in checkpoints if type(c[0]) is str and type(c[1]) is str]  # else check_row fails it
    params = (json.dumps(wanted), thread_id, known, json.dumps(checkpoints))
    for ns, channel, version, tag, data, base, seq, ref_ns, ref_channel, ref_version, ref_key in cur.execute(
        q.SELECT_CHAINS, params
    ):
        reader.add(channel, version, tag, data, base, seq, ns=ns, ref_ns=ref_ns, ref_channel=ref_channel,
                   ref_version=ref_version, ref_key=ref_key)  # fmt: skip
