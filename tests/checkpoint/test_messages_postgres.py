"""PostgreSQL's messages between processes (LISTEN/NOTIFY), which CancelRun uses across replicas.

A message to a thread's lease holder is sent only while the lease is live,
and names the holder; every message names its schema, and a listener gets
only its own schema's (replicas of two deployments may share a database).
The server's use of them is tested in ``tests/replicas/test_cancel_across_replicas.py``.
"""

from __future__ import annotations

import asyncio

from engine.checkpoint.postgres import PostgresSaver
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name


def test_messages_reach_the_lease_holder_and_stay_in_their_schema(pg: PostgresSaver, pg_schema: str) -> None:
    other_schema = new_schema_name()
    other = PostgresSaver.from_dsn(DSN, schema=other_schema)

    async def exchange() -> None:
        async with pg.messages.alisten() as mine, other.messages.alisten() as theirs:
            assert await pg.messages.asignal_holder("t", {"n": 1}) is None  # no lease: nothing is sent
            lease = await pg.leases.aacquire_lease("t", "replica-1", ttl=60)
            assert lease is not None
            assert await pg.messages.asignal_holder("t", {"n": 2}) == "replica-1"
            await pg.messages.asend("replica-2", {"n": 3}, thread_id="t")
            await pg.leases.arelease_lease(lease)
            assert await pg.messages.asignal_holder("t", {"n": 4}) is None  # released: no holder
            await other.messages.asend("replica-9", {"n": 5})
            got = [await anext(mine), await anext(mine)]
            assert got == [
                {"schema": pg_schema, "to": "replica-1", "thread_id": "t", "body": {"n": 2}},
                {"schema": pg_schema, "to": "replica-2", "thread_id": "t", "body": {"n": 3}},
            ]
            # The other schema's listener saw none of pg's messages: its first is its own.
            assert await anext(theirs) == {"schema": other_schema, "to": "replica-9", "thread_id": "", "body": {"n": 5}}

    try:
        asyncio.run(exchange())
    finally:
        other.close()
        drop_schema(other_schema)
