"""Plain data packed by ormsgpack when it is installed: the same bytes as msgpack's, in a third of the time.

Plain data is msgpack's own types, exactly: dicts with text keys, lists,
text, ints of 64 bits, floats, bools, None and bytes. msgpack's C packer
(``strict_types``, UTF-8 text) and ormsgpack's pack it to the same bytes
(tests/serde/test_plain.py compares them value by value), and ormsgpack does
it about three times as fast: a version's meta of a hundred nodes in 5 µs
against 13, a one-message delta in 0.5 against 1.8 through the serializer.

graphwire does not depend on ormsgpack. LangGraph's checkpoint package does,
so it is there wherever LangGraph is, which is where a saver's put is raced
against LangGraph's own (issue 31: LangGraph on graphwire's savers no slower
per step than on its own). Without it, :func:`pack_plain` answers None and
every caller packs msgpack's way, as before.

ormsgpack is told to hand everything that is not plain to a ``default`` that
refuses it (a tuple, a subclass, an enum, a datetime, a dataclass, a UUID, an
int past 64 bits); it refuses by itself a dict key that is not text, a lone
surrogate and nesting past 255 levels (within what msgpack reads back). A
refused value costs a raised TypeError, about 2.5 µs: a caller packing
values that are often not plain (LangChain messages) should remember where
that happened (:class:`~engine.serde.Serializer` does, by state key).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

__all__ = ["FAST", "PlainPacker", "pack_plain"]

_pack: Callable[..., bytes] | None
try:
    import ormsgpack
except ImportError:  # graphwire without LangGraph: msgpack's way everywhere
    _pack, _OPTIONS = None, 0
else:
    _pack = ormsgpack.packb
    _OPTIONS = (
        ormsgpack.OPT_PASSTHROUGH_SUBCLASS | ormsgpack.OPT_PASSTHROUGH_TUPLE | ormsgpack.OPT_PASSTHROUGH_BIG_INT
        | ormsgpack.OPT_PASSTHROUGH_DATETIME | ormsgpack.OPT_PASSTHROUGH_DATACLASS | ormsgpack.OPT_PASSTHROUGH_ENUM
        | ormsgpack.OPT_PASSTHROUGH_UUID
    )  # fmt: skip

#: whether :func:`pack_plain` can pack at all (ormsgpack is installed)
FAST = _pack is not None


def _refuse(obj: Any) -> NoReturn:
    raise TypeError(type(obj).__name__)


def pack_plain(value: Any) -> bytes | None:
    """``value`` packed by ormsgpack when it is plain data, to msgpack's bytes; None when it is
    not (or ormsgpack is not installed): the caller then packs it its own way."""
    if _pack is None:
        return None
    try:
        return _pack(value, _refuse, _OPTIONS)
    except TypeError:  # not plain data (ormsgpack's MsgpackEncodeError is a TypeError)
        return None


#: msgpack's own types: a value of one refused by ormsgpack was refused for something inside it
_PLAIN_TYPES = frozenset({dict, list, str, int, float, bool, type(None), bytes})
#: how many classes a :class:`PlainPacker` remembers (cleared past it)
_NOT_PLAIN_KINDS = 1024


class PlainPacker:
    """:func:`pack_plain` for a serializer, which remembers what ormsgpack refused.

    A refusal costs more than the pack saves, so the class of a value (or of a
    list's first item) that was refused, not being plain itself (a LangChain
    message), is remembered: a value led by one is answered None at once.
    """

    __slots__ = ("_not_plain",)

    def __init__(self) -> None:
        self._not_plain: set[type] = set()

    def pack(self, value: Any) -> bytes | None:
        """``value`` packed by ormsgpack when it is plain data, else None (see the class)."""
        probe = value[0] if type(value) is list and value else value
        kind = type(probe)
        not_plain = self._not_plain
        if kind in not_plain or _pack is None:
            return None
        try:  # (pack_plain's call, made here: this is every plain write's and delta's path)
            return _pack(value, _refuse, _OPTIONS)
        except TypeError:
            pass
        if kind not in _PLAIN_TYPES:
            if len(not_plain) >= _NOT_PLAIN_KINDS:
                not_plain.clear()
            not_plain.add(kind)
        return None
