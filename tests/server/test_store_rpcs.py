"""The store RPCs on a real server (the session's: SQLite, whose store is the checkpointer's file).

Each test works under a namespace of its own (``ns`` fixture), since the
server is shared. Bad requests get INVALID_ARGUMENT naming the field and
store nothing; a missing item is NOT_FOUND on the wire and None from the
client; semantic search on a store without an index is FAILED_PRECONDITION.
"""

from __future__ import annotations

import sqlite3
import uuid
from typing import Any

import grpc
import pytest
from graphwire import FailedPrecondition, InvalidArgument

from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc


@pytest.fixture
def ns() -> tuple[str, ...]:
    return ("t", uuid.uuid4().hex[:12])


def _code(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def test_put_get_search_delete_list(server: Any, ns: tuple[str, ...]) -> None:
    with server.client() as client:
        store = client.store
        assert store.get_item(ns, "k") is None
        store.put_item(ns, "k", {"text": "likes tea", "n": 1})
        first = store.get_item(ns, "k")
        assert first is not None and (first.namespace, first.key, first.value) == (ns, "k", {"text": "likes tea", "n": 1})
        store.put_item(ns, "k", {"text": "likes coffee", "n": 2})
        again = store.get_item(ns, "k")
        assert again is not None and again.value["text"] == "likes coffee"
        assert again.created_at == first.created_at and again.updated_at > first.updated_at
        store.put_item(ns + ("deeper",), "k2", {"n": 3})
        assert [i.key for i in store.search_items(ns)] == ["k", "k2"]
        assert [i.key for i in store.search_items(ns, filter={"n": {"$gte": 3}})] == ["k2"]
        assert [i.key for i in store.search_items(ns, limit=1, offset=1)] == ["k2"]
        assert store.list_namespaces(prefix=ns) == [ns, ns + ("deeper",)]
        assert store.list_namespaces(prefix=ns, max_depth=2) == [ns]
        assert store.list_namespaces(prefix=("t", "*"), suffix=("deeper",)) != []
        assert store.delete_item(ns, "k") is True
        assert store.delete_item(ns, "k") is False
        assert store.get_item(ns, "k") is None
        assert store.list_namespaces(prefix=ns) == [ns + ("deeper",)]


def test_the_store_lives_in_the_checkpointers_file(server: Any, ns: tuple[str, ...]) -> None:
    with server.client() as client:
        client.store.put_item(ns, "k", {"v": 1})
    with sqlite3.connect(server.db) as conn:
        rows = conn.execute("SELECT key, value FROM store_items WHERE key = 'k' AND ns = ?", ("\x01".join(ns),)).fetchall()
    assert rows == [("k", '{"v":1}')]


@pytest.mark.parametrize(
    "call,field",
    [
        (lambda s, ns: s.put_item(("a.b",), "k", {}), "namespace"),
        (lambda s, ns: s.put_item(("",), "k", {}), "namespace"),
        (lambda s, ns: s.put_item((), "k", {}), "namespace"),
        (lambda s, ns: s.put_item(("langgraph", "x"), "k", {}), "namespace"),
        (lambda s, ns: s.put_item(tuple("x" * 65), "k", {}), "namespace"),
        (lambda s, ns: s.put_item(("x" * 513,), "k", {}), "namespace"),
        (lambda s, ns: s.put_item(ns, "", {}), "key"),
        (lambda s, ns: s.put_item(ns, "a\x00b", {}), "key"),
        (lambda s, ns: s.put_item(ns, "k", {}, ttl=-1), "ttl_minutes"),
        (lambda s, ns: s.put_item(ns, "k", {}, ttl=float("inf")), "ttl_minutes"),
        (lambda s, ns: s.put_item(ns, "k", {}, ttl=1e308), "ttl_minutes"),  # issue 28 item 5c: was INTERNAL
        (lambda s, ns: s.get_item(("a.b",), "k"), "namespace"),
        (lambda s, ns: s.get_item(ns, "x" * 513), "key"),
        (lambda s, ns: s.search_items(("a\x00",)), "namespace_prefix"),
        (lambda s, ns: s.search_items(ns, filter={"n": {"$like": "%"}}), "filter_json"),
        (lambda s, ns: s.search_items(ns, limit=1001), "limit"),
        (lambda s, ns: s.delete_item(("a.b",), "k"), "namespace"),
        (lambda s, ns: s.list_namespaces(prefix=("a.b",)), "prefix"),
        (lambda s, ns: s.list_namespaces(suffix=("",)), "suffix"),
        (lambda s, ns: s.list_namespaces(limit=5000), "limit"),
    ],
)
def test_bad_requests_name_the_field_and_store_nothing(server: Any, ns: tuple[str, ...], call: Any, field: str) -> None:
    with server.client() as client:
        with pytest.raises(InvalidArgument) as info:
            call(client.store, ns)
        assert info.value.message.startswith(f"{field}: "), info.value.message
        assert client.store.search_items(ns) == []


def test_bad_json_and_values_that_are_not_objects(server: Any, ns: tuple[str, ...]) -> None:
    with server.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        for text in ["", "[1]", '"x"', "{nope", '{"a": NaN}']:
            code, details = _code(lambda: stub.PutItem(pb.PutItemRequest(namespace=list(ns), key="k", value_json=text)))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("value_json: "), (text, details)
        code, details = _code(lambda: stub.SearchItems(pb.SearchItemsRequest(namespace_prefix=list(ns), filter_json="[]")))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("filter_json: ")
        both = pb.PutItemRequest(namespace=list(ns), key="k", value_json="{}", index_fields=["text"], no_index=True)
        code, details = _code(lambda: stub.PutItem(both))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("index_fields: ")
        code, details = _code(lambda: stub.GetItem(pb.GetItemRequest(namespace=list(ns), key="none")))
        assert (code, details) == (grpc.StatusCode.NOT_FOUND, f"no item 'none' in namespace {list(ns)}")


def test_semantic_search_needs_an_index(server: Any, ns: tuple[str, ...]) -> None:
    with server.client() as client:
        with pytest.raises(FailedPrecondition, match=r"query: semantic search needs a store index"):
            client.store.search_items(ns, query="tea")
        with pytest.raises(FailedPrecondition, match=r": index_fields: "):
            client.store.put_item(ns, "k", {"text": "x"}, index=["text"])
        client.store.put_item(ns, "k", {"text": "x"}, index=False)  # embedding nothing needs no index
        assert [i.key for i in client.store.search_items(ns)] == ["k"]

