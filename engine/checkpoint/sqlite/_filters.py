"""The SQLite saver's list filters and key ranges: pure functions of a request, no connection."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engine.checkpoint._helpers import load_metadata, metadata_matches, reading
from engine.checkpoint.sqlite import _queries as q

__all__ = ["matches", "metadata_clause", "prefix_end"]

# Integers SQLite and Python compare identically (doubles hold them exactly).
_EXACT_INT = 2**53


def prefix_end(prefix: str) -> str | None:
    """The smallest string above every string that starts with ``prefix`` (None: no bound).

    SQLite compares TEXT by its UTF-8 bytes, which orders like code points, so
    ``thread_id >= prefix AND thread_id < end`` is exactly "starts with prefix"
    and reads a range of the primary key (LIKE would need escaping of % and _).
    """
    while prefix and prefix[-1] == chr(0x10FFFF):
        prefix = prefix[:-1]
    if not prefix:
        return None
    following = ord(prefix[-1]) + 1
    if 0xD800 <= following <= 0xDFFF:  # surrogates are not text: the next code point after them
        following = 0xE000
    return prefix[:-1] + chr(following)


def matches(row: Sequence[Any], wanted: Mapping[str, Any]) -> bool:
    """Whether a listed row's metadata matches the filter exactly (decoding it as hostile)."""
    with reading(row[0], row[2]):
        return metadata_matches(load_metadata(row[7], keep_run=True), wanted)


def metadata_clause(key: str, value: Any) -> tuple[str, tuple[Any, ...]] | None:
    """The SQL test of one filter key, or None when only Python can test it exactly.

    Keys that JSON would escape (quotes, backslashes, control characters)
    cannot be spelled in an SQLite JSON path; big numbers and containers do
    not compare in SQL exactly as in Python. Those are checked after reading.
    """
    if json.dumps(key, ensure_ascii=False)[1:-1] != key:
        return None
    if value is None:
        return q.META_IS_NULL, (key,)
    if type(value) is str:
        return q.META_IS_TEXT, (key, key, value)
    if type(value) is bool:  # JSON's true/false, never the numbers 1/0
        return q.META_IS_BOOL, (key, "true" if value else "false")
    if type(value) in (int, float) and -_EXACT_INT <= value <= _EXACT_INT:
        return q.META_EQUALS, (key, key, value)
    return None
