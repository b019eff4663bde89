"""What a part beside the saver on a PostgreSQL database shares (the store, the node cache).

A part keeps its tables in the saver's schema (or one named), migrated once
at :meth:`PostgresPart.setup` (:func:`engine._sql.postgres.migrate.migrate`
with the part's :class:`~engine._sql.postgres.migrate.Tables`), and runs
its statements on connections of its own (a pool), used on worker threads
(:class:`._conns.Connections`, as the saver does), whatever event loop calls.
Its failures are its own error class (StoreError, CacheError), naming the part.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, ClassVar, TypeVar

import psycopg
from psycopg import Connection

from engine._sql.postgres.conns import Connections, NoConnection, Reserved
from engine._sql.postgres.given import Pipe, given
from engine._sql.postgres.migrate import IDENTIFIER, Tables, migrate
from engine.errors import CheckpointError

__all__ = ["PostgresPart"]

P = TypeVar("P", bound="PostgresPart")
T = TypeVar("T")


class PostgresPart:
    """Set-up, connections and error mapping of a part; subclasses name ``_tables``, ``_error``, ``_what``."""

    _tables: ClassVar[Tables]
    _error: ClassVar[type[Exception]]
    _what: ClassVar[str]  # "store", "cache"

    def _open(
        self, conn: Any, schema: str | None, *, min_size: int, max_size: int, timeout: float, pipe: Any = None
    ) -> None:
        """``conn``: a DSN or LangGraph's psycopg objects (:mod:`._given`); ``pipe``: a pipeline of the given connection."""
        if schema is not None and (type(schema) is not str or not IDENTIFIER.match(schema)):
            raise ValueError(f"schema must be a PostgreSQL identifier, got {schema!r}")
        self.schema = schema
        found = given(conn)
        self.conn, self._borrowed = conn, found.borrowed
        self.pipe = pipe
        self._dsn = found.dsn
        self._conns = Connections(
            found.dsn, min_size=min_size, max_size=max_size, timeout=timeout, name=f"graphwire-{self._what}",
            borrowed=found.borrowed, keep_idle=found.keep,
        )  # fmt: skip
        self._setup_lock = threading.Lock()
        self._ready = False

    pipe = Pipe()

    @classmethod
    def from_dsn(cls: type[P], dsn: str, **options: Any) -> P:
        """One on ``dsn`` with its tables migrated now (a bad DSN fails here)."""
        make: Callable[..., P] = cls  # a part's own __init__ (the store's, the cache's) takes the DSN
        part = make(dsn, **options)
        PostgresPart.setup(part)
        return part

    def _check(self, conn: psycopg.Connection[Any]) -> None:
        """After migrating: what the part needs of the database besides its tables."""

    def setup(self) -> None:
        """Create or migrate the part's tables (idempotent; blocks); the part's error when the
        database cannot be reached or migrating failed."""
        with self._setup_lock:
            if self._ready:
                return
            try:
                with psycopg.connect(self._dsn, autocommit=True) as conn:
                    migrate(conn, self.schema, tables=self._tables)
                    self._check(conn)
            except CheckpointError as exc:
                raise self._error(str(exc)) from exc
            except psycopg.Error as exc:
                raise self._error(f"PostgreSQL: cannot open the {self._what}'s database: {exc}") from exc
            self._ready = True

    async def asetup(self) -> None:
        if not self._ready:
            await asyncio.to_thread(PostgresPart.setup, self)  # the sync one, whatever a subclass's setup is

    async def _db(self, work: Callable[[Connection[Any]], T]) -> T:
        """``work`` (blocking, one transaction at most) on one of the part's connections,
        its failures the part's error."""
        await self.asetup()
        try:
            return await self._conns.run(work)
        except NoConnection as exc:
            raise self._error(f"PostgreSQL {self._what}: no connection to the database: {exc}") from exc
        except psycopg.Error as exc:
            raise self._error(f"PostgreSQL {self._what}: {exc}") from exc

    @asynccontextmanager
    async def _reserved(self) -> AsyncIterator[Reserved]:
        """One connection for the block's calls, in one transaction; its failures the part's error."""
        await self.asetup()
        try:
            async with self._conns.reserved(transaction=True) as reserved:
                yield reserved
        except NoConnection as exc:
            raise self._error(f"PostgreSQL {self._what}: no connection to the database: {exc}") from exc
        except psycopg.Error as exc:
            raise self._error(f"PostgreSQL {self._what}: {exc}") from exc

    async def aclose(self) -> None:
        await self._conns.aclose()
