"""The SQLite saver's file: its one connection, the lock and the worker thread its SQL may run on.

:class:`SaverFile` is the part of :class:`~engine.checkpoint.sqlite.SqliteSaver`
every other part runs SQL through (reads, writes, run records), by
composition: each is handed its :meth:`~SaverFile.work` and
:meth:`~SaverFile.transaction`.

Where a call's SQL runs. A statement on a local file in WAL mode is
microseconds of work; what costs is waiting for the file when another
process holds it (``graphwire prune``, a backup, an ``sqlite3`` shell in a
transaction), up to ``busy_timeout``, and an event loop must never wait so.
So a call from async code runs **in place** on the loop's thread, with no
busy wait at all, when it can start at once: the connection's lock is free
and its first statement finds the file free. If not, nothing was done, and the
call goes to the file's **worker thread**, where it waits for the lock and
the file as long as ``busy_timeout`` allows (the loop serves other calls
meanwhile). Hopping to the worker for every call, as the saver did before,
cost a server on SQLite about a quarter of its CPU a run: each statement
gives up the GIL while SQLite steps, and taking it back from a busy loop is
a pair of context switches (bench/README.md, "SQLite's statements in
place"). Under a sync call the SQL runs in place and waits as ever (the
loop is the calling thread's own).

The WAL's checkpoints. SQLite checkpoints the WAL into the database inside
the commit that grows it past 1,000 pages, with an ``fsync``: in place on
the loop, that would stall every other call. On a connection the file opened
itself, automatic checkpoints are off, and :class:`_Checkpoints` has the
worker thread run a passive one (readers and writers go on) every so many
write transactions, as many as write about 1,000 pages.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from engine._internal._sync import on_sync_loop
from engine._internal._worker import CallThread
from engine._sql import sqlite as sql
from engine._sql.sqlite import BUSY_TIMEOUT_MS, Busy
from engine.checkpoint.sqlite import _queries as q
from engine.checkpoint.sqlite._lockfile import ServingLock
from engine.checkpoint.sqlite._migrate import TABLES
from engine.errors import CheckpointError

__all__ = ["SaverFile"]

T = TypeVar("T")
log = logging.getLogger("graphwire.sqlite")


class _Here(threading.local):
    """This thread's call in place, if any (:meth:`SaverFile.work`)."""

    in_place = False  # a call from an event loop runs here without waiting
    began = False  # and it has begun a transaction (a second one waits as ever: the first may have committed)


class _Checkpoints:
    """Passive WAL checkpoints on the worker thread, every ``every`` write transactions, ``every`` adapted so
    each copies about :data:`PAGES` pages (SQLite's own automatic checkpoint's size)."""

    PAGES = 1000
    FIRST, FEWEST, MOST = 128, 16, 8192
    #: A WAL this long (pages) at a checkpoint did not start over since several: the next one holds writers off.
    STUCK = 4 * PAGES

    def __init__(self) -> None:
        self.conn: sqlite3.Connection | None = None  # the worker thread's own, opened on the first
        # While a checkpoint posted from an event loop runs: done when it ends (that loop's calls wait for it).
        self.gate: asyncio.Future[None] | None = None
        self.every = self.FIRST
        self.writes = 0
        self.queued = False

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def wrote(self) -> bool:
        """A write transaction committed: whether a checkpoint is due now."""
        self.writes += 1
        if self.writes < self.every or self.queued:
            return False
        self.writes, self.queued = 0, True
        return True

    def done(self, frames: int) -> None:
        """A checkpoint found ``frames`` pages in the WAL: the next comes after as many writes as make :data:`PAGES`."""
        self.queued = False
        per_write = max(frames, 1) / self.every
        self.every = int(min(self.MOST, max(self.FEWEST, self.PAGES / per_write)))


class SaverFile:
    """A checkpoint file opened (its schema brought up to date), or a connection given.

    Args:
        path_or_conn: see :class:`~engine.checkpoint.sqlite.SqliteSaver`.
        exclusive: hold the file's serving lock (see :mod:`._lockfile`).
    """

    def __init__(self, path_or_conn: str | os.PathLike[str] | sqlite3.Connection, *, exclusive: bool = False) -> None:
        self.worker = CallThread("graphwire-sqlite")
        self._serving: ServingLock | None = None
        self._path = ""  # the file's, when opened here
        if isinstance(path_or_conn, sqlite3.Connection):
            conn, self._owns_conn = path_or_conn, False
        else:
            path = os.fspath(path_or_conn)
            if exclusive:
                self._serving = ServingLock(path.removeprefix("file:").partition("?")[0])
            conn, self._owns_conn = sql.connect(path), True
            self._path = path
        self.conn = conn
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
        self._here = _Here()
        # Calls from event loops run in place (see the module's doc) on a connection opened here; on one
        # given, whose settings are its owner's, every call goes to the worker as before.
        self._in_place = self._owns_conn
        self._busy_ms = BUSY_TIMEOUT_MS  # the connection's busy timeout now: 0 while a call runs in place
        self._checkpoints: _Checkpoints | None = None
        if self._in_place and conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            conn.execute("PRAGMA wal_autocheckpoint=0")
            self._checkpoints = _Checkpoints()

    async def work(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` (SQL, and decoding what it read): in place if it can start at once,
        else on the worker thread (see the module's doc); in place under a sync call."""
        if on_sync_loop():
            return fn(*args)
        if self._in_place:
            gate = self._checkpoints.gate if self._checkpoints is not None else None
            if gate is not None and gate.get_loop() is asyncio.get_running_loop():
                await asyncio.shield(gate)  # a checkpoint of ours: it ends sooner without writers (see _checkpoint)
            here = self._here
            here.in_place, here.began = True, False
            try:
                return fn(*args)
            except Busy:
                pass  # nothing was done: the worker waits for the file
            finally:
                here.in_place = False
        return await self.worker.call(fn, *args)

    @contextmanager
    def transaction(self, begin: str) -> Iterator[sqlite3.Cursor]:
        """Hold the lock and a transaction; commit on success, roll back on any error.

        In a call in place (:meth:`work`), its first transaction does not wait: the lock or the
        file held, it raises :class:`Busy` before anything was done."""
        here = self._here
        waits = not here.in_place or here.began
        if waits:
            self._lock.acquire()
        elif not self._lock.acquire(blocking=False):
            raise Busy
        try:
            here.began = True
            cur = self._cur
            if self._in_place:
                self._busy_ms = sql.wait_mode(cur, self._busy_ms, waits)
            try:
                cur.execute(begin)
                yield cur
                cur.execute(q.COMMIT)
            except BaseException as exc:
                if self.conn.in_transaction:
                    self.conn.execute(q.ROLLBACK)
                if sql.file_held(exc):
                    if not waits:  # (rolled back: the call's first transaction, nothing of it kept)
                        raise Busy from exc
                    raise CheckpointError(
                        f"sqlite: {exc}: another process held the file for over {BUSY_TIMEOUT_MS // 1000} s"
                    ) from exc
                if isinstance(exc, sqlite3.Error):
                    raise CheckpointError(f"sqlite: {exc}") from exc
                raise
            if begin != q.BEGIN_READ and self._checkpoints is not None and self._checkpoints.wrote():
                self._post_checkpoint()
        finally:
            self._lock.release()

    def _post_checkpoint(self) -> None:
        """A checkpoint to the worker; posted from a call in place, that loop's calls wait until it ends."""
        checkpoints = self._checkpoints
        assert checkpoints is not None
        gate = None
        if self._here.in_place:
            gate = checkpoints.gate = asyncio.get_running_loop().create_future()
        try:
            self.worker.post(lambda: self._checkpoint(gate))
        except RuntimeError:  # the file is closing: its last connection's close checkpoints it
            self._checkpointed(gate, 0)

    def _checkpoint(self, gate: asyncio.Future[None] | None) -> None:
        """A passive checkpoint of the WAL, on the worker thread, through a connection of its own.

        Passive: it waits for no reader or writer (another process's included); a writer that
        appends meanwhile keeps the WAL from starting over at its next write (it would only grow),
        so the calls of the loop that posted it wait for it (:meth:`work`: asynchronously)."""
        checkpoints = self._checkpoints
        assert checkpoints is not None
        frames = 0
        try:
            if checkpoints.conn is None:
                checkpoints.conn = sql.connect(self._path)
            [(_, frames, _)] = checkpoints.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()  # (all: no statement left open)
            if frames > checkpoints.STUCK:
                # The WAL has not started over for a while: writers of another loop or thread of this
                # process kept appending during each checkpoint. This one holds them off (in-place calls
                # come to the worker meanwhile): the next write starts the WAL over.
                with self._lock:
                    checkpoints.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error:  # the next one tries again; the WAL only grows meanwhile
            log.warning("checkpointing the SQLite WAL failed", exc_info=True)
        finally:
            if gate is None:
                self._checkpointed(None, frames)
            else:
                try:
                    gate.get_loop().call_soon_threadsafe(self._checkpointed, gate, frames)
                except RuntimeError:  # the loop is closed: nobody waits
                    self._checkpointed(None, frames)

    def _checkpointed(self, gate: asyncio.Future[None] | None, frames: int) -> None:
        """A checkpoint ended (on the loop that waits for it, if any)."""
        checkpoints = self._checkpoints
        assert checkpoints is not None
        checkpoints.done(frames)
        if gate is not None:
            if checkpoints.gate is gate:
                checkpoints.gate = None
            if not gate.done():
                gate.set_result(None)

    def fetch_all(self, statement: str, params: Sequence[Any]) -> list[Any]:
        """Every row of one read (blocking: run it through :meth:`work`)."""
        with self.transaction(q.BEGIN_READ) as cur:
            return cur.execute(statement, params).fetchall()

    def _release(self) -> None:
        self.worker.stop()
        if self._serving is not None:
            self._serving.release()

    def close(self) -> None:
        """Close the connection if it was opened here (not one given), stop the worker, let go of the serving lock."""
        if self._checkpoints is not None and self.worker.started:
            try:  # first (after a checkpoint still queued): the file's own connection, closed last, removes the WAL
                self.worker.submit_wait(self._checkpoints.close)
            except RuntimeError:  # closed before
                pass
        with self._lock:
            if self._owns_conn:
                self.conn.close()
        self._release()

