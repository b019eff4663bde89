"""What the wire cannot carry, refused when a value is stored (``Serializer.json_safe``).

Values cross graphwire's wire as JSON text, so a value the store can hold
but JSON cannot (NaN, an infinity, an integer longer than Python's
int-to-str limit, a string with a lone surrogate, a map key that is not a
string, nesting past :data:`~engine.serde._depth.WIRE_DEPTH` levels)
would be stored and then fail every read of its thread. A serializer
with ``json_safe`` set refuses such values at write time instead, with the
path to them, like a type outside the allowlist: nothing is stored, the
thread keeps its last version.

The check costs little on the hot path: strings are encoded strictly by
msgpack's C code (a lone surrogate fails the pack), long integers are seen
by the packer's callback anyway, and what is left is read from the packed
bytes: one regular-expression scan for floats with an all-ones exponent (the
encoding of NaN and the infinities), and, when the bytes may hold a map (or
containers nested too deep: read behind a prefix, see :mod:`engine.serde._depth`), one
unpack of them by msgpack's C code with ``strict_map_key`` (keys must be
text; an ext key such as a tuple comes back as None, which is not), about
what reading the value back costs. msgpack's strict mode lets byte-string
keys through, so when the bytes may hold one (a bin marker byte), the keys
are checked by a Python hook per map instead. A pattern may also match
inside a string's or a byte string's bytes: the slow walk of
:mod:`engine.serde._path` then decides, and finds nothing wrong.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

import msgpack  # type: ignore[import-untyped]

from engine.serde._depth import could_nest_past_wire, wire_prefix
from engine.serde._ext import Code

__all__ = ["int_too_long", "json_problem", "key_problem", "may_be_unsendable"]

# A msgpack float64 (0xcb) whose exponent bits are all ones: NaN, +inf or -inf.
_NON_FINITE = re.compile(rb"\xcb[\x7f\xff][\xf0-\xff]")
# msgpack map markers: fixmap (0x80-0x8f), map16 (0xde), map32 (0xdf); bin markers
# (0xc4-0xc6). A byte in those ranges is also many other things: they only pick a check.
_MAP_MARKER = re.compile(rb"[\x80-\x8f\xde\xdf]")
_BIN_MARKER = re.compile(rb"[\xc4-\xc6]")
_CONTAINERS = frozenset({Code.TUPLE, Code.SET, Code.FROZENSET, Code.REGISTERED})


class _BadKey(Exception):
    pass


def _pairs(pairs: list[tuple[Any, Any]]) -> None:
    for key, _ in pairs:
        if type(key) is not str:
            raise _BadKey
    return None


def _ext_strict(code: int, payload: bytes) -> None:
    if code in _CONTAINERS:
        _unpack(payload)
    return None  # as a map key, not text: strict_map_key refuses it


def _unpack(data: bytes) -> None:
    if _BIN_MARKER.search(data) is None:
        msgpack.unpackb(data, ext_hook=_ext_strict, strict_map_key=True)
    else:
        msgpack.unpackb(data, ext_hook=_ext_strict, object_pairs_hook=_pairs, strict_map_key=False)


def may_be_unsendable(data: bytes) -> bool:
    """Whether packed bytes may hold a non-finite float, a map key that is not a string, or nest too deep.

    False is certain; True means "look at the value" (:func:`json_problem`,
    and the depth the walk counts). Too deep is past :data:`~engine.serde._depth.WIRE_DEPTH`,
    found by the same unpack (see :mod:`engine.serde._depth`).
    """
    if _NON_FINITE.search(data) is not None:
        return True
    deep = could_nest_past_wire(data)
    if not deep and _MAP_MARKER.search(data) is None:
        return False
    try:
        _unpack(wire_prefix() + data if deep else data)
    except (_BadKey, ValueError):  # ValueError: strict_map_key refused a key, or StackError (too deep)
        return True
    return False


def int_too_long(value: int) -> bool:
    """Whether ``str(value)`` would fail: more digits than Python's int-to-str limit."""
    limit = sys.get_int_max_str_digits()
    if not limit or value.bit_length() < limit * 3:  # 3 bits per digit is below log2(10): surely shorter
        return False
    try:
        str(value)
    except ValueError:
        return True
    return False


def json_problem(obj: Any) -> str | None:
    """Why a native value cannot cross the wire (None: it can); containers' keys are checked by their walk."""
    t = type(obj)
    if t is float:
        return None if math.isfinite(obj) else f"{obj!r} is not a number JSON can carry; store None or a string instead"
    if t is int:
        if int_too_long(obj):
            return (
                f"an integer of {obj.bit_length()} bits is longer than the wire can carry (Python's int-to-str limit "
                f"is {sys.get_int_max_str_digits()} digits); store it as a string"
            )
        return None
    if t is str and not obj.isascii():
        try:
            obj.encode("utf-8")
        except UnicodeEncodeError:
            return "a string with a lone surrogate is not text the wire (UTF-8) can carry"
    return None


def key_problem(key: Any) -> str | None:
    """Why a map key cannot cross the wire (None: it can)."""
    if type(key) is str:
        return json_problem(key)
    return f"a key of type {type(key).__name__} cannot cross the wire: JSON's object keys are strings"
