"""Messages between the processes that share one PostgreSQL schema (LISTEN/NOTIFY).

What replicas tell each other through the database they already share (e.g.
"cancel the run you hold", see ``server/_cancel.py``): no other service to
run. A message is a JSON object ``{"schema", "to", "thread_id", "body"}`` on
one channel (:data:`._queries.CHANNEL`) for every schema; a listener keeps
only its own schema's. ``to`` is a lease owner id: the process holding a
thread's lease is found, and sent to, in one statement
(:meth:`PostgresMessages.asignal_holder`). Delivery is at most once, to the
processes listening when the sending transaction commits.

A :class:`~engine.checkpoint._lease.MessageBus`, the ``messages`` of a
:class:`~engine.checkpoint.postgres.PostgresSaver`: it shares the saver's
connections (its retrying runner), statements, schema and DSN.
"""

from __future__ import annotations

import contextlib
import json
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Self

import psycopg
from psycopg import AsyncConnection, Connection
from psycopg.conninfo import conninfo_to_dict

from engine.checkpoint._helpers import storable_text
from engine.checkpoint.postgres import _queries as q
from engine.errors import CheckpointError

__all__ = ["CleanConnection", "PostgresMessages", "listening_options"]

#: TCP keepalives of the listening connection, unless its DSN sets its own: an idle connection
#: whose peer vanished without a word (a network cut, a host gone) is found dead in about
#: 10 + 3 x 5 s, not the system's default two hours, so its listener knows it may miss messages.
LISTEN_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3}


def listening_options(dsn: str) -> dict[str, Any]:
    """The keepalives the listening connection to ``dsn`` gets (:data:`LISTEN_KEEPALIVES` but those it names)."""
    try:
        named = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:  # not a DSN psycopg reads: connecting will say why
        return {}
    return {k: v for k, v in LISTEN_KEEPALIVES.items() if k not in named}


class CleanConnection(AsyncConnection[Any]):
    """An ``AsyncConnection`` whose failed or cancelled connect leaves no session open."""

    @classmethod
    async def connect(cls, conninfo: str = "", **kwargs: Any) -> Self:
        try:
            return await super().connect(conninfo, **kwargs)
        except BaseException as exc:
            # The attempt's half-open libpq connection is a local of psycopg's
            # frames in this traceback; whoever keeps the exception (a log
            # record) would keep the socket, and the server's session, open.
            traceback.clear_frames(exc.__traceback__)
            raise


class PostgresMessages:
    """Send to a thread's lease holder or to a process by id; listen for what is sent here."""

    def __init__(
        self,
        run: Callable[[str, Callable[[Connection[Any]], Any]], Awaitable[Any]],
        queries: q.Queries,
        dsn: str,
        schema: str | None,
        setup: Callable[[], Awaitable[None]],
    ) -> None:
        self._run = run
        self._q = queries
        self._dsn = dsn
        self.schema = schema
        self._setup = setup

    async def asignal_holder(self, thread_id: str, body: Mapping[str, Any]) -> str | None:
        """Send ``body`` to the process holding ``thread_id``'s live lease; that
        lease's owner, or None when no live lease exists (and nothing was sent)."""
        thread_id = str(thread_id)
        if not storable_text(thread_id):
            return None  # no lease can be stored under it
        params = {"channel": q.CHANNEL, "schema": self.schema or "", "thread_id": thread_id, "body": json.dumps(body)}

        def work(conn: Connection[Any]) -> Any:
            return conn.execute(self._q.SIGNAL_HOLDER, params).fetchone()

        row = await self._run("signal", work)
        return None if row is None else str(row[0])

    async def asend(self, to: str, body: Mapping[str, Any], *, thread_id: str = "") -> None:
        """Send ``body`` to the process whose lease owner id is ``to``."""
        payload = json.dumps({"schema": self.schema or "", "to": to, "thread_id": thread_id, "body": body})

        def work(conn: Connection[Any]) -> None:
            conn.execute(self._q.SEND, {"channel": q.CHANNEL, "payload": payload})

        await self._run("send", work)

    @contextlib.asynccontextmanager
    async def alisten(self) -> AsyncIterator[AsyncIterator[dict[str, Any]]]:
        """Listen for messages to this saver's tables' processes.

        On entry the connection listens (messages sent from then on arrive);
        the block gets an iterator of them, which raises CheckpointError when
        the connection is lost (listen again to go on), found out by TCP
        keepalives within about 25 s when its peer vanished without a word
        (:data:`LISTEN_KEEPALIVES`). The connection is its own, not one of
        the saver's: it stays open as long as the block.
        """
        await self._setup()
        try:
            # (a cancelled connect leaves nothing open)
            conn = await CleanConnection.connect(self._dsn, autocommit=True, **listening_options(self._dsn))
        except psycopg.Error as exc:
            raise CheckpointError(f"PostgreSQL: cannot listen for messages: {exc}") from exc
        schema = self.schema or ""

        async def messages() -> AsyncIterator[dict[str, Any]]:
            try:
                async for note in conn.notifies():
                    try:
                        msg = json.loads(note.payload)
                    except ValueError:
                        continue  # not one of ours
                    if isinstance(msg, dict) and msg.get("schema") == schema and isinstance(msg.get("body"), dict):
                        yield msg
            except psycopg.Error as exc:
                raise CheckpointError(f"PostgreSQL: listening for messages failed: {exc}") from exc

        try:
            try:
                await conn.execute(f"LISTEN {q.CHANNEL}")
            except psycopg.Error as exc:
                raise CheckpointError(f"PostgreSQL: cannot listen for messages: {exc}") from exc
            yield messages()
        finally:
            await conn.close()
