"""Time-ordered ids, as LangGraph's savers make them (``langgraph.checkpoint.base.id``).

A checkpoint's id is a UUID version 6: its 60-bit time first, so ids sort as
their versions were made. Programs that put versions by hand (tests of a
saver, an import) make them with :func:`uuid6`, often with a ``clock_seq`` of
their own to tell steps apart.
"""

from __future__ import annotations

import random
import uuid

from engine._internal._ids import v6_int

__all__ = ["UUID", "uuid6"]

#: 100-ns ticks between the Gregorian epoch (UUID time's) and the Unix epoch
_GREGORIAN = 0x01B21DD213814000


class UUID(uuid.UUID):
    """A :class:`uuid.UUID` whose ``time`` reads a version 6's layout (the standard library reads
    every version as a version 1's) and which tells its time in Unix nanoseconds."""

    __slots__ = ()

    @property
    def time(self) -> int:
        """The 60-bit timestamp: 100-ns ticks since 1582-10-15 (as for a version 1)."""
        if self.version == 6:
            return ((self.int >> 80) << 12) | ((self.int >> 64) & 0x0FFF)
        return super().time

    @property
    def unix_ns(self) -> int:
        """When the id was made, in nanoseconds since the Unix epoch (versions 1 and 6)."""
        return (self.time - _GREGORIAN) * 100


def uuid6(node: int | None = None, clock_seq: int | None = None) -> UUID:
    """A new UUID version 6, later than every one this process made before.

    Args:
        node: its last 48 bits (default: random).
        clock_seq: its 14-bit clock sequence (default: random).
    """
    if node is None:
        node = random.getrandbits(48)
    if clock_seq is None:
        clock_seq = random.getrandbits(14)
    return UUID(int=v6_int(node, clock_seq))
