"""Leases on PostgreSQL: one run per thread across the processes sharing the tables.

A lease row (``leases``, migrations 0002 and 0003) names its holder twice:
``owner`` (the host's id for itself) and ``holder``, the key of a
session-level advisory lock that the holding process keeps on a connection
of its own (:class:`Presence`). The lease is live while it has not expired
*and* that lock is held: PostgreSQL releases a session's advisory locks when
the session ends, so a process that is gone (kill -9, a crash, a lost
machine whose connection the server dropped) loses its leases at once,
whatever their expiry, and a restarted replica takes its threads over
without waiting for the TTL. A holder that is alive but stalled (SIGSTOP, a
long pause) keeps its session, so its leases last until they expire; then
they are taken over with the epoch plus one, and its late writes are fenced
off by the epoch (:meth:`PostgresLeases.check_fence`).

Every time is the database's clock; see ``_queries.py`` for the statements.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import select
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import psycopg
from psycopg import Connection

from engine._internal._sync import run_sync
from engine.checkpoint._helpers import storable_text
from engine.checkpoint._lease import Lease, LeaseHolder
from engine.checkpoint.postgres import _queries as q
from engine._sql.postgres.conns import kept_cursor
from engine.errors import LeaseLostError

__all__ = ["PostgresLeases", "Presence", "check_lease_args", "require_storable"]

log = logging.getLogger("graphwire.checkpoint")

T = TypeVar("T")
Run = Callable[[str, Callable[[Connection[Any]], T]], Awaitable[T]]


class Presence:
    """This process's sign of life in the database: a session-level advisory lock
    on a connection of its own, opened on first use and again after it is lost.

    The connection runs no statement after taking the lock; whether it is
    still open is read from its socket (a closed session makes it readable),
    so checking costs no round trip. It is a blocking connection, used only
    from a worker thread, so it belongs to no event loop.
    """

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self._key = secrets.randbits(62) + 1  # pg_locks shows it as classid (high 32 bits), objid (low)
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()

    def _open(self) -> bool:
        conn = self._conn
        if conn is None or conn.closed:
            return False
        try:
            readable, _, _ = select.select([conn.fileno()], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable  # the session sent something (its end): open it again

    async def akey(self) -> int | None:
        """The key of this process's lock, held now; None when the database cannot be reached."""
        if self._open():
            return self._key
        try:
            return await asyncio.to_thread(self._connect)
        except psycopg.Error as exc:
            log.warning("cannot hold this process's presence lock; its leases last until they expire: %s", exc)
            return None

    def _connect(self) -> int:
        with self._lock:
            if self._open():
                return self._key
            self.close_now()
            conn = psycopg.connect(self._dsn, autocommit=True, application_name="graphwire-presence")
            try:
                # A server-side idle timeout must not end the session that says this process lives.
                conn.execute("SET idle_session_timeout = 0")
                while not conn.execute("SELECT pg_try_advisory_lock(%s)", (self._key,)).fetchone()[0]:  # type: ignore[index]
                    self._key = secrets.randbits(62) + 1  # another session has it (its old session, not yet ended)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
            return self._key

    def close_now(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


def check_lease_args(owner: Any, ttl: Any) -> None:
    if type(owner) is not str or not owner:
        raise ValueError(f"a lease owner must be a non-empty string, got {owner!r}")
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not 0 < ttl < 86400:
        raise ValueError(f"a lease ttl must be a number of seconds above 0 and below a day, got {ttl!r}")


class PostgresLeases:
    """A :class:`~engine.checkpoint._lease.LeaseStore`: acquire, renew, release
    and read threads' leases; fence the saver's writes by them.

    Shares the saver's connections (``run``, the saver's retrying
    runner) and statements (``queries``). The sync methods are derived.
    """

    def __init__(self, run: Run[Any], queries: q.Queries, dsn: str) -> None:
        self._run = run
        self._q = queries
        self.presence = Presence(dsn)
        self.requires_lease = False  # set by a host that leases the threads (the saver reads it)

    def acquire_lease(self, thread_id: str, owner: str, *, ttl: float) -> Lease | None:
        return run_sync(self.aacquire_lease(thread_id, owner, ttl=ttl))

    def renew_lease(self, lease: Lease, *, ttl: float) -> bool:
        return run_sync(self.arenew_lease(lease, ttl=ttl))

    def release_lease(self, lease: Lease) -> None:
        return run_sync(self.arelease_lease(lease))

    async def acquire_params(self, thread_id: str, owner: str, *, ttl: float) -> dict[str, Any]:
        """The parameters of ``ACQUIRE_LEASE`` (checked): for :meth:`aacquire_lease`, or a run store's
        statement that takes the lease with the run's record (``PostgresRuns.astart_taking``)."""
        thread_id = str(thread_id)
        check_lease_args(owner, ttl)
        require_storable(thread_id, owner)
        return {"thread_id": thread_id, "owner": owner, "ttl": float(ttl), "holder": await self.presence.akey()}

    async def aacquire_lease(self, thread_id: str, owner: str, *, ttl: float) -> Lease | None:
        thread_id = str(thread_id)
        params = await self.acquire_params(thread_id, owner, ttl=ttl)

        def work(conn: Connection[Any]) -> Any:
            return _without_flush(conn, self._q.ACQUIRE_LEASE, params)

        row = await self._run("acquire_lease", work)
        return None if row is None else Lease(thread_id, owner, int(row[0]))

    async def arenew_lease(self, lease: Lease, *, ttl: float) -> bool:
        check_lease_args(lease.owner, ttl)
        params = {
            "thread_id": lease.thread_id, "owner": lease.owner, "epoch": lease.epoch, "ttl": float(ttl),
            "holder": await self.presence.akey(),  # this process's lock again, after its session was lost
        }  # fmt: skip

        def work(conn: Connection[Any]) -> Any:
            return _without_flush(conn, self._q.RENEW_LEASE, params)

        return await self._run("renew_lease", work) is not None

    async def arelease_lease(self, lease: Lease) -> None:
        def work(conn: Connection[Any]) -> None:
            _without_flush(conn, self._q.RELEASE_LEASE, {"thread_id": lease.thread_id, "owner": lease.owner, "epoch": lease.epoch})

        await self._run("release_lease", work)

    async def alease_holder(self, thread_id: str) -> LeaseHolder | None:
        """Who holds the thread's live lease now (None: nobody; the next acquire gets it)."""
        thread_id = str(thread_id)
        if not storable_text(thread_id):
            return None

        def work(conn: Connection[Any]) -> Any:
            cur = kept_cursor(conn)
            cur.execute(self._q.LEASE_HOLDER, {"thread_id": thread_id})
            return cur.fetchone()

        row = await self._run("lease_holder", work)
        return None if row is None else LeaseHolder(str(row[0]), row[1])

    def check_fence(
        self, conn: Connection[Any], thread_id: str, lease: Any, head: tuple[str | None, str] | None, *, delete: bool = False
    ) -> None:
        """FENCING: the write's run must still hold the thread; called first in the write's transaction.

        The fence statement locks the lease row until the write commits (see
        ``FENCE_PUT`` in :mod:`._queries`), so no takeover can come between
        this check and the write. A put of the root namespace must also
        continue the head version this lease last wrote, and becomes the head.
        ``delete``: the write deletes the thread (its head is then none). (A
        put and pending writes carry their fence in their one statement: see
        :meth:`fence_params`.)

        Raises:
            LeaseLostError: the lease was taken over, lapsed or released, or the
                put does not continue its head. The transaction rolls back.
        """
        params = self.fence_params(thread_id, lease, head)
        sql = self._q.FENCE_DELETE if delete else self._q.FENCE_PUT if head is not None else self._q.FENCE_WRITES
        if conn.execute(sql, params).fetchone() is not None:
            return
        raise self.refusal(conn, lease, head, delete=delete)

    @staticmethod
    def fence_params(thread_id: str, lease: Any, head: tuple[str | None, str] | None) -> dict[str, Any]:
        """The parameters of a fence (``FENCE_*``, and the fenced ``PUT``s) on ``lease``; ``head``: of a
        root-namespace put, ``(its parent, the new head)``.

        Raises:
            TypeError / ValueError: ``lease`` is not a :class:`Lease`, or one of another thread.
        """
        if not isinstance(lease, Lease):
            raise TypeError(f"config['configurable'][LEASE_KEY] must be a Lease from acquire_lease, not {type(lease).__name__}")
        if lease.thread_id != thread_id:
            raise ValueError(f"the lease is on thread {lease.thread_id!r}, the write on thread {thread_id!r}")
        params: dict[str, Any] = {"thread_id": thread_id, "owner": lease.owner, "epoch": lease.epoch}
        if head is not None:
            params["parent_id"], params["checkpoint_id"] = head
        return params

    def refusal(
        self, conn: Connection[Any], lease: Lease, head: tuple[str | None, str] | None, *, delete: bool = False
    ) -> LeaseLostError:
        """The error of a write whose fence matched nothing, saying what the lease row says now."""
        row = conn.execute(self._q.SELECT_LEASE, {"thread_id": lease.thread_id}).fetchone()
        return LeaseLostError(_why_fenced(lease, row, head, delete))

    def close(self) -> None:
        self.presence.close_now()


def _without_flush(conn: Connection[Any], sql: str, params: Mapping[str, Any]) -> Any:
    """Run one lease statement, whose commit does not wait for the WAL flush
    (``RETURNING ... NO_FLUSH``, see :mod:`._queries`); its first row, if any.

    A lease change needs no durability of its own: if the database crashes
    before flushing it, every session ends with the crash, so every holder's
    presence does too and its leases are free, and a write is committed only
    after its fence, read in its own (flushed) transaction, matched owner
    *and* epoch: two owners given one epoch never both pass. Waiting for the
    flush would cost an fsync per acquire, renewal and release: most of a
    short run's commits.
    """
    cur = kept_cursor(conn)
    cur.execute(sql, params)
    return cur.fetchone()


def _why_fenced(lease: Lease, row: Any, head: tuple[str | None, str] | None, delete: bool) -> str:
    """The message of a fenced write: what the lease row says now."""
    refused = f"{'delete' if delete else 'write'} refused on thread {lease.thread_id!r}"
    mine = f"lease epoch {lease.epoch} of {lease.owner}"
    if row is None:
        return f"{refused}: it has no lease row (the {mine} was never acquired)"
    owner, epoch, lapsed, current_head = row
    if (owner, epoch) != (lease.owner, lease.epoch):
        return f"{refused}: the {mine} was taken over (now epoch {epoch} of {owner})"
    if lapsed:
        return f"{refused}: the {mine} lapsed or was released"
    parent = head[0] if head else None
    return (
        f"{refused}: its parent {parent!r} is not the version the {mine} last wrote ({current_head!r}); "
        "a lease writes one chain of versions"
    )


def require_storable(*texts: str | None) -> None:
    for t in texts:
        if t is not None and not storable_text(t):
            raise ValueError(f"PostgreSQL cannot store the key {t!r} (NUL characters and lone surrogates are not text)")
