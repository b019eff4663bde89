"""The serializer's fast pack (msgpack's own UTF-8, no error handler) stores the same bytes as before.

A top-level pack first tries a packer without ``unicode_errors``; a str with a
lone surrogate makes it fail, and the value is packed again with
``surrogatepass`` (json_safe refuses it instead). These check that the format
did not move, that the fallback still stores such strings, and that the failed
attempt leaves nothing behind for the next pack on the thread.
"""

from __future__ import annotations

import msgpack  # type: ignore[import-untyped]
import pytest

from engine.errors import SerializationError
from engine.serde import Serializer

# What every pack was made with before the fast path (and still is, for a lone surrogate).
_OLD = msgpack.Packer(strict_types=True, use_bin_type=True, datetime=False, unicode_errors="surrogatepass")

VALUES = [
    0, "héllo ✓ 😀", {"messages": [{"role": "user", "content": "ça va"}], "n": 3},
    {"v": 4, "versions_seen": {"n0": {"branch:to:n0": 2**40 + 7}}, "updated_channels": ["n"]},
    [None, True, 1.5, b"\x00\xff", ["nested", {"k": "v"}]],
]


@pytest.mark.parametrize("value", VALUES)
def test_a_value_without_lone_surrogates_packs_to_the_same_bytes_as_before(value: object) -> None:
    _, data = Serializer().dumps_typed(value)
    assert data == _OLD.pack([value])[1:]  # the top level packed inside one list, as pack_top does
    assert Serializer().loads_typed(("msgpack", data)) == value


def test_a_lone_surrogate_is_still_stored_and_the_next_pack_is_clean() -> None:
    serde = Serializer()
    value = {"text": "a\ud800b", "items": ["ok", "x\udfff"]}
    tag, data = serde.dumps_typed(value)
    assert data == _OLD.pack([value])[1:]
    assert serde.loads_typed((tag, data)) == value
    # the fast packer failed part-way through the value above: nothing of it is left in its buffer
    assert serde.dumps_typed({"n": 1}) == Serializer().dumps_typed({"n": 1})
    assert serde.loads_typed(serde.dumps_typed("plain")) == "plain"


def test_json_safe_still_refuses_a_lone_surrogate_and_packs_on_after() -> None:
    serde = Serializer(json_safe=True)
    with pytest.raises(SerializationError, match="lone surrogate"):
        serde.dumps_typed({"x": ["ok", "a\ud800"]})
    assert serde.loads_typed(serde.dumps_typed({"x": ["ok"]})) == {"x": ["ok"]}


def test_packs_from_many_threads_at_once_are_the_bytes_of_one() -> None:
    """Top-level packers come from a pool the threads share (each takes one, gives it back)."""
    from concurrent.futures import ThreadPoolExecutor

    serde = Serializer()
    values = [{"messages": [{"role": "user", "content": "x" * (i % 50)}], "n": i, "t": (i, "tuple")} for i in range(400)]
    with ThreadPoolExecutor(8) as pool:
        packed = list(pool.map(serde.dumps_typed, values))
    assert packed == [Serializer().dumps_typed(v) for v in values]
    assert [serde.loads_typed(p) for p in packed] == values


def test_a_packer_that_packed_a_large_value_is_not_kept() -> None:
    serde = Serializer()
    serde.dumps_typed({"n": 1, "t": (1,)})  # a tuple: msgpack's packer, not ormsgpack (plain data only)
    kept = len(serde._packers)
    assert kept == 1
    big = {"blob": b"x" * (2 << 20), "t": (1,)}
    assert serde.loads_typed(serde.dumps_typed(big)) == big
    assert len(serde._packers) == kept - 1  # its buffer grew to the value's size: let go
    assert serde.dumps_typed({"n": 1, "t": (1,)}) == Serializer().dumps_typed({"n": 1, "t": (1,)})
