"""The conformance suite: what every checkpoint saver must do.

Each test runs once per saver kind (see ``conftest.py``). A new saver is done
when this file passes on it unchanged.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import functools
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any, TypeVar
from uuid import UUID

import pytest

import engine.checkpoint
from engine._internal._ids import checkpoint_id, now_iso
from engine.checkpoint import BaseCheckpointSaver, Checkpoint, CheckpointTuple
from engine.checkpoint.base import ERROR, RESUME, PendingWrite
from engine.checkpoint.memory import InMemorySaver
from engine.errors import SerializationError
from engine.serde import Serializer
from engine.types import Interrupt, Send
from tests.engine.test_serde import assert_same

T = TypeVar("T")


def async_test(fn: Callable[..., Awaitable[T]]) -> Callable[..., T]:
    """Run an async test body on a fresh event loop (no plugin needed)."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> T:
        return asyncio.run(fn(*args, **kwargs))  # type: ignore[arg-type]

    return run


def cfg(thread: str = "t1", ns: str | None = "", cid: str | None = None) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": thread}
    if ns is not None:
        conf["checkpoint_ns"] = ns
    if cid is not None:
        conf["checkpoint_id"] = cid
    return {"configurable": conf}


def make_cp(values: dict[str, Any], versions: dict[str, int], **extra: Any) -> Checkpoint:
    return Checkpoint(
        v=1,
        id=checkpoint_id(),
        ts=now_iso(),
        channel_values=dict(values),
        channel_versions=dict(versions),
        versions_seen=extra.get("seen", {}),
        updated_channels=extra.get("updated"),
    )


async def put(
    saver: BaseCheckpointSaver,
    parent: dict[str, Any],
    values: dict[str, Any],
    versions: dict[str, int],
    *,
    new: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], Checkpoint]:
    """Put a checkpoint as a child of ``parent``; ``new`` lists the changed channels (default: all)."""
    cp = make_cp(values, versions)
    new_versions = {k: versions[k] for k in (versions if new is None else new)}
    config = await saver.aput(parent, cp, metadata or {"source": "loop", "step": 0}, new_versions)
    return config, cp


async def collect(saver: BaseCheckpointSaver, config: dict[str, Any] | None, **kw: Any) -> list[CheckpointTuple]:
    return [t async for t in saver.alist(config, **kw)]


def ids(tuples: list[CheckpointTuple]) -> list[str]:
    return [t.checkpoint["id"] for t in tuples]


def test_package_exports_are_pinned() -> None:
    assert sorted(engine.checkpoint.__all__) == sorted(
        ["BaseCheckpointSaver", "Checkpoint", "CheckpointMetadata", "CheckpointTuple",
         "InMemorySaver", "MemorySaver", "SqliteSaver"]
    )  # fmt: skip
    assert engine.checkpoint.MemorySaver is engine.checkpoint.InMemorySaver


# -- put / get -------------------------------------------------------------------------
@async_test
async def test_put_get_round_trip_with_parent_config(saver: BaseCheckpointSaver) -> None:
    c1, cp1 = await put(saver, cfg(), {"a": 1}, {"a": 1}, metadata={"source": "input", "step": -1})
    cp2 = make_cp({"a": 2, "b": "x"}, {"a": 2, "b": 1}, seen={"node": {"a": 1}}, updated=["a", "b"])
    c2 = await saver.aput(c1, cp2, {"source": "loop", "step": 0, "parents": {}}, {"a": 2, "b": 1})

    assert c2 == cfg(cid=cp2["id"])
    got = await saver.aget_tuple(cfg())
    assert got is not None
    assert got.config == c2
    assert got.checkpoint == cp2
    assert got.metadata == {"source": "loop", "step": 0, "parents": {}}
    assert got.parent_config == c1 == cfg(cid=cp1["id"])
    assert got.pending_writes == []
    first = await saver.aget_tuple(c1)
    assert first is not None and first.checkpoint == cp1 and first.parent_config is None


@async_test
async def test_get_named_checkpoint_versus_latest(saver: BaseCheckpointSaver) -> None:
    c1, _ = await put(saver, cfg(), {"a": 1}, {"a": 1})
    c2, _ = await put(saver, c1, {"a": 2}, {"a": 2})
    c3, _ = await put(saver, c2, {"a": 3}, {"a": 3})
    latest = await saver.aget_tuple(cfg())
    named = await saver.aget_tuple(c2)
    assert latest is not None and latest.config == c3 and latest.checkpoint["channel_values"] == {"a": 3}
    assert named is not None and named.config == c2 and named.checkpoint["channel_values"] == {"a": 2}
    assert named.parent_config == c1


@async_test
async def test_unknown_thread_checkpoint_or_namespace_gives_none(saver: BaseCheckpointSaver) -> None:
    await put(saver, cfg(), {"a": 1}, {"a": 1})
    assert await saver.aget_tuple(cfg("nobody")) is None
    assert await saver.aget_tuple(cfg(cid=checkpoint_id())) is None
    assert await saver.aget_tuple(cfg(ns="child")) is None


@async_test
async def test_namespaces_are_separate(saver: BaseCheckpointSaver) -> None:
    root, _ = await put(saver, cfg(), {"a": "root"}, {"a": 1})
    child, _ = await put(saver, cfg(ns="sub:1"), {"a": "child"}, {"a": 1})
    got_root = await saver.aget_tuple(cfg(ns=None))  # no namespace = the root graph's
    got_child = await saver.aget_tuple(cfg(ns="sub:1"))
    assert got_root is not None and got_root.config == root and got_root.checkpoint["channel_values"] == {"a": "root"}
    assert got_child is not None and got_child.config == child
    assert got_child.checkpoint["channel_values"] == {"a": "child"}
    assert set(ids(await collect(saver, cfg(ns=None)))) == {root["configurable"]["checkpoint_id"],
                                                           child["configurable"]["checkpoint_id"]}  # fmt: skip
    assert ids(await collect(saver, cfg(ns="sub:1"))) == [child["configurable"]["checkpoint_id"]]


@async_test
async def test_put_same_checkpoint_twice_stores_it_once(saver: BaseCheckpointSaver) -> None:
    cp = make_cp({"a": 1}, {"a": 1})
    await saver.aput(cfg(), cp, {"source": "input", "step": -1}, {"a": 1})
    await saver.aput(cfg(), cp, {"source": "input", "step": -1}, {"a": 1})
    assert ids(await collect(saver, cfg())) == [cp["id"]]


# -- list --------------------------------------------------------------------------------
@async_test
async def test_list_is_newest_first_with_before_and_limit(saver: BaseCheckpointSaver) -> None:
    config, made = cfg(), []
    for i in range(5):
        config, cp = await put(saver, config, {"i": i}, {"i": i + 1}, metadata={"source": "loop", "step": i})
        made.append(cp["id"])
    listed = await collect(saver, cfg())
    assert ids(listed) == made[::-1]
    assert [t.parent_config for t in listed[:-1]] == [cfg(cid=c) for c in made[-2::-1]]
    assert [t.checkpoint["channel_values"]["i"] for t in listed] == [4, 3, 2, 1, 0]
    assert ids(await collect(saver, cfg(), before=cfg(cid=made[3]))) == made[2::-1]
    assert ids(await collect(saver, cfg(), limit=2)) == made[:2:-1][:2]
    assert ids(await collect(saver, cfg(), before=cfg(cid=made[3]), limit=1)) == [made[2]]
    assert await collect(saver, cfg(), limit=0) == []
    assert ids(await collect(saver, cfg(cid=made[1]))) == [made[1]]


@async_test
async def test_list_without_config_spans_threads(saver: BaseCheckpointSaver) -> None:
    a, _ = await put(saver, cfg("a"), {"x": 1}, {"x": 1})
    b, _ = await put(saver, cfg("b"), {"x": 2}, {"x": 1})
    assert [t.config for t in await collect(saver, None)] == [b, a]
    assert [t.config for t in await collect(saver, cfg("a"))] == [a]


@async_test
async def test_list_filter_by_metadata_exact_equality(saver: BaseCheckpointSaver) -> None:
    c1, cp1 = await put(saver, cfg(), {}, {}, metadata={"source": "input", "step": -1})
    c2, cp2 = await put(saver, c1, {}, {}, metadata={"source": "loop", "step": 0, "who": None})
    _, cp3 = await put(saver, c2, {}, {}, metadata={"source": "loop", "step": 1, "who": "ann", "obj": {}})

    async def found(**filter: Any) -> list[str]:
        return ids(await collect(saver, cfg(), filter=filter))

    assert await found(source="loop") == [cp3["id"], cp2["id"]]
    assert await found(source="loop", step=1) == [cp3["id"]]
    assert await found(source="input", step=1) == []
    assert await found(step=-1) == [cp1["id"]]
    assert await found(step="1") == []  # a string is not a number
    # None matches a null and a missing key, as LangGraph's filters (metadata.get(key) == None); no other value does
    assert await found(who=None) == [cp2["id"], cp1["id"]] and await found(who=None, step=1) == []
    assert await found(who="an") == []  # no prefix or pattern matching
    assert await found(obj="{}") == []  # a string is not an object
    assert await found(obj={}) == [cp3["id"]]
    assert await found(missing=1) == []
    assert ids(await collect(saver, cfg(), filter={"source": "loop"}, limit=1)) == [cp3["id"]]


HOSTILE_KEYS = ["a') OR 1=1--", "' OR '1'='1", "%", "_", "a.b", "[0]", "$", 'q"k', "back\\slash", "é", "x y"]


@async_test
async def test_list_filter_hostile_keys_match_only_exactly(saver: BaseCheckpointSaver) -> None:
    config, by_key = cfg(), {}
    for key in HOSTILE_KEYS:
        config, cp = await put(saver, config, {}, {}, metadata={key: 1})
        by_key[key] = cp["id"]
    _, nested = await put(saver, config, {}, {}, metadata={"a": {"b": 1}, "ab": 1, "xay": 1})
    for key in HOSTILE_KEYS:
        assert ids(await collect(saver, cfg(), filter={key: 1})) == [by_key[key]], key
        assert ids(await collect(saver, cfg(), filter={key: 1}, limit=1)) == [by_key[key]], key
        assert await collect(saver, cfg(), filter={key: 2}) == [], key
    assert ids(await collect(saver, cfg(), filter={"a": {"b": 1}})) == [nested["id"]]
    assert await collect(saver, cfg(), filter={"1=1": 1}) == []
    assert await collect(saver, cfg(), filter={"a') OR 1=1--": 1, "%": 1}) == []
    assert len(await collect(saver, cfg())) == len(HOSTILE_KEYS) + 1  # nothing was deleted


# Strings a careless saver would let reach SQL: quotes, comments, LIKE wildcards,
# JSON-path syntax, backslashes, non-ASCII; and two that no saver can store
# (NUL, a lone surrogate as surrogateescape makes of non-UTF-8 bytes).
HOSTILE_STORABLE = ["') OR 1=1--", "' OR '1'='1", "%", "_", "%%", "a%", "'", '"', "\\", "\\'", "$.a", "a\nb", "é✓"]
HOSTILE_UNSTORABLE = ["\x00", "a\x00b", b"\xff".decode("utf-8", "surrogateescape"), "x\udc80y"]


@async_test
async def test_list_filter_hostile_values_match_exactly_and_never_across_threads(saver: BaseCheckpointSaver) -> None:
    mine: dict[str, str] = {}
    for thread in ("mine", "other"):
        config = cfg(thread)
        for i, text in enumerate(HOSTILE_STORABLE):
            config, cp = await put(saver, config, {}, {}, metadata={text: text, "n": i, "thread": thread})
            if thread == "mine":
                mine[text] = cp["id"]
    for text in HOSTILE_STORABLE:
        assert ids(await collect(saver, cfg("mine"), filter={text: text})) == [mine[text]], text
        assert ids(await collect(saver, cfg("mine"), filter={"n": HOSTILE_STORABLE.index(text), text: text})) == [mine[text]]
        assert await collect(saver, cfg("mine"), filter={text: text + "x"}) == [], text
        assert await collect(saver, cfg("mine"), filter={"n": text}) == [], text
        assert await collect(saver, cfg("mine"), filter={text: text, "thread": "other"}) == [], text
        everywhere = await collect(saver, None, filter={text: text})
        assert sorted(t.config["configurable"]["thread_id"] for t in everywhere) == ["mine", "other"], text
    for bad in HOSTILE_UNSTORABLE:
        assert await collect(saver, cfg("mine"), filter={bad: 1}) == [], repr(bad)
        assert await collect(saver, None, filter={"n": 0, "x": bad}) == [], repr(bad)
        with pytest.raises(SerializationError, match="metadata"):
            await put(saver, cfg("mine"), {}, {}, metadata={bad: 1})
        with pytest.raises(SerializationError, match="metadata"):
            await put(saver, cfg("mine"), {}, {}, metadata={"k": ["ok", {"deep": bad}]})
    assert len(await collect(saver, cfg("mine"))) == len(HOSTILE_STORABLE)  # nothing deleted, nothing added
    assert len(await collect(saver, None)) == 2 * len(HOSTILE_STORABLE)


@async_test
async def test_list_filter_compares_whole_values_not_containment(saver: BaseCheckpointSaver) -> None:
    c1, cp1 = await put(saver, cfg(), {}, {}, metadata={"tags": [1, 2], "obj": {"a": 1, "b": 2}})
    _, cp2 = await put(saver, c1, {}, {}, metadata={"tags": [1], "obj": {"a": 1}})
    assert ids(await collect(saver, cfg(), filter={"tags": [1]})) == [cp2["id"]]
    assert ids(await collect(saver, cfg(), filter={"tags": [1, 2]})) == [cp1["id"]]
    assert await collect(saver, cfg(), filter={"tags": [2, 1]}) == []
    assert ids(await collect(saver, cfg(), filter={"obj": {"a": 1}})) == [cp2["id"]]
    assert ids(await collect(saver, cfg(), filter={"obj": {"b": 2, "a": 1}})) == [cp1["id"]]
    assert await collect(saver, cfg(), filter={"tags": 1}) == []


@async_test
async def test_list_rejects_bad_arguments(saver: BaseCheckpointSaver) -> None:
    with pytest.raises(ValueError, match="limit"):
        await collect(saver, cfg(), limit=-1)
    with pytest.raises(ValueError, match="strings"):
        await collect(saver, cfg(), filter={1: 1})


# -- pending writes --------------------------------------------------------------------------
@async_test
async def test_pending_writes_come_back_in_task_and_index_order(saver: BaseCheckpointSaver) -> None:
    c1, _ = await put(saver, cfg(), {"a": 1}, {"a": 1})
    await saver.aput_writes(c1, [("x", "b0"), ("y", "b1")], task_id="task-b", task_path="~b")
    await saver.aput_writes(c1, [("x", "a0"), ("z", ("a", 1))], task_id="task-a")
    got = await saver.aget_tuple(c1)
    assert got is not None
    assert got.pending_writes == [
        PendingWrite("task-a", "x", "a0"),
        PendingWrite("task-a", "z", ("a", 1)),
        PendingWrite("task-b", "x", "b0"),
        PendingWrite("task-b", "y", "b1"),
    ]
    c2, _ = await put(saver, c1, {"a": 2}, {"a": 2})
    later = await saver.aget_tuple(c2)
    assert later is not None and later.pending_writes == []  # writes belong to one checkpoint
    listed = await collect(saver, cfg(), before=c2)
    assert listed[0].pending_writes == got.pending_writes


@async_test
async def test_put_writes_is_idempotent_and_special_channels_replace(saver: BaseCheckpointSaver) -> None:
    c1, _ = await put(saver, cfg(), {"a": 1}, {"a": 1})
    await saver.aput_writes(c1, [("x", 1), (RESUME, ["first"])], task_id="t")
    await saver.aput_writes(c1, [("x", 2), (RESUME, ["first", "second"])], task_id="t")  # a retry
    await saver.aput_writes(c1, [(ERROR, "boom")], task_id="t")
    await saver.aput_writes(c1, [(ERROR, "boom again")], task_id="t")
    got = await saver.aget_tuple(c1)
    assert got is not None
    assert sorted(got.pending_writes) == sorted([
        PendingWrite("t", "x", 1),  # the first copy of a regular write stays
        PendingWrite("t", RESUME, ["first", "second"]),  # special: replaced
        PendingWrite("t", ERROR, "boom again"),
    ])  # fmt: skip


@async_test
async def test_put_writes_needs_a_checkpoint_id(saver: BaseCheckpointSaver) -> None:
    with pytest.raises(ValueError, match="checkpoint_id"):
        await saver.aput_writes(cfg(), [("x", 1)], task_id="t")


# -- storage per version --------------------------------------------------------------------
@async_test
async def test_unchanged_channels_are_stored_once(saver: BaseCheckpointSaver, blob_count: Any) -> None:
    big = ["message"] * 100
    config, made = cfg(), []
    for step in range(1, 6):
        versions = {"messages": 1, "counter": step}
        config, cp = await put(saver, config, {"messages": big, "counter": {"n": step}}, versions,
                               new=["messages", "counter"] if step == 1 else ["counter"])  # fmt: skip
        made.append(cp)
    assert blob_count(saver, "t1") == 1 + 5  # messages once, counter per step
    for step, cp in enumerate(made, start=1):
        got = await saver.aget_tuple(cfg(cid=cp["id"]))
        assert got is not None and got.checkpoint["channel_values"] == {"messages": big, "counter": {"n": step}}


@async_test
async def test_small_and_cleared_values_live_in_the_checkpoint_row(saver: BaseCheckpointSaver, blob_count: Any) -> None:
    small: list[Any] = [None, True, 0, -(2**63), 2**64 - 1, 1.5, "", "x" * 64]
    config, made = cfg(), []
    for step, value in enumerate(small, start=1):
        values = {"big": ["m"] * 50, "v": value} if step % 2 else {"big": ["m"] * 50, "v": value, "gone": 1}
        versions = {"big": 1, "v": step, "gone": step}
        config, cp = await put(saver, config, values, versions, new=["big", "v", "gone"] if step == 1 else ["v", "gone"])
        made.append((cp, values))
    inline = not isinstance(saver, InMemorySaver)  # the in-memory saver's rows cost no disk: it keeps them
    assert blob_count(saver, "t1") == (1 if inline else 1 + 2 * len(small))  # SQL: only the list, the rest inline
    for cp, values in made:
        got = await saver.aget_tuple(cfg(cid=cp["id"]))
        assert got is not None and got.checkpoint["channel_values"] == values
        assert {k: type(v) for k, v in got.checkpoint["channel_values"].items()} == {k: type(v) for k, v in values.items()}
        assert got.checkpoint["channel_versions"] == cp["channel_versions"]
    listed = [t.checkpoint["channel_values"] async for t in saver.alist(cfg())]
    assert listed == [values for _, values in reversed(made)]
    # Too long, not ASCII, too large: blob rows as before.
    for step, value in enumerate(["x" * 65, "é", 2**64, {"a": 1}], start=len(small) + 1):
        values = {"big": ["m"] * 50, "v": value, "gone": 1}
        config, cp = await put(saver, config, values, {"big": 1, "v": step, "gone": len(small)}, new=["v"])
        got = await saver.aget_tuple(cfg(cid=cp["id"]))
        assert got is not None and got.checkpoint["channel_values"] == values
    assert blob_count(saver, "t1") == (1 if inline else 1 + 2 * len(small)) + 4


@async_test
async def test_channel_missing_from_values_reads_back_absent(saver: BaseCheckpointSaver) -> None:
    c1, _ = await put(saver, cfg(), {"a": 1, "tmp": "x"}, {"a": 1, "tmp": 1})
    c2, _ = await put(saver, c1, {"a": 1}, {"a": 1, "tmp": 2}, new=["tmp"])  # tmp cleared
    second, first = await saver.aget_tuple(c2), await saver.aget_tuple(c1)
    assert second is not None and second.checkpoint["channel_values"] == {"a": 1}
    assert second.checkpoint["channel_versions"] == {"a": 1, "tmp": 2}
    assert first is not None and first.checkpoint["channel_values"] == {"a": 1, "tmp": "x"}


@async_test
async def test_branches_from_one_parent_keep_their_own_values(saver: BaseCheckpointSaver) -> None:
    v1 = saver.get_next_version(None)
    parent, _ = await put(saver, cfg(), {"x": "base"}, {"x": v1})
    branches = []
    for value in ("left", "right"):
        v2 = saver.get_next_version(v1)
        assert v2 > v1
        branches.append(await put(saver, parent, {"x": value}, {"x": v2}))
    for (config, _), value in zip(branches, ("left", "right")):
        got = await saver.aget_tuple(config)
        assert got is not None and got.checkpoint["channel_values"] == {"x": value}
        assert got.parent_config == parent


# -- a chain in one call (aput_many) -------------------------------------------------------
def chain_of_puts(
    thread: str, parent: dict[str, Any], steps: int, *, start: int = 0
) -> list[tuple[dict[str, Any], Checkpoint, dict[str, Any], dict[str, int]]]:
    """``steps`` versions of a chat, each the child of the one before: ``messages``
    grows by one item a step, ``counter`` changes, ``system`` never does."""
    puts, config = [], parent
    for step in range(start, start + steps):
        messages = [f"message {i}" for i in range(step + 1)]
        versions = {"system": 1, "messages": step + 1, "counter": step + 1}
        cp = make_cp({"system": "be brief", "messages": messages, "counter": step}, versions)
        new = versions if step == 0 else {"messages": step + 1, "counter": step + 1}
        puts.append((config, cp, {"source": "loop", "step": step}, new))
        config = {"configurable": {"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": cp["id"]}}
    return puts


@async_test
async def test_put_many_stores_what_puts_one_by_one_store(saver: BaseCheckpointSaver, blob_count: Any, blob_bytes: Any) -> None:
    one_by_one = chain_of_puts("single", cfg("single"), 12)
    for put_args in one_by_one:
        await saver.aput(*put_args)
    batched = chain_of_puts("batched", cfg("batched"), 12)
    configs = await saver.aput_many(batched[:1])
    configs += await saver.aput_many(batched[1:7])
    configs += await saver.aput_many(batched[7:])
    assert [c["configurable"]["checkpoint_id"] for c in configs] == [cp["id"] for _, cp, _, _ in batched]
    for (_, want, _, _), (_, got_cp, _, _) in zip(one_by_one, batched):
        got = await saver.aget_tuple(cfg("batched", cid=got_cp["id"]))
        assert got is not None and got.checkpoint["channel_values"] == want["channel_values"]
    listed = await collect(saver, cfg("batched"))
    assert ids(listed) == [cp["id"] for _, cp, _, _ in reversed(batched)]
    assert [t.parent_config["configurable"]["checkpoint_id"] if t.parent_config else None for t in listed] == [
        cp["id"] for _, cp, _, _ in reversed(batched[:-1])
    ] + [None]
    assert blob_count(saver, "batched") == blob_count(saver, "single")  # "system" once; deltas alike
    assert blob_bytes(saver, "batched") == blob_bytes(saver, "single")


@async_test
async def test_put_many_refuses_what_is_not_one_chain_and_stores_nothing(saver: BaseCheckpointSaver) -> None:
    good = chain_of_puts("t1", cfg(), 3)
    broken = [good[0], good[2]]  # the second's parent is not the first
    other_thread = [good[0], ({"configurable": {**good[1][0]["configurable"], "thread_id": "t2"}}, *good[1][1:])]
    for puts in (broken, other_thread):
        with pytest.raises(ValueError, match="one chain"):
            await saver.aput_many(puts)
        assert await collect(saver, None) == []


# -- delete ---------------------------------------------------------------------------------
@async_test
async def test_delete_thread_removes_only_that_thread(saver: BaseCheckpointSaver, blob_count: Any) -> None:
    for thread in ("gone", "kept"):
        c1, _ = await put(saver, cfg(thread), {"a": thread}, {"a": 1})
        await put(saver, cfg(thread, ns="sub"), {"a": thread}, {"a": 1})
        await saver.aput_writes(c1, [("x", thread)], task_id="t")
    await saver.adelete_thread("gone")
    assert await saver.aget_tuple(cfg("gone")) is None
    assert await collect(saver, cfg("gone", ns=None)) == []
    assert blob_count(saver, "gone") == 0
    kept = await saver.aget_tuple(cfg("kept"))
    assert kept is not None and kept.checkpoint["channel_values"] == {"a": "kept"}
    assert kept.pending_writes == [PendingWrite("t", "x", "kept")]
    assert len(await collect(saver, cfg("kept", ns=None))) == 2
    await saver.adelete_thread("never-existed")  # not an error


# -- the sync face ----------------------------------------------------------------------------
def test_sync_face(saver: BaseCheckpointSaver) -> None:
    cp = make_cp({"a": (1, 2)}, {"a": 1})
    config = saver.put(cfg(), cp, {"source": "input", "step": -1}, {"a": 1})
    saver.put_writes(config, [("a", 3)], task_id="t")
    got = saver.get_tuple(cfg())
    assert got is not None and got.checkpoint == cp and got.pending_writes == [PendingWrite("t", "a", 3)]
    assert [t.config for t in saver.list(cfg(), filter={"step": -1})] == [config]
    saver.delete_thread("t1")
    assert saver.get_tuple(cfg()) is None


@async_test
async def test_sync_face_inside_a_running_event_loop(saver: BaseCheckpointSaver) -> None:
    cp = make_cp({"a": 1}, {"a": 1})
    config = saver.put(cfg(), cp, {"source": "input", "step": -1}, {"a": 1})
    got = saver.get_tuple(config)
    assert got is not None and got.checkpoint == cp
    assert [t.config for t in saver.list(cfg())] == [config]
    assert (await saver.aget_tuple(cfg())) is not None  # the async face still works on this loop


# -- values -----------------------------------------------------------------------------------
class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1


@dataclasses.dataclass(frozen=True)
class Note:
    text: str
    tags: tuple[str, ...] = ()


def every_allowed_value() -> dict[str, Any]:
    return {
        "none": None, "bool": True, "int": -7, "big": 2**200, "float": 1.5, "str": "héllo\ud800", "bytes": b"\x00\xff",
        "list": [1, [2]], "tuple": (1, (2, [3])), "dict": {1: "a", (2, 3): "b", "k": {"n": None}},
        "set": {1, "a"}, "frozenset": frozenset({(1, 2)}), "nested_set": {"s": {frozenset({1})}},
        "datetime": datetime(2024, 5, 6, 7, 8, 9, 123456), "aware": datetime(2024, 5, 6, tzinfo=timezone(timedelta(hours=-3))),
        "date": date(2024, 2, 29), "time": time(23, 59, 1, tzinfo=UTC), "delta": timedelta(days=-1, seconds=5),
        "uuid": UUID("12345678-1234-5678-1234-567812345678"), "decimal": Decimal("1.50"),
        "enum": Color.BLUE, "intenum": Level.LOW, "dataclass": Note("hi", ("a",)),
        "interrupt": Interrupt(value={"ask": "ok?"}, id="i1"), "send": Send("node", {"arg": 1}),
    }  # fmt: skip


@async_test
async def test_every_allowlisted_type_round_trips(new_saver: Any) -> None:
    saver = new_saver(Serializer(types=[Color, Level, Note]))
    values = every_allowed_value()
    c1, _ = await put(saver, cfg(), values, {k: 1 for k in values})
    await saver.aput_writes(c1, list(values.items()), task_id="t")
    got = await saver.aget_tuple(c1)
    assert got is not None
    assert_same(got.checkpoint["channel_values"], values)
    assert [w.channel for w in got.pending_writes] == list(values)
    for write in got.pending_writes:
        assert_same(write.value, values[write.channel])


@async_test
async def test_unstorable_value_fails_the_put_and_stores_nothing(saver: BaseCheckpointSaver, blob_count: Any) -> None:
    class Foo:
        pass

    c1, _ = await put(saver, cfg(), {"ok": [1]}, {"ok": 1})  # a list: a blob row (1 would be inline)
    with pytest.raises(SerializationError, match=r"state key 'bad' at \[0\]\['x'\]: .*type Foo"):
        await put(saver, c1, {"ok": 2, "bad": [{"x": Foo()}]}, {"ok": 2, "bad": 1})
    with pytest.raises(SerializationError, match="write of task 't' to channel 'bad'.*Foo"):
        await saver.aput_writes(c1, [("ok", 1), ("bad", Foo())], task_id="t")
    with pytest.raises(SerializationError, match="metadata"):
        await put(saver, c1, {"ok": 3}, {"ok": 3}, metadata={"when": datetime(2024, 1, 1)})
    assert ids(await collect(saver, cfg())) == [c1["configurable"]["checkpoint_id"]]
    assert blob_count(saver, "t1") == 1
    got = await saver.aget_tuple(cfg())
    assert got is not None and got.pending_writes == []


@async_test
async def test_metadata_is_json_data(saver: BaseCheckpointSaver) -> None:
    metadata = {"source": "update", "step": 3, "parents": {"": "abc"}, "note": "naïve ✓", "pair": (1, 2), "f": 0.5}
    c1, _ = await put(saver, cfg(), {}, {}, metadata=metadata)
    got = await saver.aget_tuple(c1)
    assert got is not None
    assert got.metadata == {**metadata, "pair": [1, 2]}  # JSON: tuples come back as lists
    assert ids(await collect(saver, cfg(), filter={"pair": (1, 2)})) == [c1["configurable"]["checkpoint_id"]]
