"""The serializer: the allowlist round-trips exactly, the rest fails at write, hostile bytes fail at read."""

from __future__ import annotations

import dataclasses
import enum
import pickle
import re
import tracemalloc
import zlib
import zoneinfo
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any
from uuid import UUID

import msgpack
import pytest

import engine.serde
import engine.serde._serializer as serializer_module
from engine.errors import CorruptCheckpointError, SerializationError
from engine.serde import Serializer
from engine.serde._ext import Code
from engine.types import Command, Interrupt, Send

HINT = "(register it with the graph's serializer, or store plain data)"


def round_trip(value: Any, serde: Serializer | None = None) -> Any:
    serde = serde or Serializer()
    tag, data = serde.dumps_typed(value)
    assert tag == serde.tag and type(data) is bytes
    return serde.loads_typed((tag, data))


def assert_same(got: Any, want: Any) -> None:
    """Equal, and of the same types all the way down (True == 1 and (1,) == [1]... are not enough)."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            assert_same(got[k], want[k])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
    elif isinstance(want, (datetime, time)):
        assert got == want and got.tzinfo == want.tzinfo and got.fold == want.fold
        assert got.utcoffset() == want.utcoffset()
    else:
        assert got == want


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mood(str, enum.Enum):
    CALM = "calm"


@dataclasses.dataclass
class Message:
    content: Any
    id: str = "m"


@dataclasses.dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int
    label: str = dataclasses.field(default="", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", f"{self.x},{self.y}")


class Foo:
    pass


def test_exports_are_pinned() -> None:
    assert sorted(engine.serde.__all__) == ["Codec", "Serializer", "StateTooLargeError", "TAG"]


# -- the allowlist round-trips exactly -------------------------------------------------------
PLAIN = [
    None, True, False, 0, -1, 2**63 - 1, -(2**63), 2**64 - 1, 1.5, -0.0, float("inf"), "", "héllo ✓", "\ud800",
    b"", b"\x00\xff", [], [1, "a", None], (), (1,), (1, [2, (3, 4)]), [(1, 2), [3]], {}, {"a": 1},
    {1: "int key", (1, 2): "tuple key", frozenset({1}): "frozenset key", None: "none key", b"k": "bytes key"},
    {1, 2, 3}, set(), frozenset({"a", (1, 2)}), {"s": {1, 2}, "f": [frozenset({3})], "d": {"t": {(1, 2)}}},
    date(2024, 2, 29), timedelta(days=-3, seconds=5, microseconds=7), timedelta(0),
    UUID("12345678-1234-5678-1234-567812345678"), Decimal("1.50"), Decimal("-0"), Decimal("1E+1000"),
]  # fmt: skip


def _stable_id(value: Any) -> str:
    """The value's repr, a set's items sorted by theirs: a set's repr follows its hashes, which differ
    between processes (str hashing is seeded per process), and the test run's processes must agree."""
    if isinstance(value, (set, frozenset)) and value:
        items = ", ".join(sorted(map(_stable_id, value)))
        return f"{{{items}}}" if type(value) is set else f"frozenset({{{items}}})"
    return repr(value)


@pytest.mark.parametrize("value", PLAIN, ids=_stable_id)
def test_plain_values_round_trip_with_their_types(value: Any) -> None:
    assert_same(round_trip(value), value)


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, 2**1000, -(2**1000) + 1, 10**400], ids=str)
def test_big_ints_round_trip(value: int) -> None:
    got = round_trip({"n": value, "list": [value]})
    assert got == {"n": value, "list": [value]} and type(got["n"]) is int


def test_tuples_stay_tuples_and_lists_stay_lists() -> None:
    value = {"t": (1, [2, (3, [4])]), "l": [(1,), [()]]}
    got = round_trip(value)
    assert_same(got, value)
    assert type(got["t"][1][1]) is tuple and type(got["l"][1][0]) is tuple


def test_decimal_keeps_nan_and_exponent() -> None:
    got = round_trip([Decimal("NaN"), Decimal("1.500"), Decimal("-Infinity")])
    assert [str(d) for d in got] == ["NaN", "1.500", "-Infinity"]


PARIS = zoneinfo.ZoneInfo("Europe/Paris")
DATES = [
    datetime(2024, 5, 6, 7, 8, 9, 123456),
    datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC),
    datetime(2024, 5, 6, tzinfo=timezone(timedelta(hours=5, minutes=30))),
    datetime(2024, 5, 6, tzinfo=timezone(timedelta(hours=-3, microseconds=7), "Weird")),
    datetime(2024, 10, 27, 2, 30, tzinfo=PARIS, fold=1),  # the second 02:30 of the DST change
    time(23, 59, 59, 999999),
    time(1, 2, 3, tzinfo=timezone(timedelta(hours=2))),
]


@pytest.mark.parametrize("value", DATES, ids=repr)
def test_dates_and_times_round_trip_with_their_zone(value: Any) -> None:
    assert_same(round_trip(value), value)


def test_zoneinfo_keeps_its_rules() -> None:
    got = round_trip(datetime(2024, 3, 30, 12, tzinfo=PARIS))
    assert got.tzinfo is PARIS
    assert (got + timedelta(days=1)).utcoffset() == timedelta(hours=2)  # DST began in between
    assert round_trip(datetime(2024, 1, 1, tzinfo=UTC)).tzinfo is UTC


def test_bytearray_is_stored_as_bytes() -> None:
    assert_same(round_trip(bytearray(b"ab")), b"ab")


def test_registered_enums_dataclasses_round_trip() -> None:
    serde = Serializer(types=[Color, Level, Mood, Message, Point])
    value = {
        "colors": [Color.RED, Color.BLUE], "level": Level.HIGH, "mood": Mood.CALM,
        "message": Message(content=(Point(1, 2), {Color.RED}), id="m7"), "key": {Level.LOW: Point(3, 4)},
    }  # fmt: skip
    got = round_trip(value, serde)
    assert got == value
    assert got["level"] is Level.HIGH and got["mood"] is Mood.CALM  # members, not plain int / str
    assert type(got["message"].content) is tuple and got["message"].content[0].label == "1,2"
    assert set(serde.registered) >= {f"{__name__}:Color", f"{__name__}:Point"}


def test_registered_pydantic_models_round_trip() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Inner(pydantic.BaseModel):
        when: datetime
        tags: set[str]

    class Outer(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(populate_by_name=True)
        name: str = pydantic.Field(alias="displayName")
        inner: Inner
        color: Color
        pair: tuple[int, int]

    serde = Serializer(types=[Outer, Color])
    value = Outer(displayName="x", inner=Inner(when=datetime(2024, 1, 2, tzinfo=UTC), tags={"a"}),
                  color=Color.RED, pair=(1, 2))  # fmt: skip
    got = round_trip({"model": value}, serde)["model"]
    assert type(got) is Outer and got == value and type(got.inner) is Inner and got.color is Color.RED
    with pytest.raises(SerializationError, match=r"at \['m'\]: cannot store a value of type Inner"):
        Serializer().dumps({"m": value.inner})


def test_engine_types_are_always_registered() -> None:
    value = [Interrupt(value={"q": "ok?"}, id="i1"), Send("node", {"x": (1, 2)}), Command(resume="yes", goto=(Send("a", 1),))]
    got = round_trip(value)
    assert got == value and [type(v) for v in got] == [Interrupt, Send, Command]


# -- the rest fails at write, naming where ----------------------------------------------------
def test_an_unregistered_class_fails_with_its_path() -> None:
    serde = Serializer(types=[Message])
    state = {"messages": [Message("a"), Message("b"), Message("c"), Message(content=Foo())]}
    with pytest.raises(SerializationError) as err:
        serde.dumps_typed(state)
    assert str(err.value) == f"at ['messages'][3].content: cannot store a value of type Foo {HINT}"
    with pytest.raises(SerializationError) as err:
        serde.dumps_channel("messages", state["messages"])
    assert str(err.value) == f"state key 'messages' at [3].content: cannot store a value of type Foo {HINT}"


@pytest.mark.parametrize(
    ("value", "where", "type_name"),
    [
        (Foo(), "at the top level", "Foo"),
        ({"a": {Foo(): 1}}, "at ['a']<key>", "Foo"),
        ({"a": [{1, Foo()}]}, "at ['a'][0]<item>", "Foo"),
        ({"t": (1, (2, Foo()))}, "at ['t'][1][1]", "Foo"),
        ({"c": Color.RED}, "at ['c']", "Color"),  # enums must be registered too
        ({"l": Level.LOW}, "at ['l']", "Level"),  # even int-valued ones: not silently an int
        ({"p": Point(1, 2)}, "at ['p']", "Point"),
        ({"d": type("MyDict", (dict,), {})()}, "at ['d']", "MyDict"),  # no silent flattening of subclasses
        ({"f": lambda: 1}, "at ['f']", "function"),
    ],
)
def test_unstorable_values_fail_at_write(value: Any, where: str, type_name: str) -> None:
    with pytest.raises(SerializationError) as err:
        Serializer().dumps(value)
    assert str(err.value) == f"{where}: cannot store a value of type {type_name} {HINT}"


def test_cycles_and_deep_nesting_fail_at_write() -> None:
    loop: list[Any] = [1]
    loop.append({"again": loop})
    with pytest.raises(SerializationError, match=r"at \['x'\]\[1\]\['again'\]: the value contains itself"):
        Serializer().dumps({"x": loop})
    deep: Any = 1
    for _ in range(150):
        deep = (deep,)
    with pytest.raises(SerializationError, match="nested too deeply"):
        Serializer().dumps(deep)


def test_the_hot_path_does_not_walk_the_value(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    monkeypatch.setattr(serializer_module, "find_problem", lambda *a: calls.append(a))
    state = {"messages": [{"role": "user", "content": "hi"}] * 50, "n": 3, "t": (1, 2), "when": date(2024, 1, 1)}
    assert Serializer().loads(Serializer().dumps(state)) == state
    assert calls == []
    with pytest.raises(SerializationError):
        Serializer().dumps({"bad": Foo()})
    assert len(calls) == 1  # the walk is the failure path only


def test_a_failed_write_leaves_the_reused_packer_clean() -> None:
    serde = Serializer()
    with pytest.raises(SerializationError):
        serde.dumps({"x": [1, 2, {"y": Foo()}]})
    assert serde.dumps({"a": 1}) == msgpack.packb({"a": 1})


def test_register_accepts_only_enums_dataclasses_and_models() -> None:
    serde = Serializer()
    for bad in (int, Foo, Foo()):
        with pytest.raises(TypeError, match="register"):
            serde.register(bad)  # type: ignore[arg-type]
    Impostor = dataclasses.make_dataclass("Color", [("x", int)])
    Impostor.__module__, Impostor.__qualname__ = __name__, "Color"
    serde.register(Color)
    serde.register(Color)  # the same class again is fine
    with pytest.raises(ValueError, match="already registered"):
        serde.register(Impostor)


# -- codecs ---------------------------------------------------------------------------------------
class Zlib:
    name = "zlib"

    def encode(self, data: bytes) -> bytes:
        return zlib.compress(data)

    def decode(self, data: bytes) -> bytes:
        return zlib.decompress(data)


def test_a_codec_transforms_the_bytes_and_is_recorded_in_the_tag() -> None:
    plain, zipped = Serializer(), Serializer(codec=Zlib())
    value = {"text": "abc" * 1000}
    tag, data = zipped.dumps_typed(value)
    assert tag == "msgpack+zlib" and len(data) < 100 and zlib.decompress(data) == plain.dumps(value)
    assert zipped.loads_typed((tag, data)) == value
    assert zipped.loads_typed(plain.dumps_typed(value)) == value  # written before the codec was added
    with pytest.raises(CorruptCheckpointError, match="msgpack\\+zlib"):
        plain.loads_typed((tag, data))
    with pytest.raises(CorruptCheckpointError, match="could not decode"):
        zipped.loads_typed((tag, b"not zlib"))


# -- hostile bytes fail at read, and run nothing ------------------------------------------------


def ext(code: int, payload: bytes) -> bytes:
    return msgpack.packb(msgpack.ExtType(code, payload))


def registered(name: str, data: Any) -> bytes:
    return ext(Code.REGISTERED, msgpack.packb([name, data]))


class OpenOnUnpickle:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> Any:
        return (open, (self.path, "w"))


@pytest.fixture
def sentinel(tmp_path: Any) -> Any:
    """A file that exists only if stored bytes managed to run code."""
    path = tmp_path / "sentinel"
    yield path
    assert not path.exists(), "reading stored bytes ran code"


def test_the_sentinel_payloads_are_live(tmp_path: Any) -> None:
    # Proof that the pickle payload below would create the sentinel if anything executed it.
    path = tmp_path / "proof"
    pickle.loads(pickle.dumps(OpenOnUnpickle(str(path)))).close()
    assert path.exists()


def hostile_payloads(path: str) -> list[tuple[str, tuple[str, bytes], str]]:
    evil_pickle = pickle.dumps(OpenOnUnpickle(path))
    return [
        ("unknown ext code", ("msgpack", ext(99, b"")), "ext code 99"),
        ("reserved negative ext", ("msgpack", b"\xd4\xfb\x00"), "ext code -5"),
        ("os:system", ("msgpack", registered("os:system", f"touch {path}")), "'os:system'"),
        ("builtins:eval", ("msgpack", registered("builtins:eval", f"open({path!r}, 'w')")), "'builtins:eval'"),
        ("builtins:open", ("msgpack", registered("builtins:open", [path, "w"])), "'builtins:open'"),
        # {"ok": [1, <os:system ext>]}, written by hand: the ext sits deep inside plain data.
        ("nested", ("msgpack", b"\x81\xa2ok\x92\x01" + registered("os:system", "x")), "'os:system'"),
        ("pickle tag", ("pickle", evil_pickle), "unknown serialization tag 'pickle'"),
        ("pickle bytes", ("msgpack", evil_pickle), "do not decode"),
        ("pickle in ext", ("msgpack", ext(Code.TUPLE, evil_pickle)), "do not decode"),
    ]


HOSTILE = [name for name, _, _ in hostile_payloads("unused")]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_bytes_are_refused_without_running_anything(name: str, sentinel: Any) -> None:
    data, message = {n: (d, m) for n, d, m in hostile_payloads(str(sentinel))}[name]
    with pytest.raises(CorruptCheckpointError, match=re.escape(message)):
        Serializer().loads_typed(data)


@pytest.mark.parametrize(
    ("header", "what"),
    [
        (b"\xdd\x80\x00\x00\x00", "array32 of 2**31 items"),
        (b"\xdf\x80\x00\x00\x00", "map32 of 2**31 entries"),
        (b"\xdb\xff\xff\xff\xff", "str32 of 4 GiB"),
        (b"\xc6\xff\xff\xff\xff", "bin32 of 4 GiB"),
        (b"\xc9\xff\xff\xff\xff\x01", "ext32 of 4 GiB"),
        (ext(Code.TUPLE, b"\xdd\x80\x00\x00\x00"), "an array bomb inside an ext"),
    ],
)
def test_size_bombs_fail_without_allocating(header: bytes, what: str) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(CorruptCheckpointError):
            Serializer().loads(header + b"\x00" * 16)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"{what}: {peak} bytes allocated"


def test_nesting_bombs_fail_cleanly() -> None:
    nested_ext = msgpack.packb(1)
    for _ in range(5000):  # each level a tuple holding the next: would overflow the C stack
        nested_ext = ext(Code.TUPLE, b"\x91" + nested_ext)
    with pytest.raises(CorruptCheckpointError, match="nests more than"):
        Serializer().loads(nested_ext)
    with pytest.raises(CorruptCheckpointError):
        Serializer().loads(b"\x91" * 100_000 + b"\xc0")  # 100k nested arrays


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (ext(Code.DATETIME, msgpack.packb([2024, 13, 1, 0, 0, 0, 0, 0, None])), "bad stored datetime"),
        (ext(Code.DATETIME, msgpack.packb([2024, 1, 1, 0, 0, 0, 0, 0, "../../etc/passwd"])), "bad stored datetime"),
        (ext(Code.DATE, msgpack.packb(["2024", 1, 1])), "bad stored date"),
        (ext(Code.UUID, b"short"), "bad stored uuid"),
        (ext(Code.DECIMAL, b"\xff"), "bad stored decimal"),
        (ext(Code.SET, msgpack.packb([[1], [2]])), "bad stored set"),  # unhashable items
        (ext(Code.REGISTERED, msgpack.packb("just a string")), "expected [name, data]"),
        (registered(f"{__name__}:Color", "GREEN"), "no member 'GREEN'"),
        (registered(f"{__name__}:Point", {"x": 1, "y": 2, "z": 3}), "no field(s) ['z']"),
        (registered(f"{__name__}:Point", {"x": 1}), "could not rebuild"),
        (msgpack.packb([1, 2])[:-1], "do not decode"),  # truncated
        (msgpack.packb(1) + b"\x01", "do not decode"),  # trailing bytes
    ],
)
def test_malformed_payloads_are_corrupt(data: bytes, message: str) -> None:
    with pytest.raises(CorruptCheckpointError, match=re.escape(message)):
        Serializer(types=[Color, Point]).loads(data)


def test_msgpack_timestamps_decode_to_an_allowed_type() -> None:
    # msgpack decodes its own timestamp ext before any hook sees it; it yields a datetime.
    got = Serializer().loads(b"\xd6\xff\x00\x00\x00\x01")
    assert got == datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC)


def test_a_subclass_dumps_typed_without_path_prefix_is_called_as_written() -> None:
    """LangGraph's ``dumps_typed(self, obj)``: the savers' error-message prefix is dropped for it, its error is the caller's."""

    class Faulty(Serializer):
        def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
            raise ValueError("Faulty serializer")

    class Wrapped(Serializer):
        def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
            tag, data = super().dumps_typed(obj)
            return tag, data

    with pytest.raises(ValueError, match="Faulty serializer"):
        Faulty().dumps_typed(1, path_prefix="state key 'x'")
    assert Wrapped().loads_typed(Wrapped().dumps_typed({"a": 1}, path_prefix="p")) == {"a": 1}
