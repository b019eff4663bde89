"""A store seen through scopes: what a scope's callers can and cannot reach.

The spec suite runs through scoped views too (``scoped`` and ``outside``
kinds, see conftest); these tests pin what is particular to scopes: roots
that no label can forge, suffixes that never reach the root, prefixes that
stay whole labels, and the outside view paging past scoped items.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.errors import InvalidNamespaceError
from engine.store import InMemoryStore, ScopedStore, is_scoped
from engine.store.base import BaseStore, Item, PutOp, SearchOp


class _Custom(BaseStore):
    async def abatch(self, ops):  # type: ignore[no-untyped-def]
        return []


@pytest.fixture
def base(new_store: Callable[..., BaseStore]) -> BaseStore:
    return new_store()


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store_kind(request: pytest.FixtureRequest) -> str:  # the backends only: these tests make their own views
    return request.param


def test_roots_must_be_unforgeable_and_stores_the_engines() -> None:
    for root in ["tenant", "", "a.\x00"]:
        with pytest.raises(ValueError, match="holds a '.'"):
            ScopedStore(InMemoryStore(), root)
    with pytest.raises(TypeError, match="cannot be scoped"):
        ScopedStore(_Custom(), "tenant.a")
    assert is_scoped(("tenant.a", "x")) and not is_scoped(("tenant", "x")) and not is_scoped(())


def test_a_scope_sees_only_its_own_namespaces(base: BaseStore) -> None:
    acme, acme2, outside = ScopedStore(base, "tenant.acme"), ScopedStore(base, "tenant.acme-2"), ScopedStore(base, None)
    acme.put(("memories", "u1"), "k", {"who": "acme"})
    acme2.put(("memories", "u1"), "k", {"who": "acme-2"})
    outside.put(("memories", "u1"), "k", {"who": "nobody"})
    for view, who in [(acme, "acme"), (acme2, "acme-2"), (outside, "nobody")]:
        item = view.get(("memories", "u1"), "k")
        assert item is not None and item.value == {"who": who} and item.namespace == ("memories", "u1")
        assert [i.value["who"] for i in view.search(())] == [who]
        assert view.list_namespaces() == [("memories", "u1")]
    acme.put(("notes",), "k", {"who": "acme"})
    acme.delete(("notes",), "k")
    assert acme.get(("notes",), "k") is None
    assert acme2.get(("memories", "u1"), "k") is not None and outside.get(("memories", "u1"), "k") is not None
    # The whole store holds all of them, under their roots.
    assert base.list_namespaces() == [("memories", "u1"), ("tenant.acme", "memories", "u1"), ("tenant.acme-2", "memories", "u1")]


@pytest.mark.parametrize(
    "namespace",
    [("tenant.other", "memories"), ("tenant.other",), ("memories", "tenant.other"), ("a.b",), ("",), ("x\x00",)],
)
def test_no_label_a_caller_passes_can_name_a_root(base: BaseStore, namespace: tuple[str, ...]) -> None:
    ScopedStore(base, "tenant.other").put(("memories",), "k", {"v": 1})
    acme = ScopedStore(base, "tenant.acme")
    for call in [
        lambda: acme.put(namespace, "k", {"v": 2}),
        lambda: acme.get(namespace, "k"),
        lambda: acme.search(namespace),
        lambda: acme.delete(namespace, "k"),
        lambda: acme.list_namespaces(prefix=namespace),
        lambda: acme.list_namespaces(suffix=namespace),
        lambda: acme.batch([PutOp(namespace, "k", {"v": 2})]),
    ]:
        with pytest.raises(InvalidNamespaceError):
            call()
    assert ScopedStore(base, "tenant.other").get(("memories",), "k").value == {"v": 1}  # type: ignore[union-attr]


def test_a_suffix_never_lines_up_with_the_root(base: BaseStore) -> None:
    acme = ScopedStore(base, "tenant.acme")
    acme.put(("memories",), "k", {"v": 1})
    acme.put(("x", "memories"), "k", {"v": 1})
    # ("*", "memories") needs two labels of the caller's own: ("memories",) has one.
    assert acme.list_namespaces(suffix=("*", "memories")) == [("x", "memories")]
    assert acme.list_namespaces(suffix=("memories",)) == [("memories",), ("x", "memories")]
    assert acme.list_namespaces(prefix=("*",), max_depth=1) == [("memories",), ("x",)]
    assert acme.list_namespaces(max_depth=0) == [()]
    assert ScopedStore(base, "tenant.other").list_namespaces(max_depth=0) == []


def test_the_outside_view_pages_past_scoped_items(base: BaseStore) -> None:
    for i in range(25):
        ScopedStore(base, f"tenant.t{i % 3}").put(("a", f"n{i}"), "k", {"i": i})
    outside = ScopedStore(base, None)
    assert outside.search(()) == [] and outside.list_namespaces() == [] and outside.list_namespaces(max_depth=0) == []
    for i in range(7):
        outside.put(("b", f"n{i}"), "k", {"i": i})
        ScopedStore(base, "tenant.t0").put(("b", f"m{i}"), "k", {"i": i})
    assert [i.value["i"] for i in outside.search((), limit=3, offset=2)] == [2, 3, 4]
    assert [i.value["i"] for i in outside.search((), limit=100)] == list(range(7))
    assert outside.list_namespaces(limit=2, offset=5) == [("b", "n5"), ("b", "n6")]
    assert outside.list_namespaces(prefix=("*", "n1")) == [("b", "n1")]
    assert outside.list_namespaces(max_depth=0) == [()]
    batch = outside.batch([SearchOp((), limit=2), SearchOp(("b",), limit=1)])
    assert [[i.value["i"] for i in r] for r in batch] == [[0, 1], [0]]  # type: ignore[union-attr]


def test_results_carry_the_callers_namespaces(base: BaseStore) -> None:
    acme = ScopedStore(base, "tenant.acme")
    acme.put(("m", "u"), "k", {"v": 1})
    found = acme.search(("m",))
    assert [(i.namespace, i.key, i.score) for i in found] == [(("m", "u"), "k", None)]
    assert isinstance(acme.get(("m", "u"), "k"), Item)
    assert "tenant.acme" not in repr(found)
