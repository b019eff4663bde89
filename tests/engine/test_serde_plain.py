"""Plain data packed by ormsgpack when it is installed (engine/serde/_plain.py) is stored as msgpack stored it.

ormsgpack comes with LangGraph (the test extra installs it); graphwire does
not depend on it. These pin that its bytes are msgpack's for every plain
value, that whatever is not plain is left to msgpack's way (and so stored as
before), and that without it the serializer and the savers' meta pack
msgpack's way to the same bytes.
"""

from __future__ import annotations

import datetime
import enum
import uuid
from collections import OrderedDict
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.checkpoint import _memory_write, _sql_write
from engine.checkpoint._memory_write import dump_plain_meta
from engine.serde import Serializer, _plain, _serializer
from engine.serde._plain import FAST, pack_plain
from engine.serde._serializer import plain_packer

pytestmark = pytest.mark.skipif(not FAST, reason="ormsgpack is not installed (LangGraph brings it; the test extra installs LangGraph)")

# msgpack's packer as the serializer and the savers' meta use it for plain data
_MSGPACK = msgpack.Packer(strict_types=True, use_bin_type=True, datetime=False)

_plain_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**64 - 1) | st.floats(allow_nan=False)
    | st.text() | st.binary(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(_plain_values)
def test_plain_data_packs_to_msgpacks_bytes(value: Any) -> None:
    assert pack_plain(value) == _MSGPACK.pack(value)
    tag, data = Serializer().dumps_typed(value)
    assert Serializer().loads_typed((tag, data)) == value


class _Colour(enum.IntEnum):
    RED = 1


class _Text(str):
    pass


NOT_PLAIN = [
    (1, 2), [1, (2,)], _Colour.RED, _Text("x"), OrderedDict(a=1), {"a": {1: 2}}, 2**64, -(2**63) - 1, "a\ud800",
    datetime.datetime(2026, 1, 1), uuid.UUID(int=7),
]  # fmt: skip


def _nested(levels: int) -> Any:
    value: Any = None
    for _ in range(levels):
        value = [value]
    return value


def _outcome(value: Any) -> Any:
    try:
        return Serializer().dumps_typed(value)
    except Exception as exc:  # the serializer refuses some (an enum, a str subclass): as before
        return type(exc), str(exc)


@pytest.mark.parametrize("value", [*NOT_PLAIN, _nested(300)], ids=lambda v: repr(v)[:40])
def test_what_is_not_plain_is_left_to_msgpacks_way(value: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert pack_plain(value) is None
    with_ormsgpack = _outcome(value)
    monkeypatch.setattr(_serializer, "FAST", False)
    assert with_ormsgpack == _outcome(value)  # stored (or refused) as msgpack's way alone does


def test_a_class_ormsgpack_refused_leads_a_value_msgpacks_way_at_once() -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    serde = Serializer()
    messages = [HumanMessage("hi", id="1"), AIMessage("there", id="2")]
    assert serde.loads_typed(serde.dumps_channel("messages", messages)) == messages
    assert serde._plain._not_plain == {HumanMessage}  # the list's first item: remembered
    assert pack_plain([HumanMessage("again")]) is None
    assert serde.loads_typed(serde.dumps_channel("messages", [HumanMessage("again")])) == [HumanMessage("again")]
    # a plain value refused for something inside it leaves no class behind
    assert serde.loads_typed(serde.dumps_typed({"m": messages[1]})) == {"m": messages[1]}
    assert serde._plain._not_plain == {HumanMessage}
    assert serde.dumps_channel("messages", [{"role": "ai"}]) == ("msgpack", _MSGPACK.pack([{"role": "ai"}]))


@pytest.fixture
def without_ormsgpack(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_plain, "_pack", None)
    monkeypatch.setattr(_plain, "FAST", False)
    monkeypatch.setattr(_serializer, "FAST", False)
    monkeypatch.setattr(_memory_write, "pack_plain", _memory_write._msgpack_plain)  # (chosen at import)
    monkeypatch.setattr(_sql_write, "pack_plain", _memory_write._msgpack_plain)


VALUES = [
    {"messages": [{"role": "user", "content": "héllo ✓"}], "n": 3, "f": 1.5, "b": b"\x00", "ok": True, "none": None},
    [2**40 + 7, -5, 2**64 - 1, "x" * 300],
    {"v": 4, "versions_seen": {"n0": {"branch:to:n0": 2**40 + 7}}, "updated_channels": ["n"]},
]


def test_without_ormsgpack_the_serializer_and_the_meta_store_the_same_bytes(without_ormsgpack: None) -> None:
    serde = Serializer()
    assert pack_plain(VALUES[0]) is None
    for value in VALUES:
        assert serde.dumps_typed(value) == ("msgpack", _MSGPACK.pack(value))
    checkpoint: Any = {"v": 4, "versions_seen": {"n": {"a": 5}}, "updated_channels": ["a"], "channel_versions": {"a": 5}}
    assert dump_plain_meta(serde, checkpoint, {"a": 5}) == (
        "msgpack", _MSGPACK.pack({"v": 4, "versions_seen": {"n": {"a": 5}}, "updated_channels": ["a"], "channel_versions": {"a": 5}}),
    )  # fmt: skip


def test_with_ormsgpack_the_same_bytes() -> None:
    serde = Serializer()
    for value in VALUES:
        assert serde.dumps_typed(value) == ("msgpack", _MSGPACK.pack(value))


class _OwnDumps(Serializer):
    def dumps_typed(self, value: Any) -> tuple[str, bytes]:  # type: ignore[override]
        return "msgpack", b"\xc0"


class _Xor:
    name = "xor"

    def encode(self, data: bytes) -> bytes:
        return bytes(b ^ 1 for b in data)

    def decode(self, data: bytes) -> bytes:
        return bytes(b ^ 1 for b in data)


def test_the_plain_packer_is_offered_only_where_it_stores_what_dumps_typed_would() -> None:
    packer = plain_packer(Serializer())
    assert packer is not None and packer([{"a": 1}]) == Serializer().dumps_typed([{"a": 1}])[1]
    assert packer([("not", "plain")]) is None
    assert plain_packer(Serializer(json_safe=True)) is None  # its checks
    assert plain_packer(Serializer(codec=_Xor())) is None  # its bytes are the codec's
    assert plain_packer(_OwnDumps()) is None  # its own dumps_typed is what stores


def test_without_ormsgpack_no_plain_packer(without_ormsgpack: None) -> None:
    assert plain_packer(Serializer()) is None
