"""Retention: ``delete_thread`` and ``prune``, on every saver, delta chains included."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine._internal._ids import checkpoint_id
from engine.checkpoint import BaseCheckpointSaver, Checkpoint
from engine.checkpoint.base import PendingWrite
from tests.checkpoint.test_conformance import async_test, cfg, collect, ids
from tests.checkpoint.test_deltas import K, assert_reads_back, grow, message


def cp_at(values: dict[str, Any], versions: dict[str, int], ts: datetime) -> Checkpoint:
    return Checkpoint(v=1, id=checkpoint_id(), ts=ts.isoformat(), channel_values=values, channel_versions=versions,
                      versions_seen={}, updated_channels=None)  # fmt: skip


@async_test
async def test_prune_keep_last_keeps_the_newest_whole(new_saver: Any, blob_count: Any) -> None:
    saver = new_saver(delta_fanout=K)
    made = await grow(saver, 50)
    for config, _, step in made:
        await saver.aput_writes(config, [("w", step)], task_id="t")
    before = blob_count(saver, "t1")
    assert await saver.aprune("t1", keep_last=5) == 45
    kept = made[-5:]
    assert ids(await collect(saver, cfg())) == [c["configurable"]["checkpoint_id"] for c, _, _ in reversed(kept)]
    await assert_reads_back(saver, kept)  # delta chains of kept versions survive
    for config, _, step in kept:
        got = await saver.aget_tuple(config)
        assert got is not None and got.pending_writes == [PendingWrite("t", "w", step)]
    for config, _, _ in made[:-5]:
        assert await saver.aget_tuple(config) is None
    assert blob_count(saver, "t1") < before
    # The thread goes on after a prune, deltas and all.
    more = await grow(saver, 12, config=kept[-1][0], start=kept[-1][1], first_version=51)
    await assert_reads_back(saver, kept + more)
    assert await saver.aprune("t1", keep_last=3) == 14
    await assert_reads_back(saver, more[-3:])


@async_test
async def test_prune_frees_values_no_kept_version_needs(new_saver: Any, blob_count: Any) -> None:
    saver = new_saver(delta_fanout=K)
    config = cfg()
    for v in range(1, 21):  # a dict channel: one blob per version, no chains (an int would be inline)
        config, _ = await _put(saver, config, {"n": {"v": v}}, {"n": v})
    assert blob_count(saver, "t1") == 20
    assert await saver.aprune("t1", keep_last=2) == 18
    assert blob_count(saver, "t1") == 2


@async_test
async def test_prune_older_than_keeps_recent_ones_and_always_the_newest(new_saver: Any) -> None:
    saver = new_saver(delta_fanout=K)
    now = datetime.now(UTC)
    config, made = cfg(), []
    ages = [timedelta(days=d) for d in (30, 20, 10, 2, 1)] + [timedelta(hours=1)]
    msgs: list[Any] = []
    for v, age in enumerate(ages, start=1):
        msgs = msgs + [message(v)]
        cp = cp_at({"messages": msgs}, {"messages": v}, now - age)
        config = await saver.aput(config, cp, {"source": "loop", "step": v}, {"messages": v})
        made.append((config, msgs))
    assert await saver.aprune("t1", older_than=timedelta(days=5)) == 3
    assert ids(await collect(saver, cfg())) == [c["configurable"]["checkpoint_id"] for c, _ in reversed(made[3:])]
    for config, want in made[3:]:
        got = await saver.aget_tuple(config)
        assert got is not None and got.checkpoint["channel_values"] == {"messages": want}
    # Everything is older than zero seconds, but the newest stays: prune removes history, not the thread.
    assert await saver.aprune("t1", older_than=timedelta(0)) == 2
    assert ids(await collect(saver, cfg())) == [made[-1][0]["configurable"]["checkpoint_id"]]
    got = await saver.aget_tuple(cfg())
    assert got is not None and got.checkpoint["channel_values"] == {"messages": made[-1][1]}


@async_test
async def test_prune_with_both_rules_deletes_only_what_both_let_go(new_saver: Any) -> None:
    saver = new_saver()
    now = datetime.now(UTC)
    config, made = cfg(), []
    for v, days in enumerate((9, 8, 7, 1, 0), start=1):
        config = await saver.aput(config, cp_at({"n": v}, {"n": v}, now - timedelta(days=days)), {}, {"n": v})
        made.append(config["configurable"]["checkpoint_id"])
    # keep_last=1 alone would keep 1; older_than=3 days alone would keep 2: together they keep 2.
    assert await saver.aprune("t1", keep_last=1, older_than=timedelta(days=3)) == 3
    assert ids(await collect(saver, cfg())) == made[:2:-1]


@async_test
async def test_prune_is_per_namespace_and_per_thread(new_saver: Any) -> None:
    saver = new_saver(delta_fanout=K)
    root = await grow(saver, 6)
    sub = await grow(saver, 6, config=cfg(ns="sub:1"), first_version=1)
    other = await grow(saver, 6, config=cfg("t2"), first_version=1)
    assert await saver.aprune("t1", keep_last=2) == 8
    assert len(await collect(saver, cfg(ns=None))) == 4
    await assert_reads_back(saver, root[-2:] + sub[-2:] + other)
    assert len(await collect(saver, cfg("t2"))) == 6


@async_test
async def test_prune_rejects_bad_arguments_and_ignores_unknown_threads(saver: BaseCheckpointSaver) -> None:
    with pytest.raises(ValueError, match='strategy "keep_latest" or "delete" alone'):
        await saver.aprune("t1", strategy="keep_all")
    with pytest.raises(ValueError, match='strategy "keep_latest" or "delete" alone'):
        await saver.aprune("t1", strategy="delete", keep_last=2)
    with pytest.raises(ValueError, match="keep_last"):
        await saver.aprune("t1", keep_last=0)
    with pytest.raises(ValueError, match="older_than"):
        await saver.aprune("t1", older_than=timedelta(seconds=-1))
    assert await saver.aprune("nobody", keep_last=1) == 0
    assert saver.prune("nobody", older_than=timedelta(days=1)) == 0  # the sync face


@async_test
async def test_prune_takes_langgraphs_threads_and_strategies(saver: BaseCheckpointSaver) -> None:
    """LangGraph's ``prune(thread_ids, strategy=)``: "keep_latest" (its default) keeps each namespace's
    newest version, "delete" removes the threads; other threads stay (issue 31 item 2)."""
    for thread in ("t1", "t2", "t3"):
        await grow(saver, 4, config=cfg(thread))
        await grow(saver, 3, config=cfg(thread, ns="child:1"))
    await saver.aprune(["t1"])  # LangGraph's default strategy
    assert len(await collect(saver, cfg("t1", ns=None))) == 2
    saver.prune(["t2"], strategy="delete")  # the sync face
    assert await collect(saver, cfg("t2", ns=None)) == []
    assert len(await collect(saver, cfg("t3", ns=None))) == 7


@async_test
async def test_delete_thread_removes_delta_chains_and_the_thread_can_start_again(
    new_saver: Any, blob_count: Any
) -> None:
    saver = new_saver(delta_fanout=K)
    await grow(saver, 20)
    kept = await grow(saver, 5, config=cfg("t2"))
    await saver.adelete_thread("t1")
    assert blob_count(saver, "t1") == 0
    assert await collect(saver, cfg()) == []
    again = await grow(saver, 7, prefix="new ")
    await assert_reads_back(saver, again + kept)


async def _put(saver: BaseCheckpointSaver, parent: dict[str, Any], values: dict[str, Any], versions: dict[str, int]) -> Any:
    cp = cp_at(values, versions, datetime.now(UTC))
    return await saver.aput(parent, cp, {"source": "loop"}, versions), cp


@async_test
async def test_a_listing_that_meets_a_prune_skips_what_prune_deleted(new_saver: Any) -> None:
    # A history listing reads its pages as it goes. One page in, a prune deletes
    # the versions the next pages would show: they are gone, so the listing
    # ends, rather than showing them without their values or failing.
    saver = new_saver(delta_fanout=K)
    made = await grow(saver, 30)
    newest_first = list(reversed(made))
    listing = saver.alist(cfg()).__aiter__()
    first = await anext(listing)
    assert first.checkpoint["id"] == newest_first[0][0]["configurable"]["checkpoint_id"]
    assert await saver.aprune("t1", keep_last=2) == 28
    rest = [t async for t in listing]
    got = [first, *rest]
    # Whatever the listing still shows was read whole; it is a prefix of the history.
    assert ids(got) == [c["configurable"]["checkpoint_id"] for c, _, _ in newest_first[: len(got)]]
    for t, (_, msgs, step) in zip(got, newest_first):
        assert t.checkpoint["channel_values"] == {"messages": msgs, "step": step}
    assert len(got) < len(made)  # the deleted versions' pages were not shown


@async_test
async def test_deleting_a_runs_versions_leaves_the_thread_at_its_newest_left(saver: BaseCheckpointSaver) -> None:
    """A host rolling a cancelled run back (or deleting a run) deletes its versions, the newest among them:
    the thread then stands on the newest version left, on every saver (the in-memory one read none)."""
    from engine.checkpoint.base import RUN_KEY
    from tests.checkpoint.test_conformance import put

    first, kept = await put(saver, cfg(), {"n": 1}, {"n": 1}, metadata={"source": "loop", "step": 0, RUN_KEY: "r1"})
    second, _ = await put(saver, first, {"n": 2}, {"n": 2}, metadata={"source": "loop", "step": 1, RUN_KEY: "r2"})
    await put(saver, second, {"n": 3}, {"n": 3}, metadata={"source": "loop", "step": 2, RUN_KEY: "r2"})
    assert await saver.adelete_run_versions("t1", "r2") == 2
    head = await saver.aget_tuple(cfg())
    assert head is not None and head.checkpoint["id"] == kept["id"] and head.checkpoint["channel_values"] == {"n": 1}
    assert await saver.adelete_run_versions("t1", "r1") == 1
    assert await saver.aget_tuple(cfg()) is None
