"""The delta planner and replay on their own: plain data in, plain data out (no saver)."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine.checkpoint._chain import ChainReader, base_seq, uncompressed
from engine.checkpoint._delta import DeltaCache
from engine.checkpoint._retention import blobs_to_keep, checkpoints_to_prune
from engine.errors import CorruptCheckpointError
from engine.serde import Serializer

SERDE = Serializer()


def simulate(n: int, fanout: int) -> tuple[int, int]:
    """Write ``n`` versions of a list growing by one item; return (longest replay, items stored)."""
    cache = DeltaCache(fanout=fanout)
    value: list[int] = []
    longest = stored = 0
    for version in range(1, n + 1):
        value = value + [version]
        plan = cache.plan(SERDE, "t", "", {"xs": value}, {"xs": version})
        cache.commit("t", "", plan)
        known = plan.learned["xs"]
        longest = max(longest, 0 if known is None else len(known.chain) - 1)
        stored += len(SERDE.loads_typed(uncompressed(plan.rows[0].type, plan.rows[0].data)))
    return longest, stored


@pytest.mark.parametrize("fanout", [2, 4, 32])
def test_base_seq_always_lies_on_the_previous_versions_chain(fanout: int) -> None:
    def chain(seq: int) -> list[int]:
        out = [seq]
        while out[-1]:
            out.append(base_seq(out[-1], fanout))
        return out

    for seq in range(1, 3000):
        assert base_seq(seq, fanout) in chain(seq - 1), seq
        assert 0 <= base_seq(seq, fanout) < seq


@pytest.mark.parametrize(("fanout", "n"), [(4, 300), (32, 1100)])
def test_replays_are_bounded_per_level_and_storage_is_n_log_n(fanout: int, n: int) -> None:
    longest, stored = simulate(n, fanout)
    levels = math.ceil(math.log(n + 1, fanout))
    assert longest <= (fanout - 1) * levels
    assert stored <= n * (levels + 1)  # each item once per level (a full copy per version: n²/2)


def test_at_the_default_fanout_a_chat_of_400_versions_replays_at_most_31_per_level() -> None:
    longest, stored = simulate(400, 32)
    assert longest <= 31 + 12  # 400 = 12·32 + 16: 16 level-0 and 12 level-1 deltas at most
    assert stored < 2 * 400 + 32


def test_no_fanout_means_full_values() -> None:
    longest, stored = simulate(50, 0)
    assert longest == 0 and stored == 50 * 51 // 2
    with pytest.raises(ValueError, match="fan-out"):
        DeltaCache(fanout=1)


def test_the_cache_is_bounded_by_threads_lru() -> None:
    cache = DeltaCache(fanout=4, max_threads=2)
    for thread in ("a", "b", "a", "c"):  # "b" is the least recently used when "c" arrives
        plan = cache.plan(SERDE, thread, "", {"xs": [1]}, {"xs": 1})
        cache.commit(thread, "", plan)
    assert cache._get("a", "", "xs") is not None and cache._get("c", "", "xs") is not None
    assert cache._get("b", "", "xs") is None


def test_a_miss_writes_full_and_a_hit_writes_only_the_appended_items() -> None:
    cache = DeltaCache(fanout=4)
    plan = cache.plan(SERDE, "t", "", {"xs": [1, 2]}, {"xs": 1})
    assert plan.rows[0].base is None
    cache.commit("t", "", plan)
    plan = cache.plan(SERDE, "t", "", {"xs": [1, 2, 3]}, {"xs": 2})
    assert plan.rows[0].base == 1 and SERDE.loads_typed((plan.rows[0].type, plan.rows[0].data)) == [3]
    cache.commit("t", "", plan, inserted=[])  # the row already existed: the cache must not claim it
    assert cache._get("t", "", "xs").version == 1  # type: ignore[union-attr]


def test_reader_rebuilds_and_reports_broken_chains() -> None:
    reader = ChainReader(SERDE)
    reader.add("xs", 1, *SERDE.dumps_typed([1, 2]), None, 0)
    reader.add("xs", 2, *SERDE.dumps_typed([3]), 1, 1)
    reader.add("xs", 4, *SERDE.dumps_typed([5]), 3, 3)  # base 3 was never stored
    assert reader.values({"xs": 2}) == {"xs": [1, 2, 3]}
    with pytest.raises(CorruptCheckpointError, match="'xs' version 9: no row holds its value"):
        reader.values({"xs": 9})  # a version names a value no row holds: not "no value"
    with pytest.raises(CorruptCheckpointError, match="needs version 3"):
        reader.values({"xs": 4})
    reader.add("ys", 1, *SERDE.dumps_typed([0]), None, 0)
    reader.add("ys", 2, *SERDE.dumps_typed("text"), 1, 1)  # rows are decoded when a value needs them
    with pytest.raises(CorruptCheckpointError, match="ys.*version 2.*not a list"):
        reader.values({"ys": 2})


def test_checkpoints_to_prune_keeps_newest_per_namespace() -> None:
    now = datetime(2024, 6, 1, tzinfo=UTC)
    rows = [("", f"id{i}", (now - timedelta(days=10 - i)).isoformat()) for i in range(10)]
    rows += [("sub", "only", (now - timedelta(days=99)).isoformat())]
    kept, deleted = checkpoints_to_prune(rows, keep_last=3, older_than=None, now=now)
    assert kept == {("", "id9"), ("", "id8"), ("", "id7"), ("sub", "only")}
    assert len(deleted) == 7
    kept, _ = checkpoints_to_prune(rows, keep_last=None, older_than=timedelta(days=2, hours=1), now=now)
    assert kept == {("", "id9"), ("", "id8"), ("sub", "only")}


def test_blobs_to_keep_follows_delta_chains() -> None:
    bases = {("", "xs", 1): None, ("", "xs", 2): 1, ("", "xs", 3): 2, ("", "xs", 4): 3, ("", "n", 4): None}
    assert blobs_to_keep([("", "xs", 3)], bases) == {("", "xs", 1), ("", "xs", 2), ("", "xs", 3)}
    assert blobs_to_keep([("", "n", 4), ("", "gone", 1)], bases) == {("", "n", 4)}


def test_base_seq_refuses_a_position_with_no_base() -> None:
    # seq 0 would divide by every span: the loop that used to run forever on a crafted seq of -1.
    with pytest.raises(ValueError, match=">= 1"):
        base_seq(0, 32)


@pytest.mark.parametrize(
    ("base", "seq", "why"),
    [(None, -1, "full value with seq -1"), (1, 0, "delta with seq 0"), (5, 1, "loops"), (1, 2**31, "seq 1..")],
)
def test_a_stored_row_out_of_range_fails_the_read_that_needs_it(base: int | None, seq: int, why: str) -> None:
    reader = ChainReader(SERDE)
    tag, data = SERDE.dumps_typed([1])
    reader.add("xs", 1, tag, data, None, 0)
    reader.add("xs", 3, tag, data, 1, 1)
    reader.add("xs", 5, tag, data, base, seq)  # base 5: itself
    with pytest.raises(CorruptCheckpointError, match=why):
        reader.values({"xs": 5})
    assert reader.values({"xs": 1}) == {"xs": [1]}  # the other rows still read


def test_inline_entries_are_those_a_walk_of_every_channel_gives() -> None:
    """The put that extends the last stored version (its fast path) and a cold cache both give every
    channel's inline entry: a small value's, or a cleared channel's (the cold one by an EMPTY row instead)."""
    rng = random.Random(5)
    cache = DeltaCache(fanout=4)
    versions: dict[str, int] = {}
    values: dict[str, Any] = {}
    cleared: set[tuple[str, int]] = set()
    for step in range(1, 150):
        new: dict[str, int] = {}
        for ch in rng.sample([f"c{i}" for i in range(12)], 3):  # channels appear as they are first written
            version = versions[ch] = new[ch] = step * 100 + int(ch[1:])
            kind = rng.random()
            if kind < 0.3:
                values.pop(ch, None)
                cleared.add((ch, version))
            else:
                values[ch] = rng.choice([None, 1, True, "x", 2.5]) if kind < 0.7 else [step]
        plan = cache.plan(SERDE, "t", "", dict(values), new, dict(versions))
        cache.commit("t", "", plan)
        want: dict[str, list[Any]] = {}
        for pos, (ch, version) in enumerate(versions.items()):
            if ch in values and type(values[ch]) is not list:
                want[ch] = [pos, version, values[ch]]
            elif ch not in values and (ch, version) in cleared:
                want[ch] = [pos, version]
        assert repr(sorted(plan.inline.items())) == repr(sorted(want.items()))  # repr: True is not 1
        assert all(r.channel in new and type(values[r.channel]) is list for r in plan.rows)
        cold = DeltaCache(fanout=4).plan(SERDE, "t", "", dict(values), new, dict(versions))
        assert repr(sorted(cold.inline.items())) == repr(sorted((ch, e) for ch, e in want.items() if ch in values or ch in new))
        assert {r.channel for r in cold.rows if r.type == "empty"} == {ch for ch in want if ch not in values and ch not in new}
