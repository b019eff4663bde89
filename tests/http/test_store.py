"""The store over LangGraph's HTTP API, driven by ``langgraph-sdk``: put, get, search, namespaces, delete."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from langgraph_sdk.errors import UnprocessableEntityError

from tests.conftest import ServerProcess
from tests.http.conftest import async_client, sync_client


def test_items_and_namespaces(served: ServerProcess) -> None:
    client = sync_client(served)
    root = f"u{uuid.uuid4().hex[:8]}"
    client.store.put_item([root, "notes"], "a", {"text": "milk", "n": 1})
    client.store.put_item([root, "notes"], "b", {"text": "bread", "n": 2}, index=False, ttl=60)
    client.store.put_item([root, "prefs"], "theme", {"dark": True})
    got = client.store.get_item([root, "notes"], "a")
    assert got["namespace"] == [root, "notes"] and got["key"] == "a" and got["value"] == {"text": "milk", "n": 1}
    assert got["created_at"] and got["updated_at"]
    found = client.store.search_items([root], limit=10)
    assert sorted((tuple(i["namespace"]), i["key"]) for i in found["items"]) == [((root, "notes"), "a"), ((root, "notes"), "b"), ((root, "prefs"), "theme")]
    assert [i["key"] for i in client.store.search_items([root, "notes"], filter={"n": 2})["items"]] == ["b"]
    assert len(client.store.search_items([root], limit=1, offset=1)["items"]) == 1
    spaces = client.store.list_namespaces(prefix=[root])
    assert sorted(map(tuple, spaces["namespaces"])) == [(root, "notes"), (root, "prefs")]
    assert client.store.list_namespaces(prefix=[root], max_depth=1)["namespaces"] == [[root]]
    client.store.delete_item([root, "notes"], "a")
    assert client.store.get_item([root, "notes"], "a") is None  # gone: null, as LangGraph's server answers
    assert all(i["score"] is None for i in found["items"])  # no query ranked them


def test_refused(served: ServerProcess) -> None:
    client = sync_client(served)
    with pytest.raises(UnprocessableEntityError) as not_object:
        client.http.put("/store/items", json={"namespace": ["x"], "key": "k", "value": [1, 2]})
    assert not_object.value.body["detail"].startswith("body.value: ")
    with pytest.raises(UnprocessableEntityError) as extra:
        client.http.put("/store/items", json={"namespace": ["x"], "key": "k", "value": {}, "embed": True})
    assert extra.value.body["detail"].startswith("body.embed: unknown field")
    with pytest.raises(UnprocessableEntityError) as negative:
        client.store.search_items(["x"], offset=-1)
    assert negative.value.body["detail"].startswith("body.offset: Input should be greater than or equal to 0")
    with pytest.raises(UnprocessableEntityError) as no_key:  # the gRPC side's own check
        client.store.put_item(["x"], "", {"v": 1})
    assert "key" in no_key.value.body["detail"]


def test_async_client(served: ServerProcess) -> None:
    async def main() -> None:
        client = async_client(served)
        ns = [f"a{uuid.uuid4().hex[:8]}"]
        await client.store.put_item(ns, "k", {"v": 1})
        assert (await client.store.get_item(ns, "k"))["value"] == {"v": 1}
        await client.store.delete_item(ns, "k")
        assert (await client.store.search_items(ns))["items"] == []

    asyncio.run(main())
