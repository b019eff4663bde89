"""The SQLite saver: the embedded default, one file on disk, stdlib sqlite3.

One connection, shared by every thread and guarded by a lock (sqlite3 objects
are not safe for concurrent use; ``check_same_thread=False`` only lifts the
same-thread check). Called from async code, the methods never touch sqlite3 on
the event loop's thread: their SQL runs on the saver's one worker thread. Each
call is usually tens of microseconds of work on a local file, but another
process holding the file (``graphwire prune``, a backup, an ``sqlite3`` shell
in a transaction) can make it wait up to ``busy_timeout``, and the loop must
keep serving other threads and health checks meanwhile. Under a sync call
(``invoke``, ``get_state``: the loop is the calling thread's own, serving that
call alone) the SQL runs in place, as LangGraph's sync saver runs it: the hop
there and back cost more CPU than the statements. Values are serialized on the
caller's thread, before any hop (a state is not read while the next step changes it).
A wait past ``busy_timeout`` fails with :class:`~engine.errors.CheckpointError`
("database is locked": UNAVAILABLE to a gRPC caller, who may retry).

Pragmas, set at open:

* ``journal_mode=WAL``: readers never block the writer, and a commit is an
  append to the WAL file.
* ``synchronous=NORMAL``: a commit is written to the WAL, fsynced when the WAL
  is checkpointed. A committed version survives a crash of the process and
  the file is never corrupted; a power loss or OS crash can lose the last
  commits. That trade makes a put tens of microseconds, not milliseconds.
* ``busy_timeout``: another process holding the write lock is waited for,
  not an immediate "database is locked".

The schema is brought up to date at open (:mod:`._migrate`); puts and gets
never do schema work.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from engine._internal._sync import on_sync_loop
from engine.checkpoint._chain import ChainReader
from engine.checkpoint._delta import DEFAULT_CACHE_THREADS, DEFAULT_FANOUT, BlobPlan, DeltaCache, base_key
from engine.checkpoint._retention import Choose
from engine.checkpoint._helpers import (
    check_list_args,
    check_row,
    check_versions,
    dump_meta,
    dump_metadata,
    list_keys,
    load_checkpoint,
    load_meta,
    load_metadata,
    make_config,
    parse_config,
    parse_write_config,
    reading,
)
from engine.checkpoint._opening import OpenedByConnString
from engine.checkpoint._writes import WriteRow, dump_writes, load_writes
from engine.checkpoint.base import (
    BaseCheckpointSaver,
    check_chain,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    Lease,
    ThreadInfo,
)
from engine.checkpoint.sqlite import _queries as q
from engine.checkpoint.sqlite._filters import matches, metadata_clause, prefix_end
from engine.checkpoint.sqlite._lockfile import ServingLock
from engine._sql import sqlite as sql
from engine._sql.sqlite import BUSY_TIMEOUT_MS
from engine.checkpoint.sqlite._migrate import TABLES
from engine.checkpoint.sqlite._prune import prune
from engine.checkpoint.sqlite._runs import SqliteRuns
from engine.errors import CheckpointError, CorruptCheckpointError
from engine.serde import Serializer

__all__ = ["SqliteSaver"]

T = TypeVar("T")
# alist pages: small first (a caller often wants one or two), then larger.
_FIRST_PAGE, _MAX_PAGE = 4, 128


class SqliteSaver(OpenedByConnString, BaseCheckpointSaver):
    """Checkpoints in a SQLite database file.

    Args:
        path_or_conn: a file path (``":memory:"`` and ``file:`` URIs work), or
            an open ``sqlite3.Connection``. A connection passed in is switched
            to autocommit (``isolation_level=None``), is expected to have been
            opened with ``check_same_thread=False`` if several threads will
            use the saver, and is not closed by :meth:`aclose`.
        serde: the serializer of state values (default: a plain
            :class:`~engine.serde.Serializer`).
        delta_fanout: ``K`` of :mod:`engine.checkpoint._delta` (None: no deltas).
        delta_cache_threads: how many threads' last values the delta cache keeps.
        max_state_bytes: refuse, with :class:`~engine.serde.StateTooLargeError`,
            a version whose state would take more bytes than this, and a
            pending write larger than it (None: no limit). See "State size
            limit" in :mod:`engine.checkpoint._delta`.
        exclusive: refuse to open a file another exclusive saver (in any
            process) has open, with :class:`~engine.errors.CheckpointError`;
            what ``graphwire serve`` opens (see :mod:`._lockfile`).

    Every read treats the file as hostile: a row that does not decode, or
    decodes to the wrong shape, fails with
    :class:`~engine.errors.CorruptCheckpointError` naming the thread and the
    checkpoint, and never runs code the bytes name (see :mod:`engine.serde`).
    """

    def __init__(
        self,
        path_or_conn: str | os.PathLike[str] | sqlite3.Connection,
        *,
        serde: Serializer | None = None,
        delta_fanout: int | None = DEFAULT_FANOUT,
        delta_cache_threads: int = DEFAULT_CACHE_THREADS,
        max_state_bytes: int | None = None,
        exclusive: bool = False,
    ) -> None:
        super().__init__(serde=serde)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphwire-sqlite")
        self._serving: ServingLock | None = None
        self._deltas = DeltaCache(fanout=delta_fanout, max_threads=delta_cache_threads, max_state_bytes=max_state_bytes)
        if isinstance(path_or_conn, sqlite3.Connection):
            conn, self._owns_conn = path_or_conn, False
        else:
            path = os.fspath(path_or_conn)
            if exclusive:
                self._serving = ServingLock(path.removeprefix("file:").partition("?")[0])
            conn, self._owns_conn = sql.connect(path), True
        self._conn = conn
        self._lock = threading.Lock()
        try:
            sql.prepare(conn, TABLES)
        except BaseException:
            if self._owns_conn:
                conn.close()
            self._release()
            raise
        # One cursor for every statement: saves creating one per call.
        self._cur = conn.cursor()
        self.runs: SqliteRuns = SqliteRuns(self._work, self._transaction)  # a host's run records, in this file

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, *, serde: Serializer | None = None) -> Iterator[SqliteSaver]:  # type: ignore[override]  # no pipeline mode in SQLite
        """Open a saver on ``conn_string`` (a path, or a ``file:`` URI) for the ``with`` block, closing it after."""
        saver = cls(conn_string, serde=serde)
        try:
            yield saver
        finally:
            saver._close()

    # -- plumbing ----------------------------------------------------------------
    async def _work(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` (SQL, and decoding what it read) on the saver's worker thread, or
        in place under a sync call (the hop there and back cost ~130 µs of CPU; the statements
        are serialized by ``_lock`` either way)."""
        if on_sync_loop():
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self._worker, fn, *args)

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[sqlite3.Cursor]:
        """Hold the lock and a transaction; commit on success, roll back on any error."""
        with self._lock:
            cur = self._cur
            try:
                cur.execute(begin)
                yield cur
                cur.execute(q.COMMIT)
            except BaseException as exc:
                if self._conn.in_transaction:
                    self._conn.execute(q.ROLLBACK)
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                    raise CheckpointError(
                        f"sqlite: {exc}: another process held the file for over {BUSY_TIMEOUT_MS // 1000} s"
                    ) from exc
                if isinstance(exc, sqlite3.Error):
                    raise CheckpointError(f"sqlite: {exc}") from exc
                raise

    def _release(self) -> None:
        self._worker.shutdown(wait=False)
        if self._serving is not None:
            self._serving.release()

    def _close(self) -> None:
        with self._lock:
            if self._owns_conn:
                self._conn.close()
        self._release()

    async def aclose(self) -> None:
        self._close()

    # -- reads -------------------------------------------------------------------
    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        return await self._work(self._get_tuple, config)

    def _get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        thread_id, ns, checkpoint_id = parse_config(config)
        with self._transaction(q.BEGIN_READ) as cur:
            if checkpoint_id is None:
                row = cur.execute(q.SELECT_LATEST_CHECKPOINT, (thread_id, ns)).fetchone()
            else:
                row = cur.execute(q.SELECT_CHECKPOINT, (thread_id, ns, checkpoint_id)).fetchone()
            if row is None:
                return None
            reader = ChainReader(self.serde)
            with reading(thread_id, row[0]):
                meta, writes = self._fetch_parts(cur, thread_id, ns, row, reader)
        found = self._tuple(thread_id, ns, row, meta, reader, writes)
        self._deltas.learn(thread_id, ns, reader, meta["channel_versions"])
        return found

    async def alist(
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
        params: list[Any] = [value for _, value in keys]
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
        rows = await self._work(self._fetch_all, sql, params)
        if wanted:
            rows = [r for r in rows if matches(r, wanted)]
        if limit is not None:
            rows = rows[:limit]
        readers: dict[str, ChainReader] = {}  # decoded rows, shared by the whole listing (per thread)
        start, size = 0, _FIRST_PAGE
        while start < len(rows):
            page = rows[start : start + size]
            start, size = start + size, min(size * 2, _MAX_PAGE)
            for item in await self._work(self._page, page, readers):
                if isinstance(item, CorruptCheckpointError):
                    raise item
                yield item

    def _fetch_all(self, sql: str, params: Sequence[Any]) -> list[Any]:
        with self._transaction(q.BEGIN_READ) as cur:
            return cur.execute(sql, params).fetchall()

    def _page(
        self, page: list[Any], readers: dict[str, ChainReader]
    ) -> list[CheckpointTuple | CorruptCheckpointError]:
        """One page of an ``alist``, in one read transaction: each checkpoint, or why it does not read.

        One read per page: a chains query per thread (each row decoded once
        per listing) and the writes of each checkpoint. A checkpoint pruned
        since the listing began is gone: skipped. A checkpoint that does not
        read fails the listing when it is reached, not before.
        """
        with self._transaction(q.BEGIN_READ) as cur:
            page = [row for row in page if cur.execute(q.CHECKPOINT_EXISTS, (row[0], row[1], row[2])).fetchone()]
            metas = []
            for row in page:
                with reading(row[0], row[2]):
                    metas.append(load_meta(self.serde, row[2], (row[5], row[6])))
            keys: dict[str, dict[tuple[str, str, int], None]] = {}  # per thread, in order
            checkpoints: dict[str, list[tuple[str, str]]] = {}
            for row, meta in zip(page, metas):
                keys.setdefault(row[0], {}).update(dict.fromkeys((row[1], ch, v) for ch, v in meta["channel_versions"].items()))
                checkpoints.setdefault(row[0], []).append((row[1], row[2]))
            for thread_id, wanted in keys.items():
                reader = readers.setdefault(thread_id, ChainReader(self.serde))
                self._read_chains(cur, thread_id, list(wanted), checkpoints[thread_id], reader)
            writes = [cur.execute(q.SELECT_WRITES, (row[0], row[1], row[2])).fetchall() for row in page]
        out: list[CheckpointTuple | CorruptCheckpointError] = []
        for (thread_id, ns, *row), meta, w in zip(page, metas, writes):
            try:
                out.append(self._tuple(thread_id, ns, row, meta, readers[thread_id], w))
            except CorruptCheckpointError as exc:
                out.append(exc)
        return out

    def _read_chains(
        self,
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

    def _fetch_parts(
        self, cur: sqlite3.Cursor, thread_id: str, ns: str, row: Sequence[Any], reader: ChainReader
    ) -> tuple[dict[str, Any], list[Any]]:
        """Decode the meta, feed ``reader`` the rows of the channel values it lacks, fetch the writes."""
        meta = load_meta(self.serde, row[0], (row[3], row[4]))
        self._read_chains(cur, thread_id, [(ns, ch, v) for ch, v in meta["channel_versions"].items()], [(ns, row[0])], reader)
        writes = cur.execute(q.SELECT_WRITES, (thread_id, ns, row[0])).fetchall()
        return meta, writes

    def _tuple(
        self, thread_id: str, ns: str, row: Sequence[Any], meta: dict[str, Any], reader: ChainReader, writes: list[Any]
    ) -> CheckpointTuple:
        checkpoint_id, parent_id, ts, _, _, metadata = row
        with reading(thread_id, checkpoint_id):
            check_row(checkpoint_id, parent_id, ts)
            return CheckpointTuple(
                config=make_config(thread_id, ns, checkpoint_id),
                checkpoint=load_checkpoint(checkpoint_id, ts, meta, reader.values(meta["channel_versions"], ns)),
                metadata=load_metadata(metadata),
                parent_config=make_config(thread_id, ns, parent_id) if parent_id else None,
                pending_writes=load_writes(reader, writes),
            )

    # -- writes ------------------------------------------------------------------
    async def aput(
        self,
        config: Mapping[str, Any],
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> dict[str, Any]:
        thread_id, ns, parent_id = parse_config(config)
        check_versions(checkpoint, new_versions)
        # Serialize everything first: an unstorable value fails before the transaction.
        plan = self._deltas.plan(
            self.serde, thread_id, ns, checkpoint["channel_values"], new_versions, checkpoint["channel_versions"]
        )
        meta_type, meta = dump_meta(self.serde, checkpoint)
        checkpoint_row = (
            thread_id, ns, checkpoint["id"], parent_id, checkpoint["ts"], meta_type, meta, dump_metadata(metadata)
        )  # fmt: skip
        (inserted,) = await self._work(self._put, [(thread_id, ns, plan, checkpoint_row)], [])
        self._deltas.commit(thread_id, ns, plan, inserted)
        return make_config(thread_id, ns, checkpoint["id"])

    async def aput_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Any, ...]] = (),
    ) -> list[dict[str, Any]]:
        """Store a chain of versions of one thread, and pending writes of them, in one transaction.

        All or none: a run's writer counts the batch as saved only once it
        landed, so a refused version must not leave the ones before it stored.
        The cache assumes each plan before the next (whose deltas may build
        on it), and forgets the thread if the batch fails.
        """
        check_chain(puts)
        if len(puts) < 2 and not writes:
            return [await self.aput(*put) for put in puts]
        thread_id = parse_config(puts[0][0])[0]
        prepared: list[tuple[str, str, BlobPlan, tuple[Any, ...]]] = []
        try:
            for config, checkpoint, metadata, new_versions in puts:
                tid, ns, parent_id = parse_config(config)
                check_versions(checkpoint, new_versions)
                values, versions = checkpoint["channel_values"], checkpoint["channel_versions"]
                plan = self._deltas.plan(self.serde, tid, ns, values, new_versions, versions)
                meta_type, meta = dump_meta(self.serde, checkpoint)
                row = (tid, ns, checkpoint["id"], parent_id, checkpoint["ts"], meta_type, meta, dump_metadata(metadata))
                self._deltas.assume(tid, ns, plan)
                prepared.append((tid, ns, plan, row))
            rows = [
                r for config, task_writes, task_id, *path in writes
                for r in self._write_rows(config, task_writes, task_id, path[0] if path else "")
            ]  # fmt: skip
            inserted = await self._work(self._put, prepared, rows)
        except BaseException:
            self._deltas.forget_thread(thread_id)
            raise
        for (tid, ns, plan, _), channels in zip(prepared, inserted):
            self._deltas.commit(tid, ns, plan, channels)
        return [make_config(tid, ns, row[2]) for tid, ns, _, row in prepared]

    def _put(
        self, versions: Sequence[tuple[str, str, BlobPlan, tuple[Any, ...]]], writes: Sequence[tuple[tuple[str, ...], WriteRow]]
    ) -> list[list[str]]:
        """Store serialized versions, then pending writes, in one transaction: per version, the channels inserted."""
        out: list[list[str]] = []
        with self._transaction(q.BEGIN_WRITE) as cur:

            def exists(thread_id: str, key: tuple[str, str, int] | None) -> bool:
                return key is None or cur.execute(q.BLOB_EXISTS, (thread_id, *key)).fetchone() is not None

            for thread_id, ns, plan, checkpoint_row in versions:
                inserted: list[str] = []
                for b in plan.without_missing_bases(lambda r, t=thread_id, ns=ns: exists(t, base_key(ns, r))):  # type: ignore[misc]
                    f = b.ref
                    cur.execute(q.INSERT_BLOB, (thread_id, ns, b.channel, b.version, b.type, b.data, b.base, b.seq,
                                                f and f.ns, f and f.channel, f and f.version, f and f.key))  # fmt: skip
                    if cur.rowcount > 0:
                        inserted.append(b.channel)
                cur.execute(q.INSERT_CHECKPOINT, checkpoint_row)
                out.append(inserted)
            regular: list[tuple[Any, ...]] = []
            special: list[tuple[Any, ...]] = []
            for (thread_id, ns, checkpoint_id, task_id, task_path), w in writes:
                if w.ref is not None and not exists(thread_id, (w.ref.ns, w.ref.channel, w.ref.version)):
                    w = w.full(self.serde)  # the list it extends is gone (pruned since the cache learned it)
                f = w.ref
                (special if w.replaces else regular).append((
                    thread_id, ns, checkpoint_id, task_id, w.idx, w.channel, w.type, w.data, task_path,
                    f and f.ns, f and f.channel, f and f.version, f and f.key))  # fmt: skip
            if regular:
                cur.executemany(q.INSERT_WRITE, regular)
            if special:
                cur.executemany(q.REPLACE_WRITE, special)
        return out

    async def aput_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await self._work(self._put, [], self._write_rows(config, writes, task_id, task_path))

    def _write_rows(
        self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str, task_path: str
    ) -> list[tuple[tuple[str, ...], WriteRow]]:
        """A task's writes serialized: ``((thread_id, ns, checkpoint_id, task_id, task_path), row)`` each."""
        thread_id, ns, checkpoint_id = parse_write_config(config)
        refer = self._deltas.referrer(self.serde, thread_id)
        rows = dump_writes(self.serde, writes, task_id, max_bytes=self._deltas.max_state_bytes, refer=refer)
        return [((thread_id, ns, checkpoint_id, task_id, task_path), r) for r in rows]

    async def adelete_thread(self, thread_id: str, *, lease: Lease | None = None) -> None:  # no leases: ignored
        await self._work(self._delete_thread, str(thread_id))
        self._deltas.forget_thread(str(thread_id))

    def _delete_thread(self, thread_id: str) -> None:
        with self._transaction(q.BEGIN_WRITE) as cur:
            for statement in q.DELETE_THREAD:
                cur.execute(statement, (thread_id,))

    async def _aprune_thread(self, thread_id: str, choose: Choose) -> int:
        pruned = await self._work(self._prune, thread_id, choose)
        self._deltas.forget_thread(thread_id)
        return pruned

    def _prune(self, thread_id: str, choose: Choose) -> int:
        with self._transaction(q.BEGIN_WRITE) as cur:
            return prune(cur, self.serde, thread_id, choose)

    async def alist_threads(self, *, prefix: str = "", limit: int | None = None) -> AsyncIterator[ThreadInfo]:
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        params = (prefix, prefix_end(prefix), -1 if limit is None else limit)
        for thread_id, checkpoint_id, ts in await self._work(self._fetch_all, q.LIST_THREADS, params):
            yield ThreadInfo(thread_id, checkpoint_id, ts)
