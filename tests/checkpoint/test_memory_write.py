"""The in-memory saver's short write path (engine/checkpoint/_memory_write.py) stores what the
shared planner would: the same blob rows (full values, list deltas on the same bases, empty
rows), the same pending writes, a meta that reads back the same; and its memo of small
scalars never stores bytes its serializer would not write now."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from engine.checkpoint import InMemorySaver, _memory_write
from engine.checkpoint._helpers import load_meta
from engine.checkpoint._memory_write import dump_plain_meta
from engine.checkpoint.base import INTERRUPT, empty_checkpoint
from engine.errors import SerializationError
from engine.serde import Serializer, _plain, _serializer


def _versions(step: int, channels: list[str]) -> dict[str, int]:
    return {ch: (step << 32) | i for i, ch in enumerate(channels)}


STEPS: list[dict[str, Any]] = [  # channel values of each version; a channel absent has no value
    {"messages": [{"role": "user", "content": "hi"}], "n": 0, "route": "a"},
    {"messages": [{"role": "user", "content": "hi"}, {"role": "ai", "content": "x"}], "n": 1, "branch:to:b": None},
    {"messages": [{"role": "user", "content": "hi"}, {"role": "ai", "content": "x"}, {"role": "tool"}], "n": 2},
    {"messages": [{"role": "user", "content": "replaced"}], "n": 3, "route": "b", "big": "é" * 300},
    {"messages": [{"role": "user", "content": "replaced"}, {"role": "ai"}], "n": True, "route": 2.5},
]
WRITES: list[tuple[str, Any]] = [("n", 5), ("branch:to:c", None), ("messages", [{"role": "ai"}]), (INTERRUPT, "why?")]


def _run(saver: InMemorySaver, thread_id: str) -> None:
    """Store STEPS as one thread's chain (every channel changed at every step), with WRITES on each."""
    config: dict[str, Any] = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    messages: list[Any] = []
    for step, values in enumerate(STEPS):
        values = dict(values)
        if step in (1, 2, 4):  # a list extended, as reducers hand it over: the same items, more at the end
            messages = messages + values["messages"][len(messages):]
            values["messages"] = messages
        else:
            messages = values["messages"]
        if step == 2:  # a dict holding a list the thread stored (a subgraph's input): a ref to it, and the rest
            values["input"] = {"messages": messages, "k": 1}
        checkpoint = empty_checkpoint()
        checkpoint["id"] = f"0000{step}"
        checkpoint["ts"] = f"2026-01-01T00:00:0{step}+00:00"
        channels = [*values, "gone"]  # "gone": a version without a value
        checkpoint["channel_versions"] = _versions(step + 1, channels)
        checkpoint["channel_values"] = values
        checkpoint["versions_seen"] = {"node": _versions(step, channels[:1])}
        config = saver.put(config, checkpoint, {"source": "loop", "step": step, "parents": {}}, dict(checkpoint["channel_versions"]))
        saver.put_writes(config, WRITES, f"task-{step}", "path")
        # a retry of the task (its interrupt's row replaced, the others' kept) and another task of the step
        saver.put_writes(config, [("n", 6), (INTERRUPT, "again?")], f"task-{step}", "path")
        saver.put_writes(config, [("n", 7)], f"other-{step}", "path")


def _stored(saver: InMemorySaver, thread_id: str) -> tuple[Any, Any, Any]:
    thread = saver._threads[thread_id]
    rows = {cid: (parent, ts, load_meta(saver.serde, cid, meta), md) for cid, (parent, ts, meta, md) in thread.checkpoints[""].items()}
    return thread.blobs, rows, thread.writes


def test_the_short_path_stores_what_the_shared_planner_stores() -> None:
    short = InMemorySaver()
    _run(short, "t")
    planned = InMemorySaver(max_state_bytes=10**9)  # with a size limit: every put through DeltaCache.plan, every write through dump_writes
    _run(planned, "t")
    blobs, rows, writes = _stored(short, "t")
    assert (blobs, rows, writes) == _stored(planned, "t")
    assert any(blob[2] is not None for blob in blobs.values())  # deltas were written, not only full values
    assert any(blob[4] is not None for blob in blobs.values())  # and a ref
    for saver in (short, planned):
        found = saver.get_tuple({"configurable": {"thread_id": "t"}})
        assert found is not None
        assert found.checkpoint["channel_values"] == STEPS[-1]
        assert [w[1:] for w in found.pending_writes or ()] == [
            ("n", 7), (INTERRUPT, "again?"), *WRITES[:3],
        ]  # by task, then index (the interrupt's is -3)  # fmt: skip


def test_a_delta_or_a_ref_whose_row_is_gone_is_stored_whole() -> None:
    saver = InMemorySaver()
    _run(saver, "t")
    thread = saver._threads["t"]
    last = max(thread.checkpoints[""])
    version = load_meta(saver.serde, last, thread.checkpoints[""][last][2])["channel_versions"]["messages"]
    del thread.blobs[("", "messages", version)]  # the new value's base: as a prune the cache has not heard of would leave it
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": last}}
    checkpoint = empty_checkpoint()
    checkpoint["id"] = "00009"
    value = [{"role": "user", "content": "replaced"}, {"role": "ai"}, {"role": "tool"}]
    checkpoint["channel_values"] = {"messages": value}
    checkpoint["channel_versions"] = {"messages": 99 << 32}
    saver.put(config, checkpoint, {"source": "loop", "step": 9}, {"messages": 99 << 32})
    assert thread.blobs[("", "messages", 99 << 32)][2] is None  # full, not a delta on the missing row
    found = saver.get_tuple({"configurable": {"thread_id": "t", "checkpoint_id": "00009"}})
    assert found is not None and found.checkpoint["channel_values"] == {"messages": value}
    # A dict repeating that list is a ref to its row; with the row gone, it is stored whole.
    held = {"messages": [*value, {"role": "ai", "content": "more"}]}
    for step, gone in ((10, False), (11, True)):
        if gone:
            del thread.blobs[("", "messages", 99 << 32)]
        checkpoint = empty_checkpoint()
        checkpoint["id"] = f"000{step}"
        checkpoint["channel_values"] = {"input": held}
        checkpoint["channel_versions"] = {"input": step << 32}
        saver.put(config, checkpoint, {"source": "loop", "step": step}, {"input": step << 32})
        ref = thread.blobs[("", "input", step << 32)][4]
        assert (ref is None) == gone
        assert gone or (ref.channel, ref.version) == ("messages", 99 << 32)
        found = saver.get_tuple({"configurable": {"thread_id": "t", "checkpoint_id": checkpoint["id"]}})
        assert found is not None and found.checkpoint["channel_values"] == {"input": held}


def test_the_scalar_memo_follows_the_serializer_and_its_settings() -> None:
    saver = InMemorySaver()
    huge = 10 ** 5000  # more digits than JSON's readers take: refused once json_safe is on
    saver.serde.json_safe = False
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"n": huge}
    checkpoint["channel_versions"] = {"n": 1}
    stored = saver.put(config, checkpoint, {}, {"n": 1})
    saver.put_writes(stored, [("n", huge)], "task")
    saver.serde.json_safe = True
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"n": huge}
    checkpoint["channel_versions"] = {"n": 2}
    with pytest.raises(SerializationError, match="'n'"):
        saver.put(config, checkpoint, {}, {"n": 2})
    with pytest.raises(SerializationError, match="'n'"):
        saver.put_writes(stored, [("n", huge)], "task-2")
    saver.serde = Serializer(codec=None)
    saver.serde.json_safe = False
    assert saver.put(config, checkpoint, {}, {"n": 2})["configurable"]["checkpoint_id"] == checkpoint["id"]


def test_a_meta_msgpack_alone_cannot_pack_goes_through_the_serializer() -> None:
    serde = Serializer()
    checkpoint = empty_checkpoint()
    checkpoint["versions_seen"] = {"node": {"a": 1}}
    checkpoint["updated_channels"] = ["a"]
    plain = dump_plain_meta(serde, checkpoint, {"a": 1})
    assert load_meta(serde, "c", plain) == load_meta(serde, "c", serde.dumps_typed(
        {"v": checkpoint["v"], "versions_seen": {"node": {"a": 1}}, "updated_channels": ["a"], "channel_versions": {"a": 1}}))
    lone = "\ud800"  # a channel name with a lone surrogate: msgpack's strict UTF-8 refuses it, the serializer keeps it
    odd = dump_plain_meta(serde, checkpoint, {lone: 1})
    assert load_meta(serde, "c", odd)["channel_versions"] == {lone: 1}


def test_a_list_growing_past_the_fanout_is_stored_as_the_planner_stores_it() -> None:
    """The short path's own list deltas (the next run position below a K-th) and the planner's
    (the K-th, compressed; a chain past its levels) interleave over 70 steps: the same rows."""
    stored = []
    for saver in (InMemorySaver(delta_fanout=4), InMemorySaver(delta_fanout=4, max_state_bytes=10**9)):
        config: dict[str, Any] = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
        messages: list[Any] = []
        for step in range(70):
            messages = messages + [{"role": "ai", "n": step}]  # a reducer's new list: the same items, one more
            checkpoint = empty_checkpoint()
            checkpoint["id"] = f"{step:05d}"
            checkpoint["ts"] = f"2026-01-01T00:{step // 60:02d}:{step % 60:02d}+00:00"
            checkpoint["channel_versions"] = {"messages": step + 1}
            checkpoint["channel_values"] = {"messages": messages}
            config = saver.put(config, checkpoint, {"source": "loop", "step": step, "parents": {}}, {"messages": step + 1})
        found = saver.get_tuple({"configurable": {"thread_id": "t"}})
        assert found is not None and found.checkpoint["channel_values"]["messages"] == messages
        stored.append(_stored(saver, "t"))
    assert stored[0] == stored[1]
    blobs = stored[0][0]
    assert sum(blob[2] is not None for blob in blobs.values()) == 69  # every version after the first a delta


def test_with_ormsgpack_or_without_the_same_bytes_are_stored(monkeypatch: pytest.MonkeyPatch) -> None:
    # ormsgpack (where LangGraph brought it) packs the plain metas, deltas and writes (engine/serde/_plain.py)
    with_it = InMemorySaver()
    _run(with_it, "t")
    assert with_it._scalars.plain is not None or not _plain.FAST
    for module in (_plain, _serializer, _memory_write):
        monkeypatch.setattr(module, "FAST", False)
    without = InMemorySaver()
    _run(without, "t")
    assert without._scalars.plain is None
    assert _stored(with_it, "t") == _stored(without, "t")
    assert with_it._threads["t"].checkpoints == without._threads["t"].checkpoints  # the metas' very bytes


def test_puts_deletes_and_prunes_from_many_threads_share_one_lock() -> None:
    """The saver's lock is its delta cache's (a put learns its lists under the one lock it takes);
    a delete and a prune tell the cache after letting it go, or they would wait on themselves."""
    saver = InMemorySaver()
    assert saver._deltas._lock is saver._lock
    start = threading.Barrier(4)

    def chat(thread_id: str) -> list[Any]:
        start.wait()
        config: dict[str, Any] = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
        messages: list[Any] = []
        for step in range(40):
            messages = [*messages, {"role": "ai", "content": f"{thread_id}-{step}"}]
            checkpoint = empty_checkpoint()
            checkpoint["id"] = f"{step:05d}"
            checkpoint["channel_values"] = {"messages": messages}
            checkpoint["channel_versions"] = {"messages": (step + 1) << 32}
            config = saver.put(config, checkpoint, {"source": "loop", "step": step, "parents": {}}, {"messages": (step + 1) << 32})
            if step % 10 == 9:
                saver.prune([thread_id], keep_last=2)
            if step == 19 and thread_id == "gone":
                saver.delete_thread(thread_id)
        return messages

    final: dict[str, list[Any]] = {}
    workers = [threading.Thread(target=lambda n=name: final.__setitem__(n, chat(n)), daemon=True) for name in ("a", "b", "c", "gone")]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert not any(w.is_alive() for w in workers)  # (a deadlock fails here, its daemon threads left behind)
    for name in ("a", "b", "c", "gone"):
        found = saver.get_tuple({"configurable": {"thread_id": name}})
        assert found is not None and found.checkpoint["channel_values"] == {"messages": final[name]}
        assert sorted(saver._threads[name].checkpoints[""]) == ["00038", "00039"]  # pruned to the last two
    assert saver._deltas._threads["a"].known[("", "messages")].items == final["a"]
