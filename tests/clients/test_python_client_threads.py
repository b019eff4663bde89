"""The Python client's thread records (``client.threads``), against a live server: every thread RPC,
blocking and asyncio (issue 33). The server's own behaviour is pinned in tests/server/test_thread_records.py;
this checks that each call reaches it and comes back decoded."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from graphwire import AlreadyExists, NotFound, Thread, ThreadStatus


def test_every_thread_call_blocking(server: Any) -> None:
    tag = uuid.uuid4().hex[:8]
    with server.client() as client:
        made = client.threads.create("chain3", metadata={"tag": tag, "user": "ann"}, ttl=3600)
        assert isinstance(made, Thread) and made.status is ThreadStatus.IDLE and made.ttl == (3600, "delete")
        assert made.expires_at is not None and made.metadata == {"tag": tag, "user": "ann"}
        with pytest.raises(AlreadyExists):
            client.threads.create("chain3", made.thread_id)
        assert client.threads.create("chain3", made.thread_id, if_exists="do_nothing").metadata["user"] == "ann"
        client.invoke("chain3", made.thread_id, {"n": 1})
        client.invoke("chain3", made.thread_id, {"n": 10})
        got = client.threads.get("chain3", made.thread_id, include_values=True)
        assert got.values["n"] == 13 and got.updated_at is not None and got.updated_at > made.updated_at  # type: ignore[operator]
        updated = client.threads.update("chain3", made.thread_id, metadata={"user": "bob"}, ttl=0)
        assert updated.metadata == {"tag": tag, "user": "bob"} and updated.ttl is None
        second = client.threads.create("chain3", f"second-{tag}", metadata={"tag": tag})
        page = client.threads.search_page(graph="chain3", metadata={"tag": tag}, limit=1)
        assert [t.thread_id for t in page.threads] == [second.thread_id] and page.next_page_token is not None
        rest = client.threads.search_page(graph="chain3", metadata={"tag": tag}, limit=1, page_token=page.next_page_token)
        assert [t.thread_id for t in rest.threads] == [made.thread_id]
        assert [t.thread_id for t in client.threads.search(metadata={"tag": tag, "user": "bob"}, status="idle")] == [made.thread_id]
        assert client.threads.count(metadata={"tag": tag}) == 2
        copy = client.threads.copy("chain3", made.thread_id)
        assert copy.metadata == updated.metadata and client.threads.count(metadata={"tag": tag}) == 3
        assert len(client.history("chain3", copy.thread_id)) == len(client.history("chain3", made.thread_id))
        assert client.threads.prune("chain3", made.thread_id) > 0
        assert len(client.history("chain3", made.thread_id)) == 1
        client.threads.delete("chain3", copy.thread_id)
        with pytest.raises(NotFound):
            client.threads.get("chain3", copy.thread_id)
        with pytest.raises(ValueError):
            client.threads.search(status="sleepy")


def test_thread_calls_asyncio(server: Any) -> None:
    tag = uuid.uuid4().hex[:8]

    async def body() -> None:
        async with server.async_client() as client:
            made = await client.threads.create("questions", metadata={"tag": tag})
            await client.invoke("questions", made.thread_id, {})
            got = await client.threads.get("questions", made.thread_id)
            assert got.status is ThreadStatus.INTERRUPTED and [i.value for i in got.interrupts] == ["first?"]
            assert [t.thread_id for t in await client.threads.search(metadata={"tag": tag}, status=["interrupted"])] == [made.thread_id]
            assert await client.threads.count(graph="questions", metadata={"tag": tag}, status="interrupted") == 1
            assert (await client.threads.update("questions", made.thread_id, metadata={"seen": True})).metadata == {"tag": tag, "seen": True}
            copy = await client.threads.copy("questions", made.thread_id, f"copy-{tag}")
            assert copy.thread_id == f"copy-{tag}" and copy.status is ThreadStatus.INTERRUPTED
            assert await client.threads.prune("questions", made.thread_id, keep_last=5) == 0
            await client.threads.delete("questions", made.thread_id)
            assert await client.threads.count(metadata={"tag": tag}) == 1

    asyncio.run(body())
