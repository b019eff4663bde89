"""The SQLite saver: the embedded default, one file on disk, stdlib sqlite3.

One connection, shared by every thread and guarded by a lock (sqlite3 objects
are not safe for concurrent use; ``check_same_thread=False`` only lifts the
same-thread check). A statement on a local file is tens of microseconds of
work, so the SQL runs where it is called: under a sync call (``invoke``,
``get_state``) on the calling thread, as LangGraph's sync saver runs it, and
under async callers on the event loop's thread, as long as the call can start
at once. What must never reach the loop is a wait: another process holding
the file (``graphwire prune``, a backup, an ``sqlite3`` shell in a
transaction) can make a call wait up to ``busy_timeout``, so a call in place
does not wait at all; finding the file or the lock held, it goes to the saver's
one worker thread, which waits, while the loop keeps serving other threads and
health checks (:mod:`._file`). Values are serialized on the caller's thread (a
state is not read while the next step changes it). A wait past ``busy_timeout``
fails with :class:`~engine.errors.CheckpointError` ("database is locked":
UNAVAILABLE to a gRPC caller, who may retry).

Pragmas, set at open:

* ``journal_mode=WAL``: readers never block the writer, and a commit is an
  append to the WAL file.
* ``synchronous=NORMAL``: a commit is written to the WAL, fsynced when the WAL
  is checkpointed. A committed version survives a crash of the process and
  the file is never corrupted; a power loss or OS crash can lose the last
  commits. That trade makes a put tens of microseconds, not milliseconds.
* ``busy_timeout``: another process holding the write lock is waited for,
  not an immediate "database is locked" (0 while a call runs in place: it goes
  to the worker instead).
* ``wal_autocheckpoint=0`` on a file the saver opened: the WAL is checkpointed
  by the worker thread, not in the commit that grows it (:mod:`._file`).

The schema is brought up to date at open (:mod:`._migrate`); puts and gets
never do schema work.

The saver keeps to the checkpoint contract, a thin face over parts of its
own, each built whole by the constructor: the file (:mod:`._file`: the
connection, its lock, the worker thread, the serving lock), reads
(:mod:`._reads`), writes (:mod:`._writes`, pruning by :mod:`._prune`) and the
host's run and thread records (:mod:`._runs`, ``saver.runs``; :mod:`._threads`, ``saver.threads``) and assistants
(:mod:`._assistants`, ``saver.assistants``), all running their SQL
through the file's ``work`` and ``transaction``. Named SQL is in
:mod:`._queries`.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from engine.checkpoint._delta import DEFAULT_CACHE_THREADS, DEFAULT_FANOUT
from engine.checkpoint._sql_write import SqlDeltas
from engine.checkpoint._opening import OpenedByConnString
from engine.checkpoint._retention import Choose
from engine.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    Lease,
    ThreadInfo,
)
from engine.checkpoint.sqlite._file import SaverFile
from engine.checkpoint.sqlite._prepared import PreparedWrite
from engine.checkpoint.sqlite._reads import Reads
from engine.checkpoint.sqlite._assistants import SqliteAssistants
from engine.checkpoint.sqlite._crons import SqliteCrons
from engine.checkpoint.sqlite._webhooks import SqliteWebhooks
from engine.checkpoint.sqlite._delayed import SqliteDelayed
from engine.checkpoint.sqlite._runs import SqliteRuns
from engine.checkpoint.sqlite._threads import SqliteThreads
from engine.checkpoint.sqlite._writes import Writes
from engine.serde import Serializer

__all__ = ["SqliteSaver"]


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
        deltas = SqlDeltas(fanout=delta_fanout, max_threads=delta_cache_threads, max_state_bytes=max_state_bytes)
        self._file = file = SaverFile(path_or_conn, exclusive=exclusive)
        self._conn = file.conn  # for a caller's own look at the file (tests, tools)
        self._worker = file.worker
        self._reads = Reads(file, deltas, lambda: self.serde, lambda: self.keeps_run_ids)
        self._writes = Writes(file, deltas, lambda: self.serde)
        self.threads: SqliteThreads = SqliteThreads(file.work, file.transaction)  # a host's thread records, in this file
        self.runs: SqliteRuns = SqliteRuns(file.work, file.transaction, threads=self.threads)  # and its run records
        self.assistants: SqliteAssistants = SqliteAssistants(file.work, file.transaction)  # and its assistants
        self.crons: SqliteCrons = SqliteCrons(file.work, file.transaction)  # and its crons
        self.webhooks: SqliteWebhooks = SqliteWebhooks(file.work, file.transaction)  # and its webhooks to send
        self.delayed: SqliteDelayed = SqliteDelayed(file.work, file.transaction)  # and its runs waiting to start

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, *, serde: Serializer | None = None) -> Iterator[SqliteSaver]:  # type: ignore[override]  # no pipeline mode in SQLite
        """Open a saver on ``conn_string`` (a path, or a ``file:`` URI) for the ``with`` block, closing it after."""
        saver = cls(conn_string, serde=serde)
        try:
            yield saver
        finally:
            saver._file.close()

    async def aclose(self) -> None:
        self._file.close()

    # -- reads (engine/checkpoint/sqlite/_reads.py) ------------------------------
    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        return await self._reads.get_tuple(config)

    def alist(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        return self._reads.list(config, filter=filter, before=before, limit=limit)

    def alist_threads(self, *, prefix: str = "", limit: int | None = None) -> AsyncIterator[ThreadInfo]:
        return self._reads.list_threads(prefix=prefix, limit=limit)

    # -- writes (engine/checkpoint/sqlite/_writes.py) ----------------------------
    async def aput(
        self,
        config: Mapping[str, Any],
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> dict[str, Any]:
        return await self._writes.put(config, checkpoint, metadata, new_versions)

    async def aput_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Any, ...]] = (),
    ) -> list[dict[str, Any]]:
        return await self._writes.put_many(puts, writes=writes)

    def prepare_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Any, ...]] = (),
    ) -> PreparedWrite:
        """:meth:`aput_many` up to its transaction, to store alone or with a run's end (:mod:`._prepared`)."""
        return self._writes.prepare_many(puts, writes=writes)

    async def aput_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await self._writes.put_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str, *, lease: Lease | None = None) -> None:  # no leases: ignored
        await self._writes.delete_thread(str(thread_id))

    async def _aprune_thread(self, thread_id: str, choose: Choose) -> int:
        return await self._writes.prune_thread(thread_id, choose)
