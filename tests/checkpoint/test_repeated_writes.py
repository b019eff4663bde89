"""A step's write that the next version stores again as its delta is stored once (issue 36 item 5).

When a version and its parent's pending writes are stored in one batch
(``aput_many``, what a run's writer sends for a one-task step), a write whose
serialized bytes are the items a blob row of that version holds itself names
the row (``_chain.ITEMS``) instead of holding the bytes again. Each test reads
back through the saver's public reads (what a user sees), and looks at the
stored rows only to check which form was stored.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from engine.checkpoint._chain import ITEMS, BlobRow, ChainReader, Ref
from engine.checkpoint._writes import PACK, WriteRow, packed, repeating
from engine.checkpoint.base import RUN_KEY, BaseCheckpointSaver
from engine.checkpoint.memory import InMemorySaver
from engine.errors import CorruptCheckpointError
from engine.serde import Serializer
from tests.checkpoint.test_compact_rows import _rows
from tests.checkpoint.test_conformance import async_test, cfg, make_cp, put

MSG0 = {"id": "m0", "role": "user", "content": "hello " * 60}
MSG1 = {"id": "m1", "role": "assistant", "content": "a reply that is long enough " * 20}


async def _step(
    saver: BaseCheckpointSaver, parent: Any, before: list[Any], writes: list[tuple[str, Any]], *, run: str | None = None
) -> dict[str, Any]:
    """Store the version after ``parent`` (``messages`` = ``before`` + the write's list) with the
    parent's writes (task ``t``), in one batch as a run's writer does; its config."""
    new_list = before + next(v for ch, v in writes if ch == "messages")
    version = saver.get_next_version(None)
    cp = make_cp({"messages": new_list}, {"messages": version})
    md: Any = {"source": "loop", "step": 1}
    if run is not None:
        md[RUN_KEY] = run
    got = await saver.aput_many([(parent, cp, md, {"messages": version})], writes=[(parent, writes, "t", "~p, model")])
    return got[0]


async def _first(saver: BaseCheckpointSaver) -> tuple[dict[str, Any], int]:
    version = saver.get_next_version(None)
    c0, _ = await put(saver, cfg(), {"messages": [MSG0]}, {"messages": version})
    return c0, version


@async_test
async def test_a_write_the_next_delta_repeats_is_stored_once_and_reads_back(saver: BaseCheckpointSaver) -> None:
    c0, _ = await _first(saver)
    writes = [("messages", [MSG1]), ("branch:to:post", None)]
    c1 = await _step(saver, c0, [MSG0], writes)
    got = await saver.aget_tuple(c0)
    assert got is not None
    assert [(w[0], w[1], w[2]) for w in got.pending_writes] == [("t", "messages", [MSG1]), ("t", "branch:to:post", None)]
    listed = [t async for t in saver.alist(cfg())]
    assert [t.pending_writes for t in listed] == [[], got.pending_writes]
    child = await saver.aget_tuple(c1)
    assert child is not None and child.checkpoint["channel_values"]["messages"] == [MSG0, MSG1]
    if not isinstance(saver, InMemorySaver):  # the in-memory saver keeps its rows: they cost no disk
        ((tag, size, ref_channel),) = _rows(saver, "writes", "type, length(data), ref_channel")
        assert tag == PACK and ref_channel == "messages" and size < 60  # the message is not in it


@async_test
async def test_a_lone_write_names_the_row_and_a_different_one_is_stored_whole(saver: BaseCheckpointSaver) -> None:
    c0, _ = await _first(saver)
    c1 = await _step(saver, c0, [MSG0], [("messages", [MSG1])])
    got = await saver.aget_tuple(c0)
    assert got is not None and [w[2] for w in got.pending_writes] == [[MSG1]]
    other = {**MSG1, "content": "not what the delta holds"}
    # The version's delta holds MSG1, the write another message (a reducer that changed it): stored whole.
    v = saver.get_next_version(None)
    cp = make_cp({"messages": [MSG0, MSG1, MSG1]}, {"messages": v})
    await saver.aput_many([(c1, cp, {"source": "loop", "step": 2}, {"messages": v})], writes=[(c1, [("messages", [other])], "u")])
    got1 = await saver.aget_tuple(c1)
    assert got1 is not None and [w[2] for w in got1.pending_writes] == [[other]]
    if not isinstance(saver, InMemorySaver):
        stored = {cid: tag for cid, tag in _rows(saver, "writes", "checkpoint_id, type")}
        assert stored[c0["configurable"]["checkpoint_id"]] == ITEMS and stored[c1["configurable"]["checkpoint_id"]] != ITEMS


@async_test
async def test_a_row_stored_before_is_not_named(saver: BaseCheckpointSaver) -> None:
    """The version landed before without its writes (an unknown outcome, then the batch again):
    its row holds whatever form was stored first, so the write is stored whole."""
    c0, _ = await _first(saver)
    version = saver.get_next_version(None)
    cp = make_cp({"messages": [MSG0, MSG1]}, {"messages": version})
    md: Any = {"source": "loop", "step": 1}
    await saver.aput(c0, cp, md, {"messages": version})
    await saver.aput_many([(c0, cp, md, {"messages": version})], writes=[(c0, [("messages", [MSG1])], "t")])
    got = await saver.aget_tuple(c0)
    assert got is not None and [w[2] for w in got.pending_writes] == [[MSG1]]
    if not isinstance(saver, InMemorySaver):
        ((tag, ref_channel),) = _rows(saver, "writes", "type, ref_channel")
        assert tag != ITEMS and ref_channel is None


@async_test
async def test_a_row_another_saver_stored_whole_is_not_named(new_saver: Any, saver_kind: str) -> None:
    """Another process stored the version first, its row whole (its cache was cold); this saver's
    plan is a delta holding just the write's message, but the row there holds the whole list."""
    if saver_kind == "memory":
        pytest.skip("two in-memory savers share no storage")
    a, b = new_saver(), new_saver()
    c0, _ = await _first(a)
    version = a.get_next_version(None)
    cp = make_cp({"messages": [MSG0, MSG1]}, {"messages": version})
    md: Any = {"source": "loop", "step": 1}
    await b.aput(c0, cp, md, {"messages": version})
    assert len(_rows(a, "blobs", "version")) == 2
    await a.aput_many([(c0, cp, md, {"messages": version})], writes=[(c0, [("messages", [MSG1])], "t")])
    for saver in (a, b):
        got = await saver.aget_tuple(c0)
        assert got is not None and [w[2] for w in got.pending_writes] == [[MSG1]]
    ((tag, ref_channel),) = _rows(a, "writes", "type, ref_channel")
    assert tag != ITEMS and ref_channel is None


@async_test
async def test_a_delta_whose_base_is_gone_is_stored_whole_and_so_is_the_write(new_saver: Any, saver_kind: str) -> None:
    if saver_kind == "memory":
        pytest.skip("two in-memory savers share no storage")
    a, b = new_saver(), new_saver()
    await _first(a)  # a's cache: [MSG0] at a version about to be deleted
    await b.adelete_thread("t1")
    c0, _ = await _first(b)  # the same list again, at another version a does not know
    await _step(a, c0, [MSG0], [("messages", [MSG1]), ("branch:to:post", None)])  # a's delta names a base that is gone
    for saver in (a, b):
        got = await saver.aget_tuple(c0)
        assert got is not None and [(w[1], w[2]) for w in got.pending_writes] == [("messages", [MSG1]), ("branch:to:post", None)]
        listed = [t async for t in saver.alist(cfg())]
        assert listed[0].checkpoint["channel_values"]["messages"] == [MSG0, MSG1]
    ((tag, ref_channel),) = _rows(a, "writes", "type, ref_channel")
    assert tag.endswith(PACK) and ref_channel is None  # the pack whole (and compressed, being long now)


@async_test
async def test_deleting_the_version_keeps_the_row_its_parents_write_names(saver: BaseCheckpointSaver) -> None:
    c0, _ = await _first(saver)
    run = str(uuid.uuid4())
    await _step(saver, c0, [MSG0], [("messages", [MSG1]), ("branch:to:post", None)], run=run)
    assert await saver.adelete_run_versions("t1", run) == 1
    got = await saver.aget_tuple(c0)
    assert got is not None and [(w[1], w[2]) for w in got.pending_writes] == [("messages", [MSG1]), ("branch:to:post", None)]
    assert [t.checkpoint["id"] for t in [t async for t in saver.alist(cfg())]] == [c0["configurable"]["checkpoint_id"]]


@async_test
async def test_a_copied_thread_reads_the_writes_back(saver: BaseCheckpointSaver) -> None:
    c0, _ = await _first(saver)
    await _step(saver, c0, [MSG0], [("messages", [MSG1]), ("branch:to:post", None)])
    await saver.acopy_thread("t1", "t2")
    listed = [t async for t in saver.alist(cfg("t2"))]
    assert [(w[1], w[2]) for w in listed[1].pending_writes] == [("messages", [MSG1]), ("branch:to:post", None)]


# -- the pieces, on plain rows ----------------------------------------------------------------
def _serde() -> Serializer:
    return Serializer()


def test_repeating_names_only_a_plain_row_holding_the_same_bytes() -> None:
    s = _serde()
    tag, data = s.dumps_typed([MSG1])
    rows = [WriteRow(0, "messages", tag, data, False), WriteRow(1, "other", tag, data, False)]
    blobs = [BlobRow("messages", 7, tag, data, base=3, seq=1), BlobRow("other", 8, tag, data, ref=Ref("", "x", 1), seq=1)]
    out = repeating(rows, blobs, "ns")
    assert out[0] == WriteRow(0, "messages", ITEMS, b"", False, Ref("ns", "messages", 7), rows[0])
    assert out[1] is rows[1]  # a row with a ref holds what it adds to another row, not the write
    assert repeating(rows, [BlobRow("messages", 7, tag, data + b"x")], "") == rows
    assert out[0].full(s) is rows[0]


def test_a_pack_names_its_one_repeated_write_and_stores_whole_after_all() -> None:
    s = _serde()
    tag, data = s.dumps_typed([MSG1])
    n_tag, n_data = s.dumps_typed(None)
    rows = repeating([WriteRow(0, "messages", tag, data, False), WriteRow(1, "b", n_tag, n_data, False)],
                     [BlobRow("messages", 7, tag, data, 6, 1)], "")  # fmt: skip
    (pack,) = packed(rows, "t")
    assert pack.type == PACK and pack.ref == Ref("", "messages", 7) and len(pack.data) < 60
    whole = pack.full(s)
    assert whole.ref is None and whole == packed([rows[0].full(s), rows[1]], "t")[0]
    two = [rows[0], WriteRow(1, "m2", ITEMS, b"", False, Ref("", "m2", 9), rows[1])]
    assert packed(two, "t") == two  # one ref per row


def test_an_items_write_reads_the_row_itself_or_fails_as_corrupt() -> None:
    s = _serde()
    reader = ChainReader(s)
    reader.add("messages", 1, *s.dumps_typed([MSG0]), None, 0)
    reader.add("messages", 2, *s.dumps_typed([MSG1]), 1, 1)
    reader.add("d", 3, *s.dumps_typed({"k": 1}), None, 0)
    assert reader.resolve(ITEMS, b"", ("", "messages", 2, None)) == [MSG1]  # the delta's items, not the list there
    assert reader.resolve(ITEMS, b"", ("", "messages", 1, None)) == [MSG0]
    for ref in [("", "d", 3, None), ("", "messages", 9, None), ("", "messages", 2, "k"), None]:
        with pytest.raises(CorruptCheckpointError):
            reader.resolve(ITEMS, b"", ref)


@async_test
async def test_a_last_value_write_equal_to_its_full_row_is_stored_whole(saver: BaseCheckpointSaver) -> None:
    """A plain channel's write (a long string) is the next version's full value byte for byte:
    no ref, which would name a row holding no list (the read refused it as corrupt)."""
    v0 = saver.get_next_version(None)
    c0, _ = await put(saver, cfg(), {"blob": "x" * 10}, {"blob": v0})
    big = "y" * 5000
    v1 = saver.get_next_version(v0)
    cp = make_cp({"blob": big}, {"blob": v1})
    await saver.aput_many([(c0, cp, {"source": "loop", "step": 1}, {"blob": v1})], writes=[(c0, [("blob", big)], "t", "~p, n")])
    got = await saver.aget_tuple(c0)
    assert got is not None and [(w[1], w[2]) for w in got.pending_writes] == [("blob", big)]
    newest = await saver.aget_tuple(cfg())
    assert newest is not None and newest.checkpoint["channel_values"]["blob"] == big
