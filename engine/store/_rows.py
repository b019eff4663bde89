"""How the SQL stores put items into rows, and take them back out.

Namespaces are one text column whose order is the tuples' order and whose
prefixes are key ranges, so that listing and searching under a prefix is an
index range scan with exact comparisons (no LIKE, GLOB or regex on what a
caller sent). Labels are joined by ``\\x01``, which sorts below every other
character; a label's own ``\\x01`` and ``\\x02`` are written ``\\x02\\x02`` and
``\\x02\\x03``, which keeps both the order and the separator unambiguous. So
the namespaces under ``p`` are exactly ``enc(p)`` and the range
``[enc(p) + "\\x01", enc(p) + "\\x02")`` (compared byte by byte: SQLite's
BINARY collation, PostgreSQL's ``COLLATE "C"``).

Values are JSON text: what LangGraph's SQL stores keep, what the wire
carries, and readable with the database's own tools. A value that JSON
cannot hold exactly (a non-string key, NaN, an object) is refused at put
time, naming where it is; a row that does not decode is a
:class:`~engine.errors.CorruptItemError` naming the item.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Mapping
from typing import Any

from engine.errors import CorruptItemError
from engine.store.base._types import Item

__all__ = ["decode_ns", "dump_value", "encode_ns", "item_of", "load_value", "pack", "prefix_range", "unpack"]

_SEP = "\x01"
_MAX_DEPTH = 64


def _escape(label: str) -> str:
    return label.replace("\x02", "\x02\x03").replace("\x01", "\x02\x02")


_PAIR = re.compile("\x02(.)", re.DOTALL)
_UNPAIR = {"\x02": "\x01", "\x03": "\x02"}


def _unescape(label: str) -> str:
    return _PAIR.sub(lambda m: _UNPAIR.get(m.group(1), m.group(1)), label)


def encode_ns(namespace: tuple[str, ...]) -> str:
    """The column text of a namespace (``()`` is ``""``)."""
    return _SEP.join(_escape(label) for label in namespace)


def decode_ns(text: str) -> tuple[str, ...]:
    return tuple(_unescape(label) for label in text.split(_SEP)) if text else ()


def prefix_range(prefix: tuple[str, ...]) -> tuple[str, str, str]:
    """``(exact, low, high)``: the namespaces under ``prefix`` are ``exact`` and ``[low, high)``."""
    exact = encode_ns(prefix)
    return exact, exact + "\x01", exact + "\x02"


def _check(value: Any, where: str, depth: int) -> Any:
    """``value`` as JSON data (tuples become lists), or TypeError/ValueError naming ``where``."""
    if depth > _MAX_DEPTH:
        raise ValueError(f"{where}: nested deeper than {_MAX_DEPTH} levels")
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{where}: {value!r} is not a JSON number")
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: key {k!r} is not a string (JSON keys are strings)")
            out[k] = _check(v, f"{where}.{k}", depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_check(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    raise TypeError(f"{where}: a {type(value).__name__} is not JSON data (store values are JSON: str, number, bool, None, list, dict)")


def dump_value(namespace: tuple[str, ...], key: str, value: Mapping[str, Any]) -> str:
    """The JSON text of an item's value.

    Raises:
        TypeError / ValueError: ``value`` holds what JSON cannot (the message names the item and the path).
    """
    checked = _check(value, f"value of {namespace}/{key!r}", 0)
    return json.dumps(checked, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def load_value(namespace: tuple[str, ...], key: str, text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise CorruptItemError(f"the stored value of {namespace}/{key!r} is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise CorruptItemError(f"the stored value of {namespace}/{key!r} is not a JSON object")
    return value


def item_of(namespace: tuple[str, ...], key: str, value_text: Any, created: Any, updated: Any) -> Item:
    return Item(value=load_value(namespace, key, value_text), key=key, namespace=namespace, created_at=created, updated_at=updated)


def pack(vector: list[float]) -> bytes:
    """A vector as little-endian float64s (exact: scores equal the in-memory store's)."""
    return struct.pack(f"<{len(vector)}d", *vector)


def unpack(data: bytes) -> list[float]:
    if len(data) % 8:
        raise CorruptItemError("a stored vector is not a whole number of float64s")
    return list(struct.unpack(f"<{len(data) // 8}d", data))
