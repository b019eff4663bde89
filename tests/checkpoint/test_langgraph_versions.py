"""A checkpoint LangGraph's own savers wrote, put into ours (issue 29).

LangGraph's versions are strings, ``"<32-digit counter>.<random fraction>"``;
ours are integers. Every saver takes a version of LangGraph's form as its
counter, in ``channel_versions``, ``versions_seen`` and ``new_versions``
alike, and still refuses any other channel version that is not an int
(``versions_seen`` of a checkpoint whose channel versions are ints is stored
as given, as LangGraph's savers store it). A checkpoint
older than ``"v"`` 4 keeps its ``pending_sends`` as the tasks channel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.checkpoint import BaseCheckpointSaver, _memory_write
from engine.serde import _serializer
from engine.errors import SerializationError
from engine.serde import Serializer
from engine.types import Send


def v(n: int, fraction: float = 0.6697367414225304) -> str:
    return f"{n:032}.{fraction:016}"


def _checkpoint(n: int, versions: dict[str, Any], seen: dict[str, Any], values: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "v": 2, "id": f"1f00fd5f-2149-6faa-800{n}-9d848038f10a", "ts": f"2025-04-02T15:20:0{n}+00:00",
        "channel_values": values, "channel_versions": versions, "versions_seen": seen, **extra,
    }  # fmt: skip


CFG = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
META = {"source": "loop", "step": 0, "parents": {}}


def test_langgraph_string_versions_are_read_as_their_counters(saver: BaseCheckpointSaver) -> None:
    versions = {"a": v(2), "b": v(13, 0.5)}
    seen = {"node": {"a": v(1, 1.5e-05)}, "__input__": {}}
    ck = _checkpoint(1, versions, seen, {"a": "x", "b": [1]})
    stored = saver.put(CFG, ck, META, dict(versions))
    got = saver.get_tuple(stored)
    assert got is not None
    assert got.checkpoint["channel_versions"] == {"a": 2, "b": 13}
    assert got.checkpoint["versions_seen"] == {"node": {"a": 1}, "__input__": {}}
    assert got.checkpoint["channel_values"] == {"a": "x", "b": [1]}
    assert ck["channel_versions"] == versions and ck["versions_seen"]["node"] == {"a": v(1, 1.5e-05)}  # not changed
    # a child that changes only "a" finds "b" at its counter
    child = _checkpoint(2, {"a": v(3), "b": v(13, 0.5)}, seen, {"a": "y", "b": [1]})
    got = saver.get_tuple(saver.put(stored, child, META, {"a": v(3)}))
    assert got is not None and got.checkpoint["channel_values"] == {"a": "y", "b": [1]}


@pytest.mark.parametrize(
    "version",
    [
        "00000000000000000000000000000001.0",  # no fraction
        "1.0.5",  # counter not 32 digits
        "00000000000000000000000000000001.1.5",  # not a fraction
        "00000000000000000000000000000001.abc",
    ],
)
def test_strings_not_of_langgraph_form_are_still_refused(saver: BaseCheckpointSaver, version: str) -> None:
    with pytest.raises(ValueError, match=r"channel_versions\['a'\] is"):
        saver.put(CFG, _checkpoint(1, {"a": version}, {}, {"a": 1}), META, {"a": version})
    assert saver.get_tuple(CFG) is None


@pytest.mark.parametrize("seen", ["1.0.5", 1.5, True, None])
def test_versions_seen_is_stored_as_given_when_the_channel_versions_are_integers(saver: BaseCheckpointSaver, seen: Any) -> None:
    # It keys nothing (the loop copies its values from channel_versions), and LangGraph's own savers
    # keep it as given: so does every saver, rather than walk every node's record on every put.
    ck = _checkpoint(1, {"a": 5}, {"n": {"a": seen}, "m": {"a": 5}}, {"a": 1})
    got = saver.get_tuple(saver.put(CFG, ck, META, {"a": 5}))
    assert got is not None
    assert got.checkpoint["versions_seen"] == {"n": {"a": seen}, "m": {"a": 5}}
    assert type(got.checkpoint["versions_seen"]["n"]["a"]) is type(seen)
    assert got.checkpoint["channel_versions"] == {"a": 5} and got.checkpoint["channel_values"] == {"a": 1}


def test_pending_sends_of_an_older_checkpoint_are_kept_as_the_tasks_channel(saver: BaseCheckpointSaver) -> None:
    send = Send("node", {"x": 1})
    ck = _checkpoint(1, {"a": v(4), "b": v(2)}, {}, {"a": 1, "b": 2}, pending_sends=[send])
    got = saver.get_tuple(saver.put(CFG, ck, META, {"a": v(4), "b": v(2)}))
    assert got is not None
    assert got.checkpoint["channel_values"]["__pregel_tasks"] == [send]
    assert got.checkpoint["channel_versions"]["__pregel_tasks"] == 4
    assert "pending_sends" not in got.checkpoint and ck["pending_sends"] == [send]


@pytest.mark.parametrize("ormsgpack", [True, False], ids=["ormsgpack", "msgpack"])
@pytest.mark.parametrize("seen", [{1: "a"}, float("nan")], ids=["int-key-map", "nan"])
def test_a_json_safe_saver_still_refuses_a_versions_seen_json_cannot_carry(
    new_saver: Callable[..., BaseCheckpointSaver], seen: Any, ormsgpack: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Stored as given, but a server's serializer (json_safe) refuses at put what it could never send,
    # whichever packer packs the meta (engine/serde/_plain.py: ormsgpack refuses a map key that is
    # not text by itself, msgpack packs it)
    if not ormsgpack:
        monkeypatch.setattr(_memory_write, "FAST", False)
        monkeypatch.setattr(_serializer, "FAST", False)
    saver = new_saver(Serializer(json_safe=True))
    with pytest.raises(SerializationError):
        saver.put(CFG, _checkpoint(1, {"a": 5}, {"n": {"a": seen}}, {"a": 1}), META, {"a": 5})
    assert saver.get_tuple(CFG) is None
    got = saver.get_tuple(saver.put(CFG, _checkpoint(2, {"a": 5}, {"n": {"a": 5}}, {"a": 1}), META, {"a": 5}))
    assert got is not None and got.checkpoint["versions_seen"] == {"n": {"a": 5}}
