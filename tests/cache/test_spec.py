"""The cache spec suite: what every node cache must do, on memory, SQLite and PostgreSQL.

Each test runs once per cache kind (see ``conftest.py``), scoped views
included. A new cache is done when this file passes on it unchanged. The
contract is LangGraph's ``BaseCache`` (``get``/``set``/``clear`` and async
twins, ttl in seconds); what the engine keeps there (a node's writes) is in
tests/engine/test_node_cache.py.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

import pytest

from engine.cache._scoped import ScopedCache
from engine.cache.base import BaseCache
from engine.errors import SerializationError

NS = ("__pregel_ns_writes", "mod.fn", "node")


# -- get / set / clear -----------------------------------------------------------
def test_set_then_get_returns_the_values(cache: BaseCache[Any]) -> None:
    writes = [("log", ["slow 1"]), ("x", 1)]
    cache.set({(NS, "k0"): (writes, None), (NS, "k1"): ({"a": [1, 2.5, None, True], "é": "ü"}, 60)})
    assert cache.get([(NS, "k0"), (NS, "k1"), (NS, "missing")]) == {
        (NS, "k0"): writes,
        (NS, "k1"): {"a": [1, 2.5, None, True], "é": "ü"},
    }
    assert cache.get([]) == {}
    assert cache.get([(("n",), "k")]) == {}


def test_values_keep_their_types(cache: BaseCache[Any]) -> None:
    value = {
        "tuple": (1, "two"), "bytes": b"\x00\xff", "when": dt.datetime(2030, 1, 2, 3, 4, 5, tzinfo=dt.UTC),
        "day": dt.date(2030, 1, 2), "id": uuid.UUID(int=7), "price": Decimal("1.10"), "set": {1, 2},
        "big": 2**70, "nested": [[{"k": [()]}]],
    }  # fmt: skip
    cache.set({(NS, "k"): (value, None)})
    got = cache.get([(NS, "k")])[(NS, "k")]
    assert got == value
    assert [type(got[k]) for k in value] == [type(v) for v in value.values()]


def test_a_readers_mutation_does_not_reach_the_cache(cache: BaseCache[Any]) -> None:
    cache.set({(NS, "k"): ({"a": [1]}, None)})
    cache.get([(NS, "k")])[(NS, "k")]["a"].append(2)
    assert cache.get([(NS, "k")]) == {(NS, "k"): {"a": [1]}}


def test_a_later_set_replaces_the_value_and_its_ttl(cache: BaseCache[Any], clock: Any) -> None:
    cache.set({(NS, "k"): ("first", 10)})
    cache.set({(NS, "k"): ("second", None)})
    clock.advance(3600)
    assert cache.get([(NS, "k")]) == {(NS, "k"): "second"}
    cache.set({(NS, "k"): ("third", 5)})
    clock.advance(6)
    assert cache.get([(NS, "k")]) == {}


def test_namespaces_and_keys_match_exactly(cache: BaseCache[Any]) -> None:
    spaces = [("a",), ("a", "b"), ("a,b",), ("a", "b", "c"), ("a", ""), ()]
    cache.set({(ns, key): ((ns, key), None) for ns in spaces for key in ("k", "K", "k ")})
    wanted = [(ns, key) for ns in spaces for key in ("k", "K", "k ", "")]
    got = cache.get(wanted)
    assert got == {(ns, key): (ns, key) for ns in spaces for key in ("k", "K", "k ")}


def test_many_keys_in_one_get(cache: BaseCache[Any]) -> None:
    cache.set({(NS, f"k{i}"): (i, None) for i in range(0, 400, 2)})
    got = cache.get([(NS, f"k{i}") for i in range(400)])
    assert got == {(NS, f"k{i}"): i for i in range(0, 400, 2)}


def test_clear_forgets_the_named_namespaces_only(cache: BaseCache[Any]) -> None:
    other = ("__pregel_ns_writes", "mod.fn", "other")
    cache.set({(NS, "k"): (1, None), (other, "k"): (2, None), (("a",), "k"): (3, None)})
    cache.clear([NS, ("never", "used")])
    assert cache.get([(NS, "k"), (other, "k"), (("a",), "k")]) == {(other, "k"): 2, (("a",), "k"): 3}
    cache.clear([])
    assert len(cache.get([(other, "k"), (("a",), "k")])) == 2


def test_clear_of_a_namespace_leaves_the_namespaces_under_it(cache: BaseCache[Any]) -> None:
    cache.set({(("a",), "k"): (1, None), (("a", "b"), "k"): (2, None), (("a:b",), "k"): (3, None), (("a",), "b:k"): (4, None)})
    cache.clear([("a",)])
    assert cache.get([(("a",), "k"), (("a", "b"), "k"), (("a:b",), "k"), (("a",), "b:k")]) == {
        (("a", "b"), "k"): 2, (("a:b",), "k"): 3,
    }


def test_clear_without_namespaces_forgets_everything(cache: BaseCache[Any]) -> None:
    cache.set({(NS, "k"): (1, None), (("a",), "k"): (2, None)})
    if isinstance(cache, ScopedCache):
        with pytest.raises(ValueError, match="named namespaces only"):
            cache.clear()
        assert len(cache.get([(NS, "k"), (("a",), "k")])) == 2  # nothing was cleared
        return
    cache.clear()
    assert cache.get([(NS, "k"), (("a",), "k")]) == {}


# -- ttl ---------------------------------------------------------------------------
def test_an_entry_expires_after_its_ttl(cache: BaseCache[Any], clock: Any) -> None:
    cache.set({(("n",), "short"): ("s", 10), (("n",), "long"): ("l", 100), (("n",), "forever"): ("f", None)})
    clock.advance(9.5)
    assert len(cache.get([(("n",), k) for k in ("short", "long", "forever")])) == 3
    clock.advance(0.5)
    assert cache.get([(("n",), k) for k in ("short", "long", "forever")]) == {(("n",), "long"): "l", (("n",), "forever"): "f"}
    clock.advance(10**6)
    assert cache.get([(("n",), k) for k in ("short", "long", "forever")]) == {(("n",), "forever"): "f"}


def test_an_expired_entry_read_is_gone(cache: BaseCache[Any], clock: Any) -> None:
    cache.set({(("n",), "k"): ("v", 1)})
    clock.advance(2)
    assert cache.get([(("n",), "k")]) == {}
    clock.advance(-2)  # the clock back where the entry was live: the read deleted it
    assert cache.get([(("n",), "k")]) == {}


def test_a_ttl_of_zero_caches_nothing_readable(cache: BaseCache[Any]) -> None:
    cache.set({(("n",), "k"): ("v", 0)})
    assert cache.get([(("n",), "k")]) == {}


# -- failures and twins ------------------------------------------------------------
def test_a_value_outside_the_allowlist_fails_the_set_and_stores_nothing(cache: BaseCache[Any]) -> None:
    class Secret:
        pass

    with pytest.raises(SerializationError, match="Secret"):
        cache.set({(NS, "good"): ("fine", None), (NS, "bad"): (Secret(), None)})
    assert cache.get([(NS, "good"), (NS, "bad")]) == {}


def test_the_async_twins(cache: BaseCache[Any], clock: Any) -> None:
    async def go() -> None:
        await cache.aset({(NS, "k"): ({"v": 1}, 5), (("a",), "k"): (2, None)})
        assert await cache.aget([(NS, "k"), (("a",), "k")]) == {(NS, "k"): {"v": 1}, (("a",), "k"): 2}
        clock.advance(5)
        assert await cache.aget([(NS, "k")]) == {}
        await cache.aclear([("a",)])
        assert await cache.aget([(("a",), "k")]) == {}
        # Many lookups at once from one loop (as a step's tasks do): each sees its own key.
        await cache.aset({(NS, f"c{i}"): (i, None) for i in range(20)})
        got = await asyncio.gather(*(cache.aget([(NS, f"c{i}")]) for i in range(20)))
        assert got == [{(NS, f"c{i}"): i} for i in range(20)]

    asyncio.run(go())


def test_caches_on_one_database_share_entries(new_cache: Any, cache_kind: str) -> None:
    if cache_kind.startswith("memory"):
        pytest.skip("an in-memory cache is one object's memory: nothing to share")
    first, second = new_cache(), new_cache()
    first.set({(NS, "k"): ("from first", None)})
    assert second.get([(NS, "k")]) == {(NS, "k"): "from first"}
    second.clear([NS])
    assert first.get([(NS, "k")]) == {}
