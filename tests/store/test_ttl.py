"""TTLs on every store: minutes from the last write (or read, when refreshed), on the test's clock.

LangGraph's semantics (its SQL stores'): an item expires ``ttl`` minutes
after it was written; a read with ``refresh_ttl`` (the default, unless the
TTL config says ``refresh_on_read: False``) pushes that back; an expired
item is deleted by the sweeper, and until then stays readable unless
``omit_expired`` is set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.store import MAX_TTL_MINUTES
from engine.store.base import BaseStore


def test_an_expired_item_is_swept(new_store: Callable[..., BaseStore], clock: Any) -> None:
    store = new_store()
    store.put(("n",), "short", {"v": 1}, ttl=1)
    store.put(("n",), "long", {"v": 2}, ttl=10)
    store.put(("n",), "forever", {"v": 3})
    clock.advance(0.5)
    assert store.sweep_ttl() == 0
    clock.advance(0.5)
    assert store.get(("n",), "short", refresh_ttl=False) is not None  # expired, not yet swept: still there
    assert store.sweep_ttl() == 1
    assert store.get(("n",), "short") is None
    clock.advance(100)
    assert store.sweep_ttl() == 1
    assert [i.key for i in store.search(("n",))] == ["forever"]


def test_reads_refresh_the_ttl_unless_told_not_to(new_store: Callable[..., BaseStore], clock: Any) -> None:
    store = new_store()
    store.put(("n",), "a", {"v": 1}, ttl=1)
    store.put(("n",), "b", {"v": 2}, ttl=1)
    store.put(("n",), "c", {"v": 3}, ttl=1)
    clock.advance(0.75)
    store.get(("n",), "a")  # refreshed: expires at 1.75
    store.search(("n",), filter={"v": 2})  # b refreshed too
    store.get(("n",), "c", refresh_ttl=False)
    clock.advance(0.5)
    assert store.sweep_ttl() == 1  # c
    assert sorted(i.key for i in store.search(("n",), refresh_ttl=False)) == ["a", "b"]
    clock.advance(0.5)
    assert store.sweep_ttl() == 2


def test_default_ttl_and_refresh_on_read_from_the_config(new_store: Callable[..., BaseStore], clock: Any) -> None:
    store = new_store(ttl={"default_ttl": 1, "refresh_on_read": False})
    store.put(("n",), "default", {"v": 1})
    store.put(("n",), "never", {"v": 2}, ttl=None)
    clock.advance(0.75)
    store.get(("n",), "default")  # no refresh by default
    clock.advance(0.5)
    assert store.sweep_ttl() == 1
    assert [i.key for i in store.search(("n",))] == ["never"]


def test_a_put_sets_the_ttl_again(new_store: Callable[..., BaseStore], clock: Any) -> None:
    store = new_store()
    store.put(("n",), "k", {"v": 1}, ttl=1)
    clock.advance(0.75)
    store.put(("n",), "k", {"v": 2})  # no ttl now
    clock.advance(10)
    assert store.sweep_ttl() == 0
    assert store.get(("n",), "k").value == {"v": 2}  # type: ignore[union-attr]


def test_omit_expired_hides_expired_items_before_the_sweep(new_store: Callable[..., BaseStore], clock: Any) -> None:
    store = new_store(ttl={"omit_expired": True})
    store.put(("n",), "k", {"v": 1}, ttl=1)
    store.put(("m",), "k", {"v": 1})
    clock.advance(1)
    assert store.get(("n",), "k") is None
    assert store.search(("n",)) == []
    assert store.list_namespaces() == [("m",)]
    assert store.sweep_ttl() == 1


@pytest.mark.parametrize("ttl", [0, -1, float("inf"), float("nan"), "5"])
def test_bad_ttls_are_refused(store: BaseStore, ttl: Any) -> None:
    with pytest.raises((ValueError, TypeError)):
        store.put(("n",), "k", {"v": 1}, ttl=ttl)
    assert store.get(("n",), "k") is None


@pytest.mark.parametrize("ttl", [1e308, MAX_TTL_MINUTES * 2, 1e12])
def test_a_ttl_too_long_for_a_date_is_a_value_error(store: BaseStore, ttl: float) -> None:
    """Issue 28 item 5c: an expiry past year 9999 used to overflow inside the store (OverflowError)."""
    with pytest.raises(ValueError, match=r"ttl is a number of minutes > 0 and at most 1,000,000,000 \(about 1,900 years"):
        store.put(("n",), "k", {"v": 1}, ttl=ttl)
    assert store.get(("n",), "k") is None


def test_the_longest_ttl_is_kept_and_refreshed(new_store: Callable[..., BaseStore], clock: Any) -> None:
    store = new_store()
    store.put(("n",), "k", {"v": 1}, ttl=MAX_TTL_MINUTES)
    clock.advance(10)
    assert store.get(("n",), "k") is not None  # a read refreshes it: its expiry is computed again
    clock.advance(MAX_TTL_MINUTES - 1)
    assert store.sweep_ttl() == 0 and store.get(("n",), "k", refresh_ttl=False) is not None
