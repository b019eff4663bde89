"""The connection that listens for other processes' messages (engine/checkpoint/postgres/_messages.py)
finds a vanished peer by TCP keepalives, unless its DSN sets them its own way; with them it listens
and hears a message (the cancel relay and the assistant cache rely on knowing when it cannot)."""

from __future__ import annotations

import asyncio

from engine.checkpoint.postgres import PostgresSaver
from engine.checkpoint.postgres._messages import LISTEN_KEEPALIVES, listening_options
from tests.checkpoint._pg import DSN, pg_dsn, pg_schema  # noqa: F401 - fixtures


def test_keepalives_unless_the_dsn_sets_them() -> None:
    assert listening_options("postgresql://u@db:5432/graphwire") == LISTEN_KEEPALIVES
    assert listening_options("postgresql://u@db/graphwire?keepalives_idle=60&keepalives=1") == {
        "keepalives_interval": 5, "keepalives_count": 3,
    }  # fmt: skip
    assert listening_options("host=db keepalives=0") == {k: v for k, v in LISTEN_KEEPALIVES.items() if k != "keepalives"}
    assert listening_options("a = b = c") == {}  # not a DSN: the connect says why


def test_the_listening_connection_hears_a_message(pg_schema: str) -> None:
    async def listen_and_send() -> dict[str, object]:
        saver = PostgresSaver.from_dsn(DSN, schema=pg_schema)
        try:
            async with saver.messages.alisten() as messages:
                await saver.messages.asend("someone", {"kind": "hello"})
                async with asyncio.timeout(30):
                    return await anext(messages)
        finally:
            await saver.aclose()

    got = asyncio.run(listen_and_send())
    assert got["to"] == "someone" and got["body"] == {"kind": "hello"}
