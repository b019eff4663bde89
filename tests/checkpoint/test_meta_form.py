"""A checkpoint's meta stored in its compact form (engine/checkpoint/_meta_form.py): each name and version once.

The form must give back exactly the map it was made from, leave a meta it
cannot hold as a map (read as before), refuse a hostile one with
CorruptCheckpointError, and read rows stored as a map before it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from engine.checkpoint._helpers import dump_meta, load_meta
from engine.checkpoint._meta_form import FORM, pack, unpack
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


def test_the_compact_form_gives_back_the_map_it_was_made_from() -> None:
    form = pack(META)
    assert form is not None and form[0] == FORM
    assert unpack(form) == META
    assert form[2].count("branch:to:model") == 1 and form[3].count(V1) == 1  # each name, each version once
    no_inline = {**META, "updated_channels": None}
    del no_inline["inline"], no_inline["channel_versions"]
    assert unpack(pack(no_inline)) == no_inline


def test_a_saver_reads_the_compact_form_and_the_map_stored_before_it_alike() -> None:
    serde = Serializer()
    inline = META["inline"]
    compact = dump_meta(serde, _checkpoint(META), versions={"messages": V2}, inline=inline)
    old = serde.dumps_typed(META)  # how a meta was stored before the compact form
    assert type(serde.loads_typed(compact)) is list
    assert len(compact[1]) < len(old[1]) * 3 // 4
    assert load_meta(serde, "c", compact) == load_meta(serde, "c", old)
    # A saver keeping the versions in a column passes them back.
    column = dump_meta(serde, _checkpoint(META), inline=inline)
    assert load_meta(serde, "c", column, {"messages": V2}) == load_meta(serde, "c", old)


@pytest.mark.parametrize(
    ("odd", "as_map"),
    [
        ({"versions_seen": {"model": {"messages": "00000002.0.5"}}}, False),  # held as it is: the read refuses it
        ({"versions_seen": {"model": {"messages": True}, "post": {"messages": 1}}}, True),  # True and 1: one dict key
        ({"versions_seen": {"model": {"messages": 2.0}}, "inline": {"turns": [1, 2, 5]}}, True),
        ({"versions_seen": {"model": {"messages": [1]}}}, True),  # not a dict key
        ({"updated_channels": ("messages",)}, True),
        ({"inline": {"turns": [1, V1, 2, 3]}}, True),
        ({"versions_seen": {"model": [1, 2]}}, True),
    ],
)
def test_a_meta_the_form_cannot_hold_as_given_reads_as_the_map_would(odd: dict[str, Any], as_map: bool) -> None:
    meta = {**META, **odd}
    serde = Serializer()
    stored = dump_meta(serde, _checkpoint(meta), versions=meta["channel_versions"], inline=meta["inline"])
    assert (type(serde.loads_typed(stored)) is dict) is as_map
    old = serde.dumps_typed(meta)
    try:
        want: Any = load_meta(serde, "c", old)
    except CorruptCheckpointError as exc:
        with pytest.raises(CorruptCheckpointError) as got:
            load_meta(serde, "c", stored)
        assert str(got.value) == str(exc)
    else:
        assert load_meta(serde, "c", stored) == want


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda f: f.__setitem__(4, [[99, 0, 0]]), "refers to nothing"),  # a node name out of range
        (lambda f: f.__setitem__(4, [[-1, 0, 0]]), "refers to nothing"),  # negative: not counted from the end
        (lambda f: f.__setitem__(4, [[0, 0]]), "not pairs"),
        (lambda f: f.__setitem__(6, [[0, 1, 99]]), "refers to nothing"),  # an inline version out of range
        (lambda f: f.__setitem__(3, "no"), "not lists"),
        (lambda f: f.append(0), "not a compact meta"),
        (lambda f: f.__setitem__(0, 2), "not a compact meta"),
        (lambda f: f.__setitem__(2, list(range(20))), "not a map of channel names"),  # names not text
    ],
)
def test_a_hostile_compact_meta_is_refused(spoil: Any, message: str) -> None:
    serde = Serializer()
    form = pack(META)
    assert form is not None
    spoil(form)
    with pytest.raises(CorruptCheckpointError, match=message):
        load_meta(serde, "c", serde.dumps_typed(form))


@async_test
async def test_sql_savers_store_the_compact_form(saver: BaseCheckpointSaver) -> None:
    c1, _ = await put(saver, cfg(), {"a": [1], "n": 3}, {"a": 1, "n": 1})
    c2, cp = await put(saver, c1, {"a": [1, 2], "n": 4}, {"a": 2, "n": 2})
    got = await saver.aget_tuple(c2)
    assert got is not None and got.checkpoint["channel_values"] == {"a": [1, 2], "n": 4}
    assert got.checkpoint["channel_versions"] == cp["channel_versions"]
    if isinstance(saver, InMemorySaver):
        return
    for tag, data in _rows(saver, "checkpoints", "type, checkpoint"):
        assert type(saver.serde.loads_typed((tag, bytes(data)))) is list


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
