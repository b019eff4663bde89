"""The SQLite saver: the embedded default, one file on disk, stdlib sqlite3.

One connection, shared by every thread and guarded by a lock (sqlite3 objects
are not safe for concurrent use; ``check_same_thread=False`` only lifts the
same-thread check). The async methods never touch sqlite3 on the event loop's
thread: their SQL runs on the saver's one worker thread. Each call is usually
tens of microseconds of work on a local file, but another process holding the
file (``graphwire prune``, a backup, an ``sqlite3`` shell in a transaction)
can make it wait up to ``busy_timeout``, and the loop must keep serving other
threads and health checks meanwhile. Values are serialized on the caller's
thread, before the hop (a state is not read while the next step changes it).
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
from datetime import timedelta
from typing import Any, TypeVar

from engine.checkpoint._chain import ChainReader
from engine.checkpoint._delta import DEFAULT_CACHE_THREADS, DEFAULT_FANOUT, BlobPlan, DeltaCache
from engine.checkpoint._retention import blobs_to_keep, check_prune_args, checkpoints_to_prune
from engine.checkpoint._helpers import (
    check_list_args,
    check_row,
    check_versions,
    dump_meta,
    dump_metadata,
    dump_writes,
    list_keys,
    load_checkpoint,
    load_meta,
    load_metadata,
    load_writes,
    make_config,
    parse_config,
    parse_write_config,
    reading,
)
from engine.checkpoint._opening import OpenedByConnString
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
from engine.checkpoint.sqlite._migrate import migrate
from engine.errors import CheckpointError, CorruptCheckpointError
from engine.serde import Serializer

__all__ = ["SqliteSaver"]

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5_000
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
            conn = sqlite3.connect(
                path,
                check_same_thread=False,
                isolation_level=None,
                timeout=BUSY_TIMEOUT_MS / 1000,
                uri=path.startswith("file:"),
            )
            self._owns_conn = True
        conn.isolation_level = None  # we issue BEGIN/COMMIT ourselves
        self._conn = conn
        self._lock = threading.Lock()
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            migrate(conn)
        except BaseException:
            if self._owns_conn:
                conn.close()
            self._release()
            raise
        # One cursor for every statement: saves creating one per call.
        self._cur = conn.cursor()

    @classmethod
    @contextmanager
    def from_conn_string(cls, path: str, *, serde: Serializer | None = None) -> Iterator[SqliteSaver]:
        """Open a saver on ``path`` for the ``with`` block, closing it after."""
        saver = cls(path, serde=serde)
        try:
            yield saver
        finally:
            saver._close()

    # -- plumbing ----------------------------------------------------------------
    async def _work(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` (SQL, and decoding what it read) on the saver's worker thread."""
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
        readers: dict[tuple[str, str], ChainReader] = {}  # decoded rows, shared by the whole listing
        start, size = 0, _FIRST_PAGE
        while start < len(rows):
            page = rows[start : start + size]
            start, size = start + size, min(size * 2, _MAX_PAGE)
            for found in await self._work(self._page, page, readers):
                if isinstance(found, CorruptCheckpointError):
                    raise found
                yield found

    def _fetch_all(self, sql: str, params: Sequence[Any]) -> list[Any]:
        with self._transaction(q.BEGIN_READ) as cur:
            return cur.execute(sql, params).fetchall()

    def _page(
        self, page: list[Any], readers: dict[tuple[str, str], ChainReader]
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
            pairs: dict[tuple[str, str], dict[tuple[str, int], None]] = {}
            for row, meta in zip(page, metas):
                pairs.setdefault((row[0], row[1]), {}).update(dict.fromkeys(meta["channel_versions"].items()))
            for (thread_id, ns), wanted_pairs in pairs.items():
                reader = readers.setdefault((thread_id, ns), ChainReader(self.serde))
                self._read_chains(cur, thread_id, ns, list(wanted_pairs), reader)
            writes = [cur.execute(q.SELECT_WRITES, (row[0], row[1], row[2])).fetchall() for row in page]
        out: list[CheckpointTuple | CorruptCheckpointError] = []
        for (thread_id, ns, *row), meta, w in zip(page, metas, writes):
            try:
                out.append(self._tuple(thread_id, ns, row, meta, readers[(thread_id, ns)], w))
            except CorruptCheckpointError as exc:
                out.append(exc)
        return out

    def _read_chains(
        self, cur: sqlite3.Cursor, thread_id: str, ns: str, wanted: Sequence[tuple[str, int]], reader: ChainReader
    ) -> None:
        """Feed ``reader`` the rows it lacks to rebuild the ``(channel, version)`` pairs ``wanted``."""
        wanted = [(ch, v) for ch, v in wanted if not reader.has(ch, v)]
        if not wanted:
            return
        known = json.dumps([[ch, v] for ch, v in zip(*reader.known_pairs())])
        for channel, version, tag, data, base, seq in cur.execute(
            q.SELECT_CHAINS, (json.dumps(wanted), thread_id, ns, known)
        ):
            reader.add(channel, version, tag, data, base, seq)

    def _fetch_parts(
        self, cur: sqlite3.Cursor, thread_id: str, ns: str, row: Sequence[Any], reader: ChainReader
    ) -> tuple[dict[str, Any], list[Any]]:
        """Decode the meta, feed ``reader`` the rows of the channel values it lacks, fetch the writes."""
        meta = load_meta(self.serde, row[0], (row[3], row[4]))
        self._read_chains(cur, thread_id, ns, list(meta["channel_versions"].items()), reader)
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
                checkpoint=load_checkpoint(checkpoint_id, ts, meta, reader.values(meta["channel_versions"])),
                metadata=load_metadata(metadata),
                parent_config=make_config(thread_id, ns, parent_id) if parent_id else None,
                pending_writes=load_writes(self.serde, writes),
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
        (inserted,) = await self._work(self._put, [(thread_id, ns, plan, checkpoint_row)], ([], []))
        self._deltas.commit(thread_id, ns, plan, inserted)
        return make_config(thread_id, ns, checkpoint["id"])

    async def aput_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Mapping[str, Any], Sequence[tuple[str, Any]], str]] = (),
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
            regular: list[tuple[Any, ...]] = []
            special: list[tuple[Any, ...]] = []
            for config, task_writes, task_id in writes:
                more_regular, more_special = self._write_rows(config, task_writes, task_id, "")
                regular += more_regular
                special += more_special
            inserted = await self._work(self._put, prepared, (regular, special))
        except BaseException:
            self._deltas.forget_thread(thread_id)
            raise
        for (tid, ns, plan, _), channels in zip(prepared, inserted):
            self._deltas.commit(tid, ns, plan, channels)
        return [make_config(tid, ns, row[2]) for tid, ns, _, row in prepared]

    def _put(
        self,
        versions: Sequence[tuple[str, str, BlobPlan, tuple[Any, ...]]],
        writes: tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]],
    ) -> list[list[str]]:
        """Store serialized versions, then pending writes, in one transaction: per version, the channels inserted."""
        out: list[list[str]] = []
        with self._transaction(q.BEGIN_WRITE) as cur:
            for thread_id, ns, plan, checkpoint_row in versions:

                def base_exists(r: Any, thread_id: str = thread_id, ns: str = ns) -> bool:
                    return cur.execute(q.BLOB_EXISTS, (thread_id, ns, r.channel, r.base)).fetchone() is not None

                inserted: list[str] = []
                for b in plan.without_missing_bases(base_exists):
                    cur.execute(q.INSERT_BLOB, (thread_id, ns, b.channel, b.version, b.type, b.data, b.base, b.seq))
                    if cur.rowcount > 0:
                        inserted.append(b.channel)
                cur.execute(q.INSERT_CHECKPOINT, checkpoint_row)
                out.append(inserted)
            regular, special = writes
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
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """A task's writes serialized as rows: ``(regular, special)`` (special channels replace)."""
        thread_id, ns, checkpoint_id = parse_write_config(config)
        regular: list[tuple[Any, ...]] = []
        special: list[tuple[Any, ...]] = []
        for idx, channel, tag, data, replaces in dump_writes(self.serde, writes, task_id, max_bytes=self._deltas.max_state_bytes):
            row = (thread_id, ns, checkpoint_id, task_id, idx, channel, tag, data, task_path)
            (special if replaces else regular).append(row)
        return regular, special

    async def adelete_thread(self, thread_id: str, *, lease: Lease | None = None) -> None:  # no leases: ignored
        await self._work(self._delete_thread, str(thread_id))
        self._deltas.forget_thread(str(thread_id))

    def _delete_thread(self, thread_id: str) -> None:
        with self._transaction(q.BEGIN_WRITE) as cur:
            for statement in q.DELETE_THREAD:
                cur.execute(statement, (thread_id,))

    async def aprune(
        self, thread_id: str, *, keep_last: int | None = None, older_than: timedelta | None = None
    ) -> int:
        check_prune_args(keep_last, older_than)
        thread_id = str(thread_id)
        pruned = await self._work(self._prune, thread_id, keep_last, older_than)
        self._deltas.forget_thread(thread_id)
        return pruned

    def _prune(self, thread_id: str, keep_last: int | None, older_than: timedelta | None) -> int:
        with self._transaction(q.BEGIN_WRITE) as cur:
            metas = cur.execute(q.SELECT_CHECKPOINT_METAS, (thread_id,)).fetchall()
            kept, deleted = checkpoints_to_prune(
                [(ns, cid, ts) for ns, cid, ts, _, _ in metas], keep_last=keep_last, older_than=older_than
            )
            if not deleted:
                return 0
            referenced: list[tuple[str, str, int]] = []
            for ns, cid, _, tag, data in metas:
                if (ns, cid) in kept:
                    with reading(thread_id, cid):
                        meta = load_meta(self.serde, cid, (tag, data))
                    referenced.extend((ns, ch, v) for ch, v in meta["channel_versions"].items())
            bases = {(ns, ch, v): base for ns, ch, v, base in cur.execute(q.SELECT_BLOB_BASES, (thread_id,))}
            keep = blobs_to_keep(referenced, bases)
            gone = [(thread_id, ns, cid) for ns, cid in sorted(deleted)]
            cur.executemany(q.DELETE_WRITES, gone)
            cur.executemany(q.DELETE_CHECKPOINT, gone)
            cur.executemany(q.DELETE_BLOB, [(thread_id, *key) for key in bases if key not in keep])
        return len(deleted)

    async def alist_threads(self, *, prefix: str = "", limit: int | None = None) -> AsyncIterator[ThreadInfo]:
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        params = (prefix, prefix_end(prefix), -1 if limit is None else limit)
        for thread_id, checkpoint_id, ts in await self._work(self._fetch_all, q.LIST_THREADS, params):
            yield ThreadInfo(thread_id, checkpoint_id, ts)
