"""A version's time as the SQL savers store it: as an offset from the time its id holds, when it can be.

A checkpoint id made by the engine or by LangGraph is time-ordered (UUID
version 6: its first 60 bits are the time it was made, in 100 ns steps), and
the version's ``ts`` (ISO 8601 in UTC, as ``datetime.isoformat()`` writes it)
is taken a few microseconds later. Stored as text, ``ts`` was 32 bytes of
every checkpoint row; stored as ``@`` and the microseconds after the id's
time (``@12``), 3 or 4. A write stores the short form only when reading it
gives back exactly the ``ts`` it was handed; any other ``ts`` is stored as
it is, and one that starts with ``@`` or ``~`` (which no clock writes) is
stored behind a ``~``, so every text reads back as it was given.

Rows written before hold the full text (a ``ts`` starting with ``@`` or ``~``
there, which none of the engine's or LangGraph's clocks writes, would read
differently).
"""

from __future__ import annotations

from typing import Any

from engine._internal._ids import iso_of

__all__ = ["read_ts", "stored_ts"]

#: The UUID epoch (1582-10-15) in 100 ns steps before the Unix epoch.
_GREGORIAN = 0x01B21DD213814000
#: Offsets stored short: within a second of the id's time.
_MAX_OFFSET = 1_000_000


def _micros_of(checkpoint_id: str) -> int | None:
    """The microseconds since the Unix epoch a version-6 UUID's text holds, or None for another id."""
    if len(checkpoint_id) != 36 or checkpoint_id[14] != "6" or checkpoint_id[8] != "-" or checkpoint_id[13] != "-":
        return None
    try:
        steps = int(checkpoint_id[0:8] + checkpoint_id[9:13] + checkpoint_id[15:18], 16)
    except ValueError:
        return None
    return (steps - _GREGORIAN) // 10


def stored_ts(checkpoint_id: str, ts: Any) -> Any:
    """``ts`` as a SQL saver stores it (see the module docstring). Every put comes here: the common
    case (``ts`` in the second its id was made, with a fraction) costs one :func:`iso_of`."""
    if type(ts) is not str:
        return ts  # refused where it is checked
    if ts[:1] in ("@", "~"):
        return "~" + ts
    at = _micros_of(checkpoint_id)
    if at is None or len(ts) != 32 or not ts.endswith("+00:00"):
        return ts
    made = iso_of(at * 1000)
    if ts[:20] == made[:20] and len(made) == 32 and ts[20:26].isdigit() and ts[20:26] != "000000":
        return f"@{int(ts[20:26]) - int(made[20:26])}"  # reads back as ts: the same second, another fraction
    for offset in (int(ts[20:26]) - at % 1_000_000 + 1_000_000, int(ts[20:26]) - at % 1_000_000 - 1_000_000):
        if ts[20:26].isdigit() and -_MAX_OFFSET < offset < _MAX_OFFSET and iso_of((at + offset) * 1000) == ts:
            return f"@{offset}"  # the next second, or the one before
    return ts


def read_ts(checkpoint_id: Any, stored: Any) -> Any:
    """The ``ts`` a stored one stands for (a value of another type is left for the read to refuse)."""
    if type(stored) is not str or stored[:1] not in ("@", "~"):
        return stored
    if stored[0] == "~":
        return stored[1:]
    at = _micros_of(checkpoint_id) if type(checkpoint_id) is str else None
    try:
        offset = int(stored[1:])
    except ValueError:
        return stored
    if at is None or not -_MAX_OFFSET < offset < _MAX_OFFSET:
        return stored
    return iso_of((at + offset) * 1000)
