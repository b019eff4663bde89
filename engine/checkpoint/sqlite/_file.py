"""The SQLite saver's file: its one connection, the lock and the worker thread its SQL runs on.

:class:`SaverFile` is the part of :class:`~engine.checkpoint.sqlite.SqliteSaver`
every other part runs SQL through (reads, writes, run records), by
composition: each is handed its :meth:`~SaverFile.work` and
:meth:`~SaverFile.transaction`. Why one connection behind a lock, and why
the SQL runs on a worker thread except under a sync call: see the saver's
module docstring.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from engine._internal._sync import on_sync_loop
from engine._internal._worker import CallThread
from engine._sql import sqlite as sql
from engine._sql.sqlite import BUSY_TIMEOUT_MS
from engine.checkpoint.sqlite import _queries as q
from engine.checkpoint.sqlite._lockfile import ServingLock
from engine.checkpoint.sqlite._migrate import TABLES
from engine.errors import CheckpointError

__all__ = ["SaverFile"]

T = TypeVar("T")


class SaverFile:
    """A checkpoint file opened (its schema brought up to date), or a connection given.

    Args:
        path_or_conn: see :class:`~engine.checkpoint.sqlite.SqliteSaver`.
        exclusive: hold the file's serving lock (see :mod:`._lockfile`).
    """

    def __init__(self, path_or_conn: str | os.PathLike[str] | sqlite3.Connection, *, exclusive: bool = False) -> None:
        self.worker = CallThread("graphwire-sqlite")
        self._serving: ServingLock | None = None
        if isinstance(path_or_conn, sqlite3.Connection):
            conn, self._owns_conn = path_or_conn, False
        else:
            path = os.fspath(path_or_conn)
            if exclusive:
                self._serving = ServingLock(path.removeprefix("file:").partition("?")[0])
            conn, self._owns_conn = sql.connect(path), True
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

    async def work(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` (SQL, and decoding what it read) on the worker thread, or
        in place under a sync call (the hop there and back cost ~130 µs of CPU; the statements
        are serialized by the lock either way; the hop itself: :mod:`engine._internal._worker`)."""
        if on_sync_loop():
            return fn(*args)
        return await self.worker.call(fn, *args)

    @contextmanager
    def transaction(self, begin: str) -> Iterator[sqlite3.Cursor]:
        """Hold the lock and a transaction; commit on success, roll back on any error."""
        with self._lock:
            cur = self._cur
            try:
                cur.execute(begin)
                yield cur
                cur.execute(q.COMMIT)
            except BaseException as exc:
                if self.conn.in_transaction:
                    self.conn.execute(q.ROLLBACK)
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                    raise CheckpointError(
                        f"sqlite: {exc}: another process held the file for over {BUSY_TIMEOUT_MS // 1000} s"
                    ) from exc
                if isinstance(exc, sqlite3.Error):
                    raise CheckpointError(f"sqlite: {exc}") from exc
                raise

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
        with self._lock:
            if self._owns_conn:
                self.conn.close()
        self._release()
