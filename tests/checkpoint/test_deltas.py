"""Append-only channels stored as deltas: every saver reads back exactly what a full copy would.

Runs once per saver kind (see ``conftest.py``). Most tests use a small
fan-out (``K = 4``) so a few dozen versions cross several levels of the
delta chains (see :mod:`engine.checkpoint._delta`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from engine.checkpoint import BaseCheckpointSaver
from engine.serde import Serializer
from tests.checkpoint.test_conformance import async_test, cfg, collect, put
from tests.engine.test_serde import assert_same

K = 4


def message(i: int, text: str = "") -> dict[str, Any]:
    return {"role": "user" if i % 2 == 0 else "assistant", "content": text or f"message {i} " + "x" * 60, "id": f"m{i}"}


async def grow(
    saver: BaseCheckpointSaver, n: int, *, config: dict[str, Any] | None = None, start: list[Any] | None = None,
    first_version: int = 1, prefix: str = "",
) -> list[tuple[dict[str, Any], list[Any], int]]:  # fmt: skip
    """Put ``n`` versions, each appending one message to the last (a new list each time, as reducers do)."""
    config = config or cfg()
    msgs = list(start or [])
    made = []
    for i in range(n):
        msgs = msgs + [message(len(msgs), f"{prefix}{i}" if prefix else "")]
        version = first_version + i
        config, _ = await put(saver, config, {"messages": msgs, "step": version}, {"messages": version, "step": version})
        made.append((config, msgs, version))
    return made


async def assert_reads_back(saver: BaseCheckpointSaver, made: list[tuple[dict[str, Any], list[Any], int]]) -> None:
    for config, want, step in made:
        got = await saver.aget_tuple(config)
        assert got is not None, step
        assert got.checkpoint["channel_values"] == {"messages": want, "step": step}, step


@async_test
async def test_a_long_append_only_history_reads_back_exactly(new_saver: Any, blob_bytes: Any) -> None:
    saver = new_saver(delta_fanout=K)
    made = await grow(saver, 70)  # crosses K, K² and K³ (64)
    await assert_reads_back(saver, made)
    history = await collect(saver, cfg())
    assert [t.checkpoint["channel_values"]["messages"] for t in history] == [m for _, m, _ in reversed(made)]
    assert [t.config for t in history] == [c for c, _, _ in reversed(made)]
    # Linear storage: each message is stored about once per level, not once per version.
    one = len(Serializer().dumps(message(0)))
    assert blob_bytes(saver, "t1") < 5 * 70 * one  # a full copy per version would be ~35 * 70 * one


@async_test
async def test_the_default_fanout_stores_deltas_too(new_saver: Any, blob_bytes: Any) -> None:
    saver = new_saver()
    made = await grow(saver, 40)
    await assert_reads_back(saver, made[::7] + made[-2:])
    assert blob_bytes(saver, "t1") < 4 * 40 * len(Serializer().dumps(message(0)))


@async_test
async def test_a_fork_from_the_middle_of_a_delta_chain(new_saver: Any) -> None:
    saver = new_saver(delta_fanout=K)
    trunk = await grow(saver, 30)
    fork_config, fork_msgs, _ = trunk[17]  # mid-chain: seq 17 is a delta on 16, itself a delta on 12
    read = await saver.aget_tuple(fork_config)  # what the engine does before continuing from it
    assert read is not None and read.checkpoint["channel_values"]["messages"] == fork_msgs
    branch = await grow(saver, 12, config=fork_config, start=fork_msgs, first_version=1000, prefix="branch ")
    trunk_more = await grow(saver, 3, config=trunk[-1][0], start=trunk[-1][1], first_version=31)
    await assert_reads_back(saver, trunk + branch + trunk_more)
    history = await collect(saver, cfg())
    by_id = {t.config["configurable"]["checkpoint_id"]: t for t in history}
    for config, want, step in trunk + branch + trunk_more:
        assert by_id[config["configurable"]["checkpoint_id"]].checkpoint["channel_values"] == {"messages": want, "step": step}
    first_branch = await saver.aget_tuple(branch[0][0])
    assert first_branch is not None and first_branch.parent_config == fork_config


@async_test
async def test_replacing_removing_and_clearing_are_full_writes(new_saver: Any) -> None:
    saver = new_saver(delta_fanout=K)
    a, b, c, d = (message(i) for i in range(4))
    b2 = {**b, "content": "edited"}  # add_messages: same id replaces in place
    values = [[a], [a, b], [a, b, c], [a, b2, c], [a, b2, c, d], [a, c, d], [], [d], [d, a], [d, a, a]]
    config, made = cfg(), []
    for version, msgs in enumerate(values, start=1):
        config, _ = await put(saver, config, {"messages": msgs}, {"messages": version})
        made.append((config, msgs))
    config, _ = await put(saver, config, {}, {"messages": len(values) + 1})  # the channel cleared
    for cfg_, want in made:
        got = await saver.aget_tuple(cfg_)
        assert got is not None and got.checkpoint["channel_values"] == {"messages": want}
    cleared = await saver.aget_tuple(config)
    assert cleared is not None and cleared.checkpoint["channel_values"] == {}
    after = [d, a, a, b]
    config, _ = await put(saver, config, {"messages": after}, {"messages": len(values) + 2})
    got = await saver.aget_tuple(config)
    assert got is not None and got.checkpoint["channel_values"] == {"messages": after}


@async_test
async def test_a_list_changed_in_place_is_stored_as_it_was_at_each_version(new_saver: Any) -> None:
    saver = new_saver(delta_fanout=K)
    items = [1, 2]
    c1, _ = await put(saver, cfg(), {"xs": items}, {"xs": 1})
    items.append(3)  # the same list object, extended in place (a reducer doing left.extend(right))
    c2, _ = await put(saver, c1, {"xs": items}, {"xs": 2})
    items[0] = 9  # and changed in place
    c3, _ = await put(saver, c2, {"xs": items}, {"xs": 3})
    items.append(4)
    c4, _ = await put(saver, c3, {"xs": items}, {"xs": 4})
    for config, want in ((c1, [1, 2]), (c2, [1, 2, 3]), (c3, [9, 2, 3]), (c4, [9, 2, 3, 4])):
        got = await saver.aget_tuple(config)
        assert got is not None and got.checkpoint["channel_values"] == {"xs": want}


@async_test
async def test_equal_but_different_items_are_not_mistaken_for_the_stored_ones(new_saver: Any) -> None:
    saver = new_saver(delta_fanout=K)
    when = datetime(2024, 1, 1, 12, tzinfo=UTC)
    same_instant = when.astimezone(timezone(timedelta(hours=5)))
    first = [1, 2.0, when, (1, 2)]
    second = [True, 2, same_instant, [1, 2], "new"]  # == first item by item, but other types or zones
    c1, _ = await put(saver, cfg(), {"xs": first}, {"xs": 1})
    c2, _ = await put(saver, c1, {"xs": second}, {"xs": 2})
    got1, got2 = await saver.aget_tuple(c1), await saver.aget_tuple(c2)
    assert got1 is not None and got2 is not None
    assert_same(got1.checkpoint["channel_values"]["xs"], first)
    assert_same(got2.checkpoint["channel_values"]["xs"], second)


@async_test
async def test_values_other_than_lists_are_stored_whole(new_saver: Any) -> None:
    saver = new_saver(delta_fanout=K)
    values = [(1,), (1, 2), "ab", "abc", {"a": [1]}, {"a": [1, 2]}, {1}, {1, 2}]
    config, made = cfg(), []
    for version, value in enumerate(values, start=1):
        config, _ = await put(saver, config, {"v": value}, {"v": version})
        made.append((config, value))
    for config, want in made:
        got = await saver.aget_tuple(config)
        assert got is not None
        assert_same(got.checkpoint["channel_values"]["v"], want)


@async_test
async def test_a_put_after_a_read_by_a_fresh_saver_continues_the_chain(new_saver: Any, saver_kind: str) -> None:
    if saver_kind == "memory":
        pytest.skip("two in-memory savers share no storage")
    writer = new_saver(delta_fanout=K)
    made = await grow(writer, 10)
    other = new_saver(delta_fanout=K)  # another process on the same storage: an empty cache
    head = await other.aget_tuple(cfg())
    assert head is not None
    more = await grow(other, 10, config=head.config, start=made[-1][1], first_version=11)
    await assert_reads_back(writer, made + more)
    await assert_reads_back(other, made + more)


@async_test
async def test_a_stale_cache_never_makes_a_delta_on_a_missing_base(new_saver: Any, saver_kind: str) -> None:
    if saver_kind == "memory":
        pytest.skip("two in-memory savers share no storage")
    a = new_saver(delta_fanout=K)
    b = new_saver(delta_fanout=K)
    made = await grow(a, 6)  # a's cache now holds version 6 of "messages"
    await b.adelete_thread("t1")  # another process deletes the thread under it
    fresh = await grow(b, 2, first_version=50)
    config, _ = await put(a, made[-1][0], {"messages": made[-1][1] + [message(99)], "step": 7}, {"messages": 7, "step": 7})
    got = await b.aget_tuple(config)
    assert got is not None and got.checkpoint["channel_values"] == {"messages": made[-1][1] + [message(99)], "step": 7}
    await assert_reads_back(b, fresh)


@async_test
async def test_delete_then_reuse_of_the_same_versions_reads_the_new_values(new_saver: Any) -> None:
    saver = new_saver(delta_fanout=K)
    await grow(saver, 6)
    await saver.adelete_thread("t1")
    made = await grow(saver, 6, prefix="again ")  # the same version numbers, other values
    await assert_reads_back(saver, made)


@async_test
async def test_many_list_channels_and_namespaces_in_one_history(new_saver: Any) -> None:
    saver = new_saver(delta_fanout=K)
    root, sub = cfg(), cfg(ns="sub:1")
    xs: list[int] = []
    ys: list[str] = ["start"]
    ys_version = 1
    made = []
    for v in range(1, 25):
        xs = xs + [v]
        new = ["xs"]
        if v % 3 == 0 or v == 1:  # ys changes every third version, and is replaced at 12
            ys = ["reset"] if v == 12 else ys + [str(v)]
            ys_version = v
            new.append("ys")
        root, _ = await put(saver, root, {"xs": xs, "ys": ys}, {"xs": v, "ys": ys_version}, new=new)
        sub, _ = await put(saver, sub, {"xs": xs[::-1]}, {"xs": v})
        made.append((root, sub, xs, ys))
    for root_cfg, sub_cfg, want_xs, want_ys in made:
        got, got_sub = await saver.aget_tuple(root_cfg), await saver.aget_tuple(sub_cfg)
        assert got is not None and got.checkpoint["channel_values"] == {"xs": want_xs, "ys": want_ys}
        assert got_sub is not None and got_sub.checkpoint["channel_values"] == {"xs": want_xs[::-1]}
    listed = await collect(saver, cfg(ns=None))
    assert len(listed) == 48
    assert [t.checkpoint["channel_values"]["xs"] for t in listed if t.config["configurable"]["checkpoint_ns"] == ""] == [
        m[2] for m in reversed(made)
    ]
