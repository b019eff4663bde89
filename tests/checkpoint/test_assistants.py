"""Assistants (engine/checkpoint/_assistants.py): one contract, kept by memory, SQLite and PostgreSQL alike.

Each test runs on every saver kind (the ``saver`` fixture); the SQL stores use
the saver's own tables (migration 0009 on SQLite, 0010 on PostgreSQL).
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from engine.checkpoint import InMemorySaver
from engine.host import (
    AssistantConflict, AssistantRecord, AssistantSearch, AssistantStore, MemoryAssistants, assistants_of, default_assistant_id,
)  # fmt: skip
from engine.checkpoint._assistants import contains

T0 = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)


def store_of(saver: Any) -> AssistantStore:
    store = assistants_of(saver)
    assert isinstance(store, MemoryAssistants) == isinstance(saver, InMemorySaver)  # a SQL saver carries its own
    return store


def rec(assistant_id: str, graph: str = "chat", *, tenant: str = "", at: datetime = T0, **kw: Any) -> AssistantRecord:
    return AssistantRecord(assistant_id, graph, created_at=at, updated_at=at, tenant=tenant, **kw)


def test_create_get_and_if_exists(saver: Any) -> None:
    store = store_of(saver)

    async def go() -> None:
        made = await store.acreate(rec("a1", name="Bot", description="d", config={"configurable": {"model": "m"}}, context={"u": 1}, metadata={"k": [1, 2]}))
        assert (made.version, made.name, made.config, made.context, made.metadata) == (1, "Bot", {"configurable": {"model": "m"}}, {"u": 1}, {"k": [1, 2]})
        got = await store.aget("", "a1")
        assert got == made and got.created_at == T0  # microseconds and the zone survive
        with pytest.raises(AssistantConflict):
            await store.acreate(rec("a1", name="Other"))
        kept = await store.acreate(rec("a1", name="Other"), if_exists="do_nothing")
        assert kept.name == "Bot"
        assert await store.aget("", "nope") is None

    asyncio.run(go())


def test_each_update_is_a_version_metadata_merged_and_an_older_one_made_current(saver: Any) -> None:
    store = store_of(saver)

    async def go() -> None:
        await store.acreate(rec("a1", config={"configurable": {"model": "small"}}, metadata={"team": "x", "tier": 1}))
        later = T0 + timedelta(seconds=5)
        v2 = await store.aupdate("", "a1", {"config": {"configurable": {"model": "big"}}, "metadata": {"tier": 2}}, later)
        assert v2 is not None and v2.version == 2 and v2.updated_at == later and v2.created_at == T0
        assert v2.metadata == {"team": "x", "tier": 2} and v2.config == {"configurable": {"model": "big"}}
        v3 = await store.aupdate("", "a1", {"name": "Renamed"}, later + timedelta(seconds=1))
        assert v3 is not None and (v3.version, v3.name, v3.config) == (3, "Renamed", {"configurable": {"model": "big"}})
        versions = await store.aversions("", "a1")
        assert [v.version for v in versions] == [3, 2, 1]
        assert [v.version for v in await store.aversions("", "a1", metadata={"tier": 1})] == [1]
        assert [v.version for v in await store.aversions("", "a1", limit=1, offset=1)] == [2]
        back = await store.aset_version("", "a1", 1, later + timedelta(seconds=9))
        assert back is not None and (back.version, back.config, back.name) == (1, {"configurable": {"model": "small"}}, "Untitled")
        current = await store.aget("", "a1")
        assert current is not None and current.version == 1 and current.updated_at == later + timedelta(seconds=9)
        with pytest.raises(KeyError):
            await store.aset_version("", "a1", 7, later)
        assert await store.aupdate("", "missing", {"name": "x"}, later) is None
        assert await store.aset_version("", "missing", 1, later) is None
        v4 = await store.aupdate("", "a1", {"context": {"u": 2}}, later)  # a new version after the chosen one, from it
        assert v4 is not None and (v4.version, v4.config, v4.context) == (4, {"configurable": {"model": "small"}}, {"u": 2})

    asyncio.run(go())


def test_search_count_order_page_and_delete(saver: Any) -> None:
    store = store_of(saver)

    async def go() -> None:
        for i in range(5):
            graph = "chat" if i % 2 == 0 else "mail"
            await store.acreate(rec(f"a{i}", graph, at=T0 + timedelta(seconds=i), name=f"Helper {i}", metadata={"n": i, "tags": ["x", str(i)]}))
        search = AssistantSearch(limit=10)
        assert [r.assistant_id for r in await store.asearch(search)] == ["a4", "a3", "a2", "a1", "a0"]  # newest first
        assert [r.assistant_id for r in await store.asearch(AssistantSearch(sort_by="name", descending=False, limit=2, offset=1))] == ["a1", "a2"]
        assert [r.assistant_id for r in await store.asearch(AssistantSearch(graph="mail"))] == ["a3", "a1"]
        assert [r.assistant_id for r in await store.asearch(AssistantSearch(metadata={"tags": ["3"]}))] == ["a3"]
        assert [r.assistant_id for r in await store.asearch(AssistantSearch(name="helper 2"))] == ["a2"]
        assert await store.acount(AssistantSearch(graph="chat")) == 3
        assert await store.acount(AssistantSearch(metadata={"n": 4}, limit=0)) == 1
        assert await store.adelete("", "a4") is True
        assert await store.adelete("", "a4") is False
        assert await store.aget("", "a4") is None and await store.aversions("", "a4") == []
        assert await store.acount(AssistantSearch()) == 4
        with pytest.raises(ValueError):
            await store.asearch(AssistantSearch(sort_by="metadata; DROP TABLE assistants"))

    asyncio.run(go())


def test_a_tenant_reads_its_own_and_the_shared_ones_and_changes_only_its_own(saver: Any) -> None:
    store = store_of(saver)

    async def go() -> None:
        shared = default_assistant_id("chat")
        await store.acreate(rec(shared, name="chat", metadata={"created_by": "system"}))
        await store.acreate(rec("mine", tenant="acme", name="Acme bot"))
        await store.acreate(rec("mine", tenant="beta", name="Beta bot"))
        acme = await store.aget("acme", "mine")
        assert acme is not None and acme.name == "Acme bot"
        assert (await store.aget("acme", shared)) is not None
        assert await store.aget("", "mine") is None  # no tenant: only the shared ones
        assert sorted(r.name for r in await store.asearch(AssistantSearch(tenant="beta"))) == ["Beta bot", "chat"]
        assert await store.aupdate("beta", shared, {"name": "mine now"}, T0) is None  # a shared one is not the tenant's
        assert await store.adelete("beta", shared) is False
        assert [v.version for v in await store.aversions("beta", shared)] == [1]
        assert await store.adelete("acme", "mine") is True
        assert (await store.aget("beta", "mine")) is not None

    asyncio.run(go())


def test_default_assistant_ids_are_langgraphs() -> None:
    # The Agent Server derives a graph's default assistant id the same way (uuid5 in the URL namespace).
    assert default_assistant_id("agent") == "fe096781-5601-53d2-b2f6-0d3403f7e9ca"


@pytest.mark.parametrize(
    ("doc", "part", "expected"),
    [
        ({"a": 1, "b": {"c": [1, 2]}}, {"b": {"c": [2]}}, True),
        ({"a": 1}, {"a": 1.0}, True),
        ({"a": True}, {"a": 1}, False),
        ({"a": [1, 2]}, {"a": 1}, False),
        ({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}}, False),
        ({"a": None}, {"a": None}, True),
        ({}, {}, True),
    ],
)
def test_contains_is_postgres_containment(doc: Any, part: Any, expected: bool) -> None:
    assert contains(doc, part) is expected
