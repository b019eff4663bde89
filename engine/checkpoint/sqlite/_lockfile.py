"""One serving saver per SQLite file: an exclusive lock on ``<file>.lock``.

Two servers on one file would both take runs on one thread (each only knows
its own runs) and fork its chain. SQLite cannot fence writes as PostgreSQL's
leases do, so the second server refuses to start instead. The lock is
``flock`` on a file beside the database, held for the saver's life and let go
by the kernel when the process dies (even by ``kill -9``): a stale lock file
never blocks a restart. Only savers opened with ``exclusive=True`` (what
``graphwire serve`` opens) take it; the CLI's other commands (``prune``, and
tools reading the file) share the database as SQLite allows, waiting on its
own locks.
"""

from __future__ import annotations

import fcntl
import os

from engine.errors import CheckpointError

__all__ = ["ServingLock"]


class ServingLock:
    """An exclusive ``flock`` on ``<database>.lock``, taken at once or refused.

    Raises:
        CheckpointError: another process (or another exclusive saver in this
            one) holds it; the message names its pid, as written in the file.
    """

    def __init__(self, database: str) -> None:
        self.path = f"{database}.lock"
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise CheckpointError(
                f"SQLite file {database!r} is already served by another graphwire server (pid {holder}; it holds "
                f"{self.path!r}). Two servers on one SQLite file would both run the same threads and fork their "
                "histories: stop that one first, or use PostgreSQL for several replicas"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor lets the lock go
            self._fd = None
