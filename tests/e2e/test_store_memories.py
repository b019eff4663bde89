"""A user's memories, end to end: a graph that remembers facts in the store, served by ``graphwire serve``.

The ``memories`` graph (tests/graphs.py) stores each turn's ``fact`` under
``("memories", user_id)`` and answers with every memory there. A caller
(the async client here; the TypeScript client in
clients/typescript/test/store.test.ts) writes, reads, edits and deletes the
same memories through the store RPCs: a node sees what the caller wrote,
the caller sees what a node wrote, across threads, and after the server
restarts on the same database.
"""

from __future__ import annotations

import asyncio
from typing import Any

from graphwire import AsyncClient

from tests.graphs import memory_key

GRAPHS = {"memories": "tests.graphs:memories"}
USER = ("memories", "ada")


async def _turn(client: AsyncClient, thread_id: str, fact: str | None = None) -> list[str]:
    result = await client.invoke("memories", thread_id, {"user_id": "ada", "fact": fact}, timeout=30)
    assert result.reason == "END", result.error
    return list(result.values["known"])


def test_memories_cross_threads_clients_and_restarts(start_server: Any) -> None:
    first = start_server(graphs=GRAPHS)

    async def write_and_talk() -> None:
        async with first.async_client() as client:
            # What the caller writes, a node sees (on any thread).
            await client.store.put_item(USER, "profile", {"text": "is called Ada", "by": "settings page"})
            assert await _turn(client, "monday", "likes tea") == ["is called Ada", "likes tea"]
            assert await _turn(client, "tuesday") == ["is called Ada", "likes tea"]

            # What a node writes, the caller reads, edits and deletes.
            by_node = await client.store.get_item(USER, memory_key("likes tea"))
            assert by_node is not None and by_node.value == {"text": "likes tea", "by": "node"}
            await client.store.put_item(USER, memory_key("likes tea"), {"text": "likes green tea", "by": "user"})
            assert await _turn(client, "wednesday") == ["is called Ada", "likes green tea"]
            assert await client.store.delete_item(USER, "profile") is True
            assert await _turn(client, "thursday", "lives in Oslo") == ["likes green tea", "lives in Oslo"]
            assert await client.store.list_namespaces(prefix=("memories",)) == [USER]

    asyncio.run(write_and_talk())
    assert first.terminate() == 0, first.log()

    # The store is the checkpointer's database: memories outlive the process.
    second = start_server(graphs=GRAPHS, db=first.db)
    with second.client() as client:
        assert [i.value["text"] for i in client.store.search_items(USER)] == ["likes green tea", "lives in Oslo"]
        assert client.invoke("memories", "friday", {"user_id": "ada"}, timeout=30).values["known"] == [
            "likes green tea",
            "lives in Oslo",
        ]
