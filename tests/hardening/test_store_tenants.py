"""Tenants and the store: each tenant's memories are its own, through the RPCs and through its runs.

Another tenant's item reads exactly as one that does not exist; listings and
searches never show another tenant's namespaces; no label a caller can send
reaches them (tenants' namespaces sit under a root label holding a ``.``,
which labels may not hold); a node of a tenant's run sees what that tenant
sees. A server without tenants on the same database sees none of theirs.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import grpc
import pytest
from graphwire import InvalidArgument, NotFound

from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

ACME, GLOBEX, ACME2 = "acme-token-0123456789", "globex-token-0123456789", "acme2-token-0123456789"
GRAPHS = {"memories": "tests.graphs:memories"}


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.conftest import start_server_process

    work = tmp_path_factory.mktemp("store-tenants")
    tokens = work / "tokens.toml"
    # "acme-2" next to "acme": a root that is a prefix of another's as text must not be one as labels.
    tokens.write_text(f'acme = "{ACME}"\nglobex = "{GLOBEX}"\n"acme-2" = "{ACME2}"\n')
    srv = start_server_process(work, graphs=GRAPHS, args=["--auth-tokens", str(tokens)])
    yield srv
    assert srv.terminate() == 0, srv.log()


def _stub_call(srv: Any, token: str, method: str, request: Any) -> tuple[grpc.StatusCode, str]:
    with srv.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        try:
            getattr(stub, method)(request, metadata=(("authorization", f"Bearer {token}"),), timeout=30)
        except grpc.RpcError as exc:
            return exc.code(), exc.details()
    return grpc.StatusCode.OK, ""


def test_another_tenants_item_reads_as_missing(tenants: Any) -> None:
    with tenants.client(token=ACME) as acme, tenants.client(token=GLOBEX) as globex:
        acme.store.put_item(("memories", "u1"), "secret", {"text": "acme's"})
        assert globex.store.get_item(("memories", "u1"), "secret") is None
        theirs = _stub_call(tenants, GLOBEX, "GetItem", pb.GetItemRequest(namespace=["memories", "u1"], key="secret"))
        nobodys = _stub_call(tenants, GLOBEX, "GetItem", pb.GetItemRequest(namespace=["memories", "u1"], key="none"))
        assert theirs[0] == nobodys[0] == grpc.StatusCode.NOT_FOUND
        assert theirs[1] == nobodys[1].replace("'none'", "'secret'")
        assert globex.store.search_items(("memories", "u1")) == [] and globex.store.search_items(()) == []
        assert globex.store.delete_item(("memories", "u1"), "secret") is False
        globex.store.put_item(("memories", "u1"), "secret", {"text": "globex's"})  # its own, beside acme's
        assert acme.store.get_item(("memories", "u1"), "secret").value == {"text": "acme's"}  # type: ignore[union-attr]
        assert globex.store.get_item(("memories", "u1"), "secret").value == {"text": "globex's"}  # type: ignore[union-attr]


def test_listings_never_show_another_tenants_namespaces(tenants: Any) -> None:
    with tenants.client(token=ACME) as acme, tenants.client(token=ACME2) as acme2:
        acme.store.put_item(("lists", "a"), "k", {"v": 1})
        acme2.store.put_item(("lists", "b"), "k", {"v": 2})
        for client, mine in [(acme, ("lists", "a")), (acme2, ("lists", "b"))]:
            spaces = client.store.list_namespaces(limit=1000)
            assert mine in spaces and all(ns[0] != "tenant" and "." not in ns[0] for ns in spaces)
            assert client.store.list_namespaces(prefix=("lists",)) == [mine]
            assert client.store.list_namespaces(prefix=("*", "*")) == sorted(
                ns for ns in spaces if len(ns) >= 2
            )
            assert client.store.list_namespaces(suffix=("*", "lists")) == []  # the root is never a label to match
            assert [i.value for i in client.store.search_items(("lists",))] == [{"v": 1 if mine[1] == "a" else 2}]


@pytest.mark.parametrize(
    "namespace",
    [
        ["tenant.acme", "memories", "u1"],
        ["tenant.acme"],
        ["tenant", "acme", "memories", "u1"],
        ["..", "tenant.acme"],
        ["tenant.acme\x00"],
        ["", "memories"],
    ],
)
def test_no_label_reaches_another_tenants_namespaces(tenants: Any, namespace: list[str]) -> None:
    with tenants.client(token=ACME) as acme:
        acme.store.put_item(("memories", "u1"), "tricks", {"text": "acme's"})
    for method, request in [
        ("GetItem", pb.GetItemRequest(namespace=namespace, key="tricks")),
        ("PutItem", pb.PutItemRequest(namespace=namespace, key="tricks", value_json="{}")),
        ("DeleteItem", pb.DeleteItemRequest(namespace=namespace, key="tricks")),
        ("SearchItems", pb.SearchItemsRequest(namespace_prefix=namespace)),
        ("ListNamespaces", pb.ListNamespacesRequest(prefix=namespace)),
        ("ListNamespaces", pb.ListNamespacesRequest(suffix=namespace)),
    ]:
        code, details = _stub_call(tenants, GLOBEX, method, request)
        if namespace[0] == "tenant":  # plain labels: globex's own namespace, which holds nothing
            assert code in (grpc.StatusCode.OK, grpc.StatusCode.NOT_FOUND), (method, details)
        else:
            assert code == grpc.StatusCode.INVALID_ARGUMENT, (method, details)
    with tenants.client(token=GLOBEX) as globex:
        assert all(i.value != {"text": "acme's"} for i in globex.store.search_items((), limit=1000))
        assert globex.store.search_items(("tenant",)) == []
    with tenants.client(token=ACME) as acme:
        assert acme.store.get_item(("memories", "u1"), "tricks").value == {"text": "acme's"}  # type: ignore[union-attr]


def test_a_tenants_runs_see_only_its_memories(tenants: Any) -> None:
    with tenants.client(token=ACME) as acme, tenants.client(token=GLOBEX) as globex:
        acme.store.put_item(("memories", "runner"), "tea", {"text": "likes tea", "by": "client"})
        mine = acme.invoke("memories", "t1", {"user_id": "runner", "fact": "lives in Oslo"}, timeout=30)
        assert mine.values["known"] == ["likes tea", "lives in Oslo"]
        theirs = globex.invoke("memories", "t1", {"user_id": "runner"}, timeout=30)
        assert theirs.values["known"] == []
        globex.invoke("memories", "t2", {"user_id": "runner", "fact": "globex's fact"}, timeout=30)
        assert [i.value["text"] for i in acme.store.search_items(("memories", "runner"))] == ["likes tea", "lives in Oslo"]
        assert [i.value["text"] for i in globex.store.search_items(("memories", "runner"))] == ["globex's fact"]


def test_stored_under_the_tenants_root_and_invisible_without_tenants(tenants: Any, start_server: Any) -> None:
    with tenants.client(token=ACME) as acme:
        acme.store.put_item(("rooted",), "k", {"v": 1})
    with sqlite3.connect(tenants.db) as conn:
        stored = [ns for (ns,) in conn.execute("SELECT ns FROM store_items WHERE key = 'k' AND ns LIKE '%rooted'")]
    assert stored == ["tenant.acme\x01rooted"]
    # A server without tenants on the same data (a copy of the file: one server serves a SQLite
    # file at a time): the tenants' memories are not its.
    copy = Path(tenants.db).with_name("copy.db")
    source, target = sqlite3.connect(tenants.db), sqlite3.connect(copy)
    source.backup(target)
    source.close()
    target.close()
    plain = start_server(db=copy, graphs=GRAPHS)
    with plain.client() as client:
        client.store.put_item(("plain",), "k", {"v": 2})
        assert client.store.list_namespaces(limit=1000) == [("plain",)]
        assert [i.namespace for i in client.store.search_items((), limit=1000)] == [("plain",)]
        assert client.store.get_item(("rooted",), "k") is None
        with pytest.raises(InvalidArgument):
            client.store.get_item(("tenant.acme", "rooted"), "k")
        assert client.invoke("memories", "t", {"user_id": "runner"}, timeout=30).values["known"] == []
    with tenants.client(token=ACME) as acme, pytest.raises(NotFound):
        acme.get_state("memories", "t", timeout=30)  # threads stay apart too


def test_a_tenant_server_store_used_outside_a_tenants_call_fails_closed() -> None:
    from engine.store import InMemoryStore
    from server._store import TenantStore
    from server._tenants import TENANT

    store = InMemoryStore()
    served = TenantStore(store, tenants=True)
    token = TENANT.set("acme")
    try:
        served.put(("m",), "k", {"v": 1})
        assert served.get(("m",), "k") is not None
    finally:
        TENANT.reset(token)
    with pytest.raises(RuntimeError, match="outside a tenant's call"):
        served.get(("m",), "k")
    with pytest.raises(RuntimeError):
        served.search(())
    assert store.list_namespaces() == [("tenant.acme", "m")]
    assert TenantStore(store, tenants=False).search(()) == []  # without tenants: outside every scope
