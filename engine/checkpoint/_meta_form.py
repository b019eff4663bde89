"""A checkpoint's stored meta in the SQL savers' rows: its map under one-letter keys.

The meta (``versions_seen``, ``updated_channels``, the inline entries and,
for some savers, ``channel_versions``: see :func:`engine.checkpoint._helpers.dump_meta`)
is a msgpack map in every checkpoint row; its four keys' names were 40 of a
chat's ~255 bytes. The SQL savers store it under ``s``, ``u``, ``i`` and
``c`` (``v`` stays): one dict built and one msgpack call, as before, so a put
costs what it did. (A form naming each channel and version once saved twice
as much, ~100 bytes a row, but its Python-level work per entry cost a chain
of ten nodes ~10 % more CPU per step on SQLite.) A map stored with the long
keys (before, and by the in-memory saver) reads as it did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["LONG", "SHORT", "pack", "unpack"]

#: The meta's keys (but ``v``), in the order dump_meta writes them: their names, and the SQL savers' short ones.
LONG = ("versions_seen", "updated_channels", "inline", "channel_versions")
SHORT = ("s", "u", "i", "c")
_SHORT = dict(zip(LONG, SHORT))
_LONG = dict(zip(SHORT, LONG))


def pack(meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta`` under the long keys as it is stored under the short ones (dump_meta builds it so at once)."""
    return {_SHORT.get(k, k): v for k, v in meta.items()}


def unpack(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored meta under its long keys: a short-key map renamed, a long-key one as it is.

    Raises:
        ValueError: a map holding a key in both forms.
    """
    if "s" not in stored:
        return stored
    out = {_LONG.get(k, k): v for k, v in stored.items()}
    if len(out) != len(stored):
        raise ValueError("a stored meta holds a key under both its names")
    return out
