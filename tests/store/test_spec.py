"""The store spec suite: what every store must do, on memory, SQLite and PostgreSQL.

Each test runs once per store kind (see ``conftest.py``). A new store is done
when this file passes on it unchanged. Where the expectation is LangGraph's
(its ``InMemoryStore`` on the same calls), ``tests/sidebyside/store_*.py``
shows it side by side.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.errors import InvalidNamespaceError
from engine.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)


def keys(items: list[Any]) -> list[tuple[tuple[str, ...], str]]:
    return [(i.namespace, i.key) for i in items]


# -- put / get / delete ---------------------------------------------------------
def test_put_then_get_returns_the_item(store: BaseStore) -> None:
    store.put(("users", "u1"), "prefs", {"theme": "dark", "n": [1, 2.5, None, True], "deep": {"a": {"b": "é"}}})
    item = store.get(("users", "u1"), "prefs")
    assert isinstance(item, Item)
    assert (item.namespace, item.key) == (("users", "u1"), "prefs")
    assert item.value == {"theme": "dark", "n": [1, 2.5, None, True], "deep": {"a": {"b": "é"}}}
    assert list(item.value) == ["theme", "n", "deep"]  # key order kept
    assert item.created_at == item.updated_at and item.created_at.tzinfo is not None


def test_get_of_a_missing_item_is_none(store: BaseStore) -> None:
    assert store.get(("users", "u1"), "nope") is None
    store.put(("users", "u1"), "prefs", {"a": 1})
    assert store.get(("users",), "prefs") is None  # namespaces match exactly
    assert store.get(("users", "u1", "x"), "prefs") is None


def test_a_later_put_replaces_the_value_and_keeps_created_at(store: BaseStore, clock: Any) -> None:
    store.put(("n",), "k", {"v": 1})
    first = store.get(("n",), "k")
    clock.advance(1)
    store.put(("n",), "k", {"w": 2})
    second = store.get(("n",), "k")
    assert first is not None and second is not None
    assert second.value == {"w": 2}
    assert second.created_at == first.created_at
    assert second.updated_at - first.updated_at == clock.now - first.created_at


def test_delete_removes_the_item_and_is_quiet_when_missing(store: BaseStore) -> None:
    store.put(("n",), "k", {"v": 1})
    store.delete(("n",), "k")
    assert store.get(("n",), "k") is None
    store.delete(("n",), "k")
    store.delete(("other",), "k")
    assert store.list_namespaces() == []


def test_keys_are_strings(store: BaseStore) -> None:
    store.put(("n",), 5, {"v": 1})  # type: ignore[arg-type]
    assert store.get(("n",), "5") is not None
    assert store.get(("n",), 5) is not None  # type: ignore[arg-type]


def test_labels_and_keys_are_compared_exactly(store: BaseStore) -> None:
    odd = ["a", "A", "a*", "a%", "a_", "a\x01", "a\x02", "ab", "é", "a b", "'; DROP TABLE store_items; --"]
    for label in odd:
        store.put(("t", label), label, {"label": label})
    for label in odd:
        item = store.get(("t", label), label)
        assert item is not None and item.value == {"label": label}
        assert keys(store.search(("t", label))) == [(("t", label), label)]
    assert store.list_namespaces(prefix=("t",)) == sorted(("t", label) for label in odd)


@pytest.mark.parametrize(
    "namespace, message",
    [
        ((), "cannot be empty"),
        (("a.b",), "periods"),
        (("",), "empty strings"),
        (("a\x00",), "NUL"),
        (("langgraph", "x"), "langgraph"),
        ((1,), "must be strings"),
        ("users", "tuple of labels"),
    ],
)
def test_bad_namespaces_are_refused_before_anything_is_stored(store: BaseStore, namespace: Any, message: str) -> None:
    with pytest.raises(InvalidNamespaceError, match=message):
        store.put(namespace, "k", {"v": 1})
    assert store.list_namespaces() == []


def test_ops_passed_to_batch_are_checked_too(store: BaseStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("ok",), "k", {"v": 1}), PutOp(("a.b",), "k", {"v": 1})])
    with pytest.raises(InvalidNamespaceError):
        store.batch([SearchOp(("a.b",))])
    with pytest.raises(ValueError, match="Unknown operation"):
        store.batch(["nope"])  # type: ignore[list-item]
    assert store.get(("ok",), "k") is None  # nothing of a refused batch ran


@pytest.mark.parametrize("value", [{1: "int key"}, {"f": float("nan")}, {"o": object()}, "not a dict"])
def test_values_must_be_json_data_in_sql_stores(store: BaseStore, store_kind: str, value: Any) -> None:
    if store_kind.startswith("memory") and isinstance(value, dict):
        store.put(("n",), "k", value)  # the in-memory store keeps Python objects, as LangGraph's
        return
    with pytest.raises((TypeError, ValueError)):
        store.put(("n",), "k", value)
    assert store.get(("n",), "k") is None


# -- search ---------------------------------------------------------------------
def _fill(store: BaseStore) -> None:
    store.put(("docs", "b"), "k1", {"n": 1, "tag": "x"})
    store.put(("docs", "a"), "k1", {"n": 2, "tag": "y"})
    store.put(("docs", "b"), "k0", {"n": 3, "tag": "x", "meta": {"lang": "en", "stars": 5}})
    store.put(("docsx",), "k", {"n": 4})
    store.put(("other",), "k", {"n": 5, "tag": "x"})


def test_search_order_is_insertion_order_grouped_by_namespace(store: BaseStore) -> None:
    _fill(store)
    store.put(("docs", "b"), "k1", {"n": 10, "tag": "x"})  # a later put keeps the item's place
    assert keys(store.search(())) == [
        (("docs", "b"), "k1"), (("docs", "b"), "k0"), (("docs", "a"), "k1"), (("docsx",), "k"), (("other",), "k"),
    ]  # fmt: skip
    store.delete(("docs", "b"), "k1")
    store.put(("docs", "b"), "k1", {"n": 11})  # a delete and a new put move it last in its namespace...
    # ...and namespaces go by their oldest item: docs/b's is now k0, written after docs/a's k1
    assert keys(store.search(("docs",))) == [(("docs", "a"), "k1"), (("docs", "b"), "k0"), (("docs", "b"), "k1")]


def test_search_prefix_is_whole_labels(store: BaseStore) -> None:
    _fill(store)
    assert {ns for ns, _ in keys(store.search(("docs",)))} == {("docs", "a"), ("docs", "b")}
    assert keys(store.search(("docs", "a"))) == [(("docs", "a"), "k1")]
    assert store.search(("doc",)) == []
    assert all(isinstance(i, SearchItem) and i.score is None for i in store.search(()))


def test_search_filter_limit_offset(store: BaseStore) -> None:
    _fill(store)
    assert keys(store.search((), filter={"tag": "x"})) == [(("docs", "b"), "k1"), (("docs", "b"), "k0"), (("other",), "k")]
    assert keys(store.search((), filter={"tag": "x"}, limit=1, offset=1)) == [(("docs", "b"), "k0")]
    assert store.search((), filter={"tag": "x"}, limit=0) == []
    assert store.search((), filter={"tag": "x"}, offset=3) == []
    assert keys(store.search((), filter={"n": {"$gt": 2}})) == [(("docs", "b"), "k0"), (("docsx",), "k"), (("other",), "k")]
    assert keys(store.search((), filter={"n": {"$gte": 2, "$lt": 4}})) == [(("docs", "b"), "k0"), (("docs", "a"), "k1")]
    assert keys(store.search((), filter={"n": {"$lte": 1}})) == [(("docs", "b"), "k1")]
    assert keys(store.search((), filter={"tag": {"$ne": "x"}})) == [(("docs", "a"), "k1"), (("docsx",), "k")]  # y, and no tag
    assert keys(store.search((), filter={"meta": {"lang": "en"}})) == [(("docs", "b"), "k0")]
    assert keys(store.search((), filter={"tag": None})) == [(("docsx",), "k")]
    assert store.search((), filter={"tag": {"$gt": 1}}) == []  # no order between a string and a number
    with pytest.raises(ValueError, match="Unsupported operator"):
        store.search((), filter={"n": {"$regex": "."}})


@pytest.mark.parametrize("bad", [{"limit": -1}, {"offset": -1}, {"limit": 1.5}])
def test_search_bounds_are_checked(store: BaseStore, bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        store.search((), **bad)


def test_search_with_a_query_but_no_index_ignores_the_query(store: BaseStore) -> None:
    _fill(store)
    assert keys(store.search(("docs",), query="anything")) == keys(store.search(("docs",)))


def test_filter_keys_are_data(store: BaseStore) -> None:
    store.put(("n",), "k", {"a') OR 1=1 --": 1, "b": 2})
    assert keys(store.search(("n",), filter={"a') OR 1=1 --": 1})) == [(("n",), "k")]
    assert store.search(("n",), filter={"b') OR 1=1 --": 2}) == []


# -- list namespaces -------------------------------------------------------------
def _tree(store: BaseStore) -> None:
    for ns in [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]:
        store.put(ns, "k", {})


def test_list_namespaces(store: BaseStore) -> None:
    _tree(store)
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert store.list_namespaces(suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("*", "b")) == [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(max_depth=1) == [("a",), ("b",)]
    assert store.list_namespaces(max_depth=0) == [()]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "b", "d", "e"), ("a", "b", "d", "i")]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3, offset=1, limit=1) == [("a", "b", "d")]
    assert store.list_namespaces(prefix=("z",)) == []


def test_a_namespace_exists_while_it_holds_an_item(store: BaseStore) -> None:
    store.get(("never", "written"), "k")
    store.search(("never",))
    store.put(("x",), "k", {})
    store.delete(("x",), "k")
    assert store.list_namespaces() == []


# -- batches ------------------------------------------------------------------
def test_batch_reads_see_the_store_before_the_batchs_puts(store: BaseStore) -> None:
    store.put(("n",), "k", {"v": 0})
    results = store.batch([
        PutOp(("n",), "k", {"v": 1}),
        GetOp(("n",), "k"),
        SearchOp(("n",)),
        ListNamespacesOp(),
        PutOp(("m",), "j", {"v": 2}),
        PutOp(("n",), "k", {"v": 3}),
    ])  # fmt: skip
    assert results[0] is None and results[4] is None and results[5] is None
    assert results[1].value == {"v": 0}  # type: ignore[union-attr]
    assert [i.value for i in results[2]] == [{"v": 0}]  # type: ignore[union-attr]
    assert results[3] == [("n",)]
    assert store.get(("n",), "k").value == {"v": 3}  # type: ignore[union-attr]  # the last put of a key wins
    assert keys(store.search(())) == [(("n",), "k"), (("m",), "j")]


def test_async_face(store: BaseStore) -> None:
    async def main() -> None:
        await store.aput(("n",), "k", {"v": 1})
        assert (await store.aget(("n",), "k")).value == {"v": 1}  # type: ignore[union-attr]
        assert keys(await store.asearch(("n",))) == [(("n",), "k")]
        assert await store.alist_namespaces() == [("n",)]
        await store.adelete(("n",), "k")
        assert await store.abatch([GetOp(("n",), "k")]) == [None]

    asyncio.run(main())


def test_concurrent_batches_all_land(store: BaseStore) -> None:
    async def main() -> None:
        await asyncio.gather(*(store.aput(("n", str(i % 3)), f"k{i}", {"i": i}) for i in range(30)))

    asyncio.run(main())
    assert sorted(i.value["i"] for i in store.search(("n",), limit=100)) == list(range(30))


def test_the_sync_face_works_inside_a_running_loop(store: BaseStore) -> None:
    async def main() -> Item | None:
        store.put(("n",), "k", {"v": 1})  # e.g. a sync node run inline by the loop
        return store.get(("n",), "k")

    assert asyncio.run(main()).value == {"v": 1}  # type: ignore[union-attr]


def test_match_conditions_are_checked(store: BaseStore) -> None:
    with pytest.raises(ValueError):
        store.batch([ListNamespacesOp(match_conditions=(MatchCondition("middle", ("a",)),))])  # type: ignore[arg-type]
