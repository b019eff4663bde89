"""What a part beside the saver on a PostgreSQL database shares (the store, the node cache).

A part keeps its tables in the saver's schema (or one named), migrated once
at :meth:`PostgresPart.setup` (:func:`engine.checkpoint.postgres._migrate.migrate`
with the part's :class:`~engine.checkpoint.postgres._migrate.Tables`), and takes
connections from one pool per event loop (:class:`._pools.LoopPools`, the
saver's). Its failures are its own error class (StoreError, CacheError),
naming the part.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, ClassVar, TypeVar

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import PoolTimeout

from engine.checkpoint.postgres._migrate import Tables, migrate
from engine.checkpoint.postgres._pools import LoopPools
from engine.checkpoint.postgres._saver import _IDENTIFIER
from engine.errors import CheckpointError

__all__ = ["PostgresPart"]

P = TypeVar("P", bound="PostgresPart")


class PostgresPart:
    """Set-up, pools and error mapping of a part; subclasses name ``_tables``, ``_error``, ``_what``."""

    _tables: ClassVar[Tables]
    _error: ClassVar[type[Exception]]
    _what: ClassVar[str]  # "store", "cache"

    def _open(self, dsn: str, schema: str | None, *, min_size: int, max_size: int, timeout: float) -> None:
        if schema is not None and (type(schema) is not str or not _IDENTIFIER.match(schema)):
            raise ValueError(f"schema must be a PostgreSQL identifier, got {schema!r}")
        self.schema = schema
        self._dsn = dsn
        self._pools = LoopPools(dsn, min_size=min_size, max_size=max_size, timeout=timeout, name=f"graphwire-{self._what}")
        self._setup_lock = threading.Lock()
        self._ready = False

    @classmethod
    def from_dsn(cls: type[P], dsn: str, **options: Any) -> P:
        """One on ``dsn`` with its tables migrated now (a bad DSN fails here)."""
        part = cls(dsn, **options)
        part.setup()
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
            await asyncio.to_thread(self.setup)

    @asynccontextmanager
    async def _connection(self, transaction: bool = False) -> AsyncIterator[AsyncConnection[Any]]:
        """A pooled connection (in a transaction, if asked), its failures the part's error."""
        await self.asetup()
        try:
            async with self._pools.connection() as conn:
                if transaction:
                    async with conn.transaction():
                        yield conn
                else:
                    yield conn
        except PoolTimeout as exc:
            raise self._error(f"PostgreSQL {self._what}: no connection to the database: {exc}") from exc
        except psycopg.Error as exc:
            raise self._error(f"PostgreSQL {self._what}: {exc}") from exc

    async def aclose(self) -> None:
        await self._pools.aclose()
