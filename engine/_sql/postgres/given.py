"""What a caller hands a PostgreSQL saver, store or cache: a DSN, or LangGraph's psycopg objects.

LangGraph's ``PostgresSaver(conn)`` and ``PostgresStore(conn)`` take a
psycopg ``Connection`` or ``ConnectionPool`` (the async ones an
``AsyncConnection`` or ``AsyncConnectionPool``), made and owned by the
caller, and may be given a pipeline of that connection (``pipe``). Ours take
the same, besides a connection string:

* a ``Connection`` is used for real, one statement at a time (a lock), in
  the caller's pipeline when there is one (each call ends with a sync, so a
  failure is the call's), left open at close: it is the caller's;
* a ``ConnectionPool`` is used for real: each call takes one of its
  connections and gives it back; left open at close;
* an ``AsyncConnection`` or ``AsyncConnectionPool`` names the database:
  the statements run on blocking connections of the saver's own to it (see
  :mod:`._conns` for why a saver keeps no connection bound to an event
  loop), opened from its connection parameters; its pipeline has nothing to
  batch (each of our writes is one statement already). Those connections
  are closed after each call, not kept: the caller's object is the only
  thing that says how long the database is in use (LangGraph's suite drops
  the database right after closing its pool), so nothing of ours may
  outlive it. That costs a connection per call; docs/porting.md, "Where it differs",
  says so.

Either way the part's own extra connections (set-up, lease presence,
listening for messages) open from the same parameters. A connection the
caller gives must be in autocommit mode, as LangGraph requires; rows come to
us as tuples whatever row factory the caller set (it is put back after).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo
from psycopg.rows import tuple_row
from psycopg_pool import ConnectionPool, PoolTimeout

__all__ = ["Borrowed", "Fresh", "Given", "Pipe", "aopened", "given", "opened"]

# What psycopg's connect() takes besides libpq's parameters (a pool's kwargs may hold them).
_NOT_LIBPQ = frozenset({"autocommit", "row_factory", "prepare_threshold", "cursor_factory", "context"})
_AUTOCOMMIT = (
    "a connection given to a graphwire saver, store or cache must be in autocommit mode, as LangGraph's "
    "require (psycopg.Connection.connect(..., autocommit=True), or a pool's kwargs={{'autocommit': True}}); {}"
)


class Borrowed:
    """The caller's connection or pool, used as ``_conns.Connections`` uses its own pool.

    ``pipe``: the caller's pipeline of its one connection, synced after each call.
    """

    def __init__(self, conn: psycopg.Connection[Any] | ConnectionPool[Any]) -> None:
        self._one = conn if isinstance(conn, psycopg.Connection) else None
        self._pool = conn if isinstance(conn, ConnectionPool) else None
        self._lock = threading.Lock()
        self._factories: dict[int, Any] = {}
        self.pipe: Any = None

    def open(self) -> None:
        """The caller opened it (and closes it)."""

    def close(self, timeout: float = 0.0) -> None:
        """Left open: it is the caller's."""

    def getconn(self, timeout: float) -> psycopg.Connection[Any]:
        if self._pool is not None:
            conn = self._pool.getconn(timeout)
        elif not self._lock.acquire(timeout=timeout):
            raise PoolTimeout("the given connection stayed busy")
        else:
            conn = self._one  # type: ignore[assignment]
        if not conn.autocommit:
            self._release(conn)
            raise ValueError(_AUTOCOMMIT.format("this one is not"))
        self._factories[id(conn)] = conn.row_factory
        conn.row_factory = tuple_row
        return conn

    def putconn(self, conn: psycopg.Connection[Any]) -> None:
        conn.row_factory = self._factories.pop(id(conn), conn.row_factory)
        try:
            if self.pipe is not None and conn.pgconn.pipeline_status:
                self.pipe.sync()  # the call's failure is the call's, not a later one's
        finally:
            self._release(conn)

    def _release(self, conn: psycopg.Connection[Any]) -> None:
        if self._pool is not None:
            self._pool.putconn(conn)
        else:
            self._lock.release()


class Fresh:
    """A new connection per call, closed after it: for the database an async object names."""

    def __init__(self, conninfo: str, kwargs: dict[str, Any]) -> None:
        self._conninfo, self._kwargs = conninfo, kwargs

    def open(self) -> None:
        """Nothing is kept open."""

    def close(self, timeout: float = 0.0) -> None:
        """Nothing is kept open."""

    def getconn(self, timeout: float) -> psycopg.Connection[Any]:
        try:
            return psycopg.Connection.connect(self._conninfo, **{**self._kwargs, "connect_timeout": max(2, round(timeout))})
        except psycopg.OperationalError as exc:
            raise PoolTimeout(f"cannot connect: {exc}") from exc

    def putconn(self, conn: psycopg.Connection[Any]) -> None:
        conn.close()


@dataclass(frozen=True, slots=True)
class Given:
    """A caller's ``conn`` resolved: the parameters to open our own connections with, and
    the connections to run statements on when they are the caller's (None: our own pool)."""

    dsn: str
    borrowed: Borrowed | None
    #: whether our own connections may stay open between calls (not for an async object's database)
    keep: bool = True


def given(conn: Any) -> Given:
    """Resolve what a caller passed as ``conn`` (see the module's doc).

    Raises:
        TypeError: something else than a connection string or psycopg's connections and pools.
        ValueError: a given connection (or pool) not in autocommit mode.
    """
    if isinstance(conn, str):
        return Given(conn, None)
    if isinstance(conn, (psycopg.Connection, psycopg.AsyncConnection)):
        if not conn.autocommit:
            raise ValueError(_AUTOCOMMIT.format("this one is not"))
        password = conn.info.password
        dsn = make_conninfo(conn.info.dsn, **({"password": password} if password else {}))
        if isinstance(conn, psycopg.Connection):
            return Given(dsn, Borrowed(conn))
        return Given(dsn, None, keep=False)
    pool_kwargs = getattr(conn, "kwargs", None)
    conninfo = getattr(conn, "conninfo", None)
    if isinstance(conninfo, str) and isinstance(pool_kwargs, dict) and type(conn).__module__.startswith("psycopg_pool"):
        if not pool_kwargs.get("autocommit"):
            raise ValueError(_AUTOCOMMIT.format("this pool's kwargs do not say so"))
        dsn = make_conninfo(conninfo, **{k: v for k, v in pool_kwargs.items() if k not in _NOT_LIBPQ})
        if isinstance(conn, ConnectionPool):
            return Given(dsn, Borrowed(conn))
        return Given(dsn, None, keep=False)
    raise TypeError(
        "conn must be a connection string, or psycopg's Connection, ConnectionPool, AsyncConnection "
        f"or AsyncConnectionPool, not {type(conn).__name__}"
    )


class Pipe:
    """LangGraph's ``pipe`` attribute of a saver or store: the pipeline of the given connection
    its statements run in (None: none), handed on to the borrowed connection (``_borrowed``)."""

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else obj.__dict__.get("_pipe")

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__["_pipe"] = value
        if obj._borrowed is not None:
            obj._borrowed.pipe = value


@contextmanager
def opened(make: Callable[[psycopg.Connection[Any]], Any], conn_string: str, *, pipeline: bool) -> Iterator[Any]:
    """LangGraph's ``from_conn_string``: ``make(conn)`` on one new autocommit connection (in a
    pipeline if ``pipeline``) for the block; the part, then the connection, closed after it."""
    with psycopg.Connection.connect(conn_string, autocommit=True, prepare_threshold=0) as conn:
        part = make(conn)
        try:
            if not pipeline:
                yield part
                return
            with conn.pipeline() as pipe:
                part.pipe = pipe
                yield part
        finally:
            part.close()


@asynccontextmanager
async def aopened(make: Callable[[psycopg.AsyncConnection[Any]], Any], conn_string: str, *, pipeline: bool) -> AsyncIterator[Any]:
    """:func:`opened` for the async twins: on an ``AsyncConnection`` (the part's ``conn``)."""
    async with await psycopg.AsyncConnection.connect(conn_string, autocommit=True, prepare_threshold=0) as conn:
        part = make(conn)
        try:
            if not pipeline:
                yield part
                return
            async with conn.pipeline() as pipe:
                part.pipe = pipe
                yield part
        finally:
            await part.aclose()
