"""What the SQL savers store of a checkpoint row, smaller: its meta under one-letter keys
(_meta_form.py), the run that wrote it in a column, its time as an offset from its id's (_ts.py).

Each must read back exactly as given, refuse hostile rows as the old form would, and
read rows stored before it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from engine.checkpoint._helpers import dump_meta, load_meta
from engine.checkpoint._meta_form import pack, unpack
from engine.checkpoint._ts import _micros_of, read_ts, stored_ts
from engine.checkpoint.base import RUN_KEY, BaseCheckpointSaver
from engine.checkpoint.memory import InMemorySaver
from engine.errors import CorruptCheckpointError
from engine.serde import Serializer
from tests.checkpoint.test_compact_rows import _rows
from tests.checkpoint.test_conformance import async_test, cfg, make_cp, put

V1, V2, V3 = (7 << 32) | 123456789, (8 << 32) | 987654321, 3

META: dict[str, Any] = {
    "v": 4,
    "versions_seen": {"__input__": {}, "model": {"branch:to:model": V1, "messages": V2}, "post": {"branch:to:model": V1}},
    "updated_channels": ["messages", "branch:to:post"],
    "inline": {"branch:to:post": [1, V3, None], "__start__": [2, V1], "turns": [3, V2, 41], "flag": [4, V3, True],
               "ratio": [5, V3, 0.5], "word": [6, V1, "done"]},  # fmt: skip
    "channel_versions": {"messages": V2},
}


def _checkpoint(meta: dict[str, Any]) -> Any:
    return {"v": meta["v"], "versions_seen": meta["versions_seen"], "updated_channels": meta["updated_channels"]}


def test_the_short_form_gives_back_the_map_it_was_made_from() -> None:
    form = pack(META)
    assert set(form) == {"v", "s", "u", "i", "c"}
    assert unpack(form) == META and unpack(META) == META  # a map under the long keys reads as it is


def test_a_saver_reads_the_short_form_and_the_map_stored_before_it_alike() -> None:
    serde = Serializer()
    inline = META["inline"]
    short = dump_meta(serde, _checkpoint(META), versions={"messages": V2}, inline=inline, compact=True)
    old = serde.dumps_typed(META)  # how a meta was stored before
    assert "s" in serde.loads_typed(short) and len(short[1]) <= len(old[1]) - 40
    assert load_meta(serde, "c", short) == load_meta(serde, "c", old)
    # A saver keeping the versions in a column passes them back.
    column = dump_meta(serde, _checkpoint(META), inline=inline, compact=True)
    assert load_meta(serde, "c", column, {"messages": V2}) == load_meta(serde, "c", old)


@pytest.mark.parametrize(
    "odd",
    [
        {"versions_seen": {"model": {1: 2}}},
        {"versions_seen": {"model": [1, 2]}},
        {"updated_channels": ("messages", 1)},
        {"inline": {"turns": [1, V1, 2, 3]}},
    ],
)
def test_a_hostile_short_form_is_refused_as_its_map_would_be(odd: dict[str, Any]) -> None:
    serde = Serializer()
    meta = {**META, **odd}
    with pytest.raises(CorruptCheckpointError) as want:
        load_meta(serde, "c", serde.dumps_typed(meta))
    with pytest.raises(CorruptCheckpointError) as got:
        load_meta(serde, "c", serde.dumps_typed(pack(meta)))
    assert str(got.value) == str(want.value)
    with pytest.raises(CorruptCheckpointError, match="under both its names"):
        load_meta(serde, "c", serde.dumps_typed({**pack(META), "versions_seen": {}}))


@async_test
async def test_sql_savers_store_the_short_form(saver: BaseCheckpointSaver) -> None:
    c1, _ = await put(saver, cfg(), {"a": [1], "n": 3}, {"a": 1, "n": 1})
    c2, cp = await put(saver, c1, {"a": [1, 2], "n": 4}, {"a": 2, "n": 2})
    got = await saver.aget_tuple(c2)
    assert got is not None and got.checkpoint["channel_values"] == {"a": [1, 2], "n": 4}
    assert got.checkpoint["channel_versions"] == cp["channel_versions"]
    if isinstance(saver, InMemorySaver):
        return
    for tag, data in _rows(saver, "checkpoints", "type, checkpoint"):
        assert "s" in saver.serde.loads_typed((tag, bytes(data)))


RUN = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"


@async_test
async def test_the_run_that_wrote_a_version_is_a_column_read_back_into_its_metadata(saver: BaseCheckpointSaver) -> None:
    """SQL savers keep a UUID run id in a column of its own (PostgreSQL 0014, SQLite 0013): reads, filters
    and copies see it in the metadata as before; a run id that is not a UUID's text stays in the metadata."""
    saver.keeps_run_ids = True  # a host's saver: reads show the run
    c1, _ = await put(saver, cfg(), {"a": 1}, {"a": 1}, metadata={"source": "loop", "step": 0, RUN_KEY: RUN})
    c2, _ = await put(saver, c1, {"a": 2}, {"a": 2}, metadata={"source": "loop", "step": 1, RUN_KEY: "not-a-uuid"})
    c3, _ = await put(saver, c2, {"a": 3}, {"a": 3}, metadata={"source": "loop", "step": 2, RUN_KEY: RUN.upper()})
    got = await saver.aget_tuple(c1)
    assert got is not None and got.metadata == {"source": "loop", "step": 0, RUN_KEY: RUN}
    listed = [t.metadata async for t in saver.alist(cfg())]
    assert [m[RUN_KEY] for m in listed] == [RUN.upper(), "not-a-uuid", RUN]
    assert [t.metadata["step"] async for t in saver.alist(cfg(), filter={RUN_KEY: RUN})] == [0]
    assert [t.metadata["step"] async for t in saver.alist(cfg(), filter={RUN_KEY: "not-a-uuid", "step": 1})] == [1]
    await saver.acopy_thread("t1", "t2")
    copied = await saver.aget_tuple(cfg("t2", cid=c1["configurable"]["checkpoint_id"]))
    assert copied is not None and copied.metadata[RUN_KEY] == RUN
    saver.keeps_run_ids = False  # a LangGraph program's view: no run in the metadata, a filter on it still matches
    assert [t.metadata async for t in saver.alist(cfg(), filter={RUN_KEY: RUN})] == [{"source": "loop", "step": 0}]
    if isinstance(saver, InMemorySaver):
        return
    stored = [m if isinstance(m, str) else str(m) for (m,) in _rows(saver, "checkpoints", "metadata")]
    assert len(stored) == 3 and sum(RUN in m for m in stored) == 0  # the UUID left the metadata
    assert sum("not-a-uuid" in m for m in stored) == 1 and sum(RUN.upper() in m for m in stored) == 1


@pytest.mark.parametrize(
    "ts",
    ["now", "2024-01-01T00:00:00+00:00", "2024-01-01T00:00:00.500000+00:00", "now+1s", "now, local"],  # reads refuse non-ISO
)
@async_test
async def test_a_versions_time_reads_back_as_given_and_is_stored_short_when_its_id_holds_it(
    saver: BaseCheckpointSaver, ts: str
) -> None:
    """SQL savers store ``ts`` as an offset from the time in its id when that gives it back exactly (_ts.py)."""
    cp = make_cp({"a": 1}, {"a": 1})
    at = datetime.fromtimestamp(_micros_of(cp["id"]) / 1e6, UTC)  # type: ignore[operator]
    given = {
        "now": (at + timedelta(microseconds=17)).isoformat(),
        "now+1s": (at + timedelta(seconds=1, microseconds=3)).isoformat(),
        "now, local": (at + timedelta(microseconds=17)).astimezone(timezone(timedelta(hours=2))).isoformat(),
    }.get(ts, ts)
    cp["ts"] = given
    config = await saver.aput(cfg(), cp, {"source": "loop", "step": 0}, {"a": 1})
    got = await saver.aget_tuple(config)
    assert got is not None and got.checkpoint["ts"] == given
    assert [t.checkpoint["ts"] async for t in saver.alist(cfg())] == [given]
    assert [t.updated_at async for t in saver.alist_threads()] == [given]
    if isinstance(saver, InMemorySaver):
        return
    ((stored,),) = _rows(saver, "checkpoints", "ts")
    assert stored == ("@17" if ts == "now" else "~" + given if given[:1] in ("@", "~") else given)


def test_a_time_stored_short_reads_as_the_id_says_and_other_texts_as_they_are() -> None:
    cid = "1f1f0b89-650b-69ec-98b4-65c95e5fd4d1"  # a version-6 UUID: made 2026-12-05T14:31:41.171761 UTC
    assert read_ts(cid, "@17") == "2026-12-05T14:31:41.171778+00:00"
    assert stored_ts(cid, "2026-12-05T14:31:41.171778+00:00") == "@17"
    assert stored_ts(cid, "2026-12-05T14:31:40.999999+00:00") == "@-171762"  # before the id's time, another second
    assert stored_ts("not-a-uuid", "2026-12-05T14:31:41.171778+00:00") == "2026-12-05T14:31:41.171778+00:00"
    assert read_ts("not-a-uuid", "@17") == "@17" and read_ts(cid, "@x") == "@x" and read_ts(cid, 5) == 5
    for text in ("", "@12", "~", "~x", "not a time"):  # texts no clock writes (reads refuse them) still round-trip
        assert read_ts(cid, stored_ts(cid, text)) == text
    assert stored_ts(cid, "2026-12-05T14:31:43.171778+00:00") == "2026-12-05T14:31:43.171778+00:00"  # 2 s away


def test_the_in_memory_savers_rows_keep_the_map() -> None:
    """Its rows cost no disk: it stores the meta under the long keys, as before."""
    serde = Serializer()
    assert "versions_seen" in serde.loads_typed(dump_meta(serde, _checkpoint(META), inline=META["inline"]))
