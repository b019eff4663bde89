"""How deep a stored value may nest, checked by msgpack's C code rather than a Python walk.

Two bounds, both on how many levels below a value's top its deepest part sits:

* :func:`stored_depth` (1,023 with msgpack 1.1 and later): what msgpack
  both writes and reads back. Its packer writes anything down to 1,024
  levels, but its reader holds 1,024 containers, so an empty container
  exactly 1,024 levels down used to be stored and then never read. Each
  value's top level is packed inside one list (cut off the bytes again),
  which moves the packer's limit one level up.
* :data:`WIRE_DEPTH` (500), for a serializer that keeps to what the wire
  carries (``json_safe``, what a server sets): the wire is JSON, and
  Python's JSON encoder and decoder (the server's and a Python client's)
  recurse once per level within a recursion limit of 1,000 frames, less
  their callers' own. The check rides on the unpack the ``json_safe``
  check does anyway (:mod:`engine.serde._wire`): the bytes are read behind a
  prefix of one-item arrays, so the reader's own limit refuses a value
  nested past :data:`WIRE_DEPTH`. The prefix costs about 20 µs, so below
  16 KiB it is added only when the bytes may hold that many containers (a
  count of the bytes that can start one).

A value past the bound fails in C; the serializer's slow walk
(:mod:`engine.serde._path`) then says where. Both bounds hold for a value's
top level; the payload of an ext value inside it (a tuple, a registered
class) is packed on its own and keeps msgpack's limit, since up to
MAX_EXT_DEPTH of them nest.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]

__all__ = ["WIRE_DEPTH", "could_nest_past_wire", "pack_top", "stored_depth", "wire_prefix"]

#: The deepest part of a value a ``json_safe`` serializer stores, in levels below its top.
WIRE_DEPTH = 500

# Deeper than any msgpack's limits (a version without one would be bounded here).
_PROBE_CEILING = 4096
# Bytes that may start a msgpack container: fixmap, fixarray, array 16/32, map 16/32. Inside a
# string they are just bytes, so counting them bounds how many containers the data may hold.
_CONTAINER_BYTES = bytes([*range(0x80, 0xA0), 0xDC, 0xDD, 0xDE, 0xDF])
# Past this many bytes, counting them (about 0.7 ms a MB) costs more than reading behind the prefix.
_COUNTED = 16 * 1024


def _largest(works: Callable[[int], object]) -> int:
    """The largest n below the probe ceiling for which ``works(n)`` raises no ValueError."""
    fits, refused = 0, _PROBE_CEILING
    while refused - fits > 1:
        mid = (fits + refused) // 2
        try:
            works(mid)
        except ValueError:  # msgpack's "recursion limit exceeded" and StackError
            refused = mid
        else:
            fits = mid
    return fits


def _nest(levels: int) -> Any:
    value: Any = None
    for _ in range(levels):
        value = [value]
    return value


@functools.cache
def _limits() -> tuple[int, int]:
    """(the deepest level msgpack's packer writes, the most containers its reader nests), found once."""
    return _largest(lambda n: msgpack.packb(_nest(n))), _largest(lambda n: msgpack.unpackb(b"\x91" * n + b"\xc0"))


def stored_depth() -> int:
    """The deepest part of a value any serializer stores: msgpack writes it and reads it back."""
    packs, reads = _limits()
    return min(packs, reads - 1)  # a container at level n is the (n+1)-th the reader holds


@functools.cache
def _pad() -> int:
    """How many one-item lists :func:`pack_top` packs a value in: the packer's limit less :func:`stored_depth`."""
    return _limits()[0] - stored_depth()


def pack_top(pack: Callable[[Any], bytes], value: Any) -> bytes:
    """``pack(value)``, refused by msgpack (ValueError) when a part of ``value`` sits past :func:`stored_depth`."""
    pad = _pad()  # found once: every value stored (a step's several) comes through here
    if pad == 1:  # msgpack 1.1 and later
        return pack([value])[1:]
    if not pad:
        return pack(value)
    for _ in range(pad):
        value = [value]
    return pack(value)[pad:]  # one 0x91 byte per level


def could_nest_past_wire(data: bytes) -> bool:
    """Whether packed ``data`` may hold containers nested past :data:`WIRE_DEPTH` (False is certain)."""
    n = len(data)
    if n <= WIRE_DEPTH:  # each container takes a byte at least
        return False
    if n > _COUNTED:  # counting would cost more than the prefix does
        return True
    return n - len(data.translate(None, _CONTAINER_BYTES)) > WIRE_DEPTH


def wire_prefix() -> bytes:
    """Put before packed data, makes msgpack's reader refuse it when its containers nest past :data:`WIRE_DEPTH`."""
    return b"\x91" * (_limits()[1] - WIRE_DEPTH)
