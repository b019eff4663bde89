"""PostgreSQL's ``aprune`` beside a live writer: a version stored while prune runs keeps its values.

Prune reads a thread's checkpoints, then its blob rows, and deletes the rows
no kept checkpoint reads. If it read the two at different moments, a version
committed in between would show its new rows but not itself, and lose them:
the thread's newest version would then fail every read. The test puts the
commit exactly there, with the database's own locks (no sleeps): a
connection holds an exclusive lock on ``blobs`` so prune waits at its second
read, writes the next version through the saver's own statements inside that
transaction, and commits, which lets prune go on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import psycopg

from engine.checkpoint.postgres import PostgresSaver
from tests.checkpoint._pg import DSN
from tests.checkpoint._util import cfg, make_cp
from tests.checkpoint.test_conformance import chain_of_puts

T = "g:prune-race"
R = TypeVar("R")
DEADLINE = 30.0


class OnConnection(PostgresSaver):
    """The saver's statements, run on the connection ``conn`` (inside its open transaction, if any)."""

    def __init__(self, conn: psycopg.Connection[Any], schema: str) -> None:
        super().__init__(DSN, schema=schema)
        self.conn = conn
        self._ready = True

    async def _run(self, what: str, work: Callable[[psycopg.Connection[Any]], R]) -> R:
        return work(self.conn)  # blocks the loop a moment: the statements wait for no lock


async def _until_blobs_lock_awaited(admin: psycopg.Connection[Any], schema: str, waiter: asyncio.Task[Any]) -> None:
    """Return once some session waits for a lock on the schema's ``blobs`` (each poll is a round trip)."""
    query = (
        "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT l.granted AND c.relname = 'blobs' AND n.nspname = %s"
    )
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        assert not waiter.done(), f"prune ended without waiting for the lock: {waiter.result()!r}"
        if (await asyncio.to_thread(lambda: admin.execute(query, (schema,)).fetchone()))[0]:  # type: ignore[index]
            return
    raise AssertionError(f"prune did not wait for the lock on blobs within {DEADLINE}s")


async def _write_while_prune_waits(
    pg: PostgresSaver,
    schema: str,
    write: Callable[[PostgresSaver], Awaitable[Any]],
    learn: Callable[[PostgresSaver], Awaitable[Any]] | None = None,
) -> int:
    """Prune the thread to its newest version while ``write`` (given a saver on the
    lock holder's connection) commits between prune's two reads; prune's result.
    ``learn``: reads for that saver to make first, before the lock is taken."""
    with psycopg.connect(DSN, autocommit=True) as admin, psycopg.connect(DSN) as locker:
        writer = OnConnection(admin, schema)
        if learn is not None:
            await learn(writer)
        writer.conn = locker
        with locker.transaction():
            locker.execute(f'LOCK TABLE "{schema}".blobs IN ACCESS EXCLUSIVE MODE')
            prune = asyncio.ensure_future(pg.aprune(T, keep_last=1))
            await _until_blobs_lock_awaited(admin, schema, prune)
            await write(writer)
        return await prune


def _read_back(schema: str, puts: list[Any]) -> list[str]:
    """Every version of ``puts`` reads back whole from a saver with nothing cached; the thread's ids."""
    fresh = PostgresSaver(DSN, schema=schema)
    try:
        for _, cp, _, _ in puts:
            got = fresh.get_tuple(cfg(T, cp["id"]))
            assert got is not None and got.checkpoint["channel_values"] == cp["channel_values"]
        return [t.checkpoint["id"] for t in fresh.list(cfg(T))]
    finally:
        fresh.close()


def test_a_version_stored_while_prune_runs_keeps_its_values(pg: PostgresSaver, pg_schema: str) -> None:
    puts = chain_of_puts(T, cfg(T), 4)
    pg.put_many(puts[:3])

    async def put_newest(writer: PostgresSaver) -> None:
        await writer.aput(*puts[3])  # the child of the newest version prune sees

    # The first two versions go; the third (the newest prune saw) and the fourth stay whole.
    assert asyncio.run(_write_while_prune_waits(pg, pg_schema, put_newest)) == 2
    assert _read_back(pg_schema, puts[2:]) == [puts[3][1]["id"], puts[2][1]["id"]]


def test_a_delta_stored_on_a_row_prune_deletes_makes_prune_look_again(pg: PostgresSaver, pg_schema: str) -> None:
    # Versions 1 and 2 share a delta chain; version 3 replaced the list, so its row is
    # full and prune (keeping version 3) deletes the chain. Meanwhile a fork of version
    # 2 stores a delta on version 2's row: the foreign key refuses prune's delete, and
    # prune, looking again, sees the fork as the newest version and keeps its chain.
    puts = chain_of_puts(T, cfg(T), 3)
    _, third, meta, _ = puts[2]
    third["channel_values"]["messages"] = ["replaced"]
    pg.put_many(puts)
    fork = make_cp({**puts[1][1]["channel_values"], "messages": [*puts[1][1]["channel_values"]["messages"], "again"]})
    fork["channel_versions"] = {**puts[1][1]["channel_versions"], "messages": 99}
    fork_put = (cfg(T, puts[1][1]["id"]), fork, {"source": "fork", "step": 2}, {"messages": 99})

    async def learn_chain(writer: PostgresSaver) -> None:
        assert await writer.aget_tuple(cfg(T, puts[1][1]["id"])) is not None  # the chain the fork extends

    async def put_fork(writer: PostgresSaver) -> None:
        await writer.aput(*fork_put)

    assert asyncio.run(_write_while_prune_waits(pg, pg_schema, put_fork, learn_chain)) == 3
    assert _read_back(pg_schema, [fork_put]) == [fork["id"]]
