"""Stored blob rows and the read replay of their delta chains, for every saver.

A blob row is either *full* (``base`` is None, ``seq`` 0: the value itself)
or a *delta* (``base`` names an older version of the same channel, ``seq`` >
0 is its position in the append run, and the row holds the list items
appended to the base's value). How deltas are chosen is
:mod:`engine.checkpoint._delta`'s job; this module rebuilds values from rows.

Reads fetch a version's whole chain in one query (a recursive CTE in SQL)
and decode each row once; :class:`ChainReader` keeps decoded rows for the
duration of one ``alist`` call, so rebuilding a history of ``n`` versions
decodes ``n`` rows, not ``n²``. It decodes a row when a value needs it, not
when the row is fetched, so a row that fails to decode fails the read of the
checkpoint that needs it, and the saver can name that checkpoint.

Stored rows are hostile
-----------------------

Every column of a row is checked before the row is used, and a row out of
range fails (with :class:`~engine.errors.CorruptCheckpointError`, DATA_LOSS
to a gRPC caller) the reads that need it, never anything else: the channel
and type are strings, the data bytes, the version an integer, a full row has
``seq`` 0 and a delta a ``seq`` in ``1..MAX_SEQ`` and an integer ``base``.
Those rules are what the writer's arithmetic needs to terminate
(:func:`base_seq` on a seq below 1 would loop forever). A walk down a chain
is bounded by the rows read: bases that loop are refused. (Neither versions
nor seqs need descend along a chain: a delta's base may be on another
branch of a forked thread, with a higher version.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import CorruptCheckpointError
from engine.serde import Serializer

__all__ = ["EMPTY", "MAX_SEQ", "BlobRow", "ChainReader", "Known", "Link", "base_seq"]

# Type tag of a blob recording that a channel has no value at that version
# (it was cleared); such blobs are skipped when channel values are rebuilt.
EMPTY = "empty"

#: The largest run position stored (PostgreSQL's ``seq`` is an ``integer``);
#: a run that would pass it starts again with a full value.
MAX_SEQ = 2**31 - 1

_MISSING: Any = object()
_UNREAD: Any = object()


@dataclass(frozen=True, slots=True)
class BlobRow:
    """One stored ``(channel, version)``: a full value (``base`` None) or a delta on ``base``."""

    channel: str
    version: int
    type: str
    data: bytes
    base: int | None = None
    seq: int = 0


@dataclass(frozen=True, slots=True)
class Link:
    """One version on a chain: its run position, version, the list's length there,
    and the stored bytes of its chain (this row and every row below it)."""

    seq: int
    version: int
    length: int
    size: int = 0


@dataclass(slots=True)
class Known:
    """What storage holds for one channel at one version, as far as a saver knows."""

    version: int
    items: list[Any]  # a shallow copy: the list as stored, whatever happens to the original
    chain: tuple[Link, ...]  # chain[0] is this version; then its bases, down to the run's full value


def base_seq(seq: int, fanout: int) -> int:
    """The run position a delta at ``seq`` (``1..MAX_SEQ``) is based on (see :mod:`engine.checkpoint._delta`).

    Raises:
        ValueError: ``seq`` below 1 (there is no base to find: the loop would never end).
    """
    if seq < 1:
        raise ValueError(f"a delta's run position is >= 1, got {seq}")
    span = 1
    while seq % (span * fanout) == 0:  # ends: span * fanout <= seq at every turn
        span *= fanout
    return seq - span


@dataclass(slots=True)
class _Segment:
    base: int | None
    seq: int
    tag: str
    data: bytes  # as stored; decoded into value on first use
    value: Any = _UNREAD  # the full value, or the appended items of a delta; _MISSING for EMPTY
    problem: str | None = None  # why the row is out of range (it fails every read that needs it)


def _is_int(x: Any) -> bool:
    return type(x) is int


def _problem(tag: Any, data: Any, base: Any, seq: Any, version: int) -> str | None:
    """What is out of range in a stored row's columns (None: nothing)."""
    if type(tag) is not str:
        return f"its type tag is a {type(tag).__name__}, not text"
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return f"its data is a {type(data).__name__}, not bytes"
    if not _is_int(seq):
        return f"its seq is {seq!r:.40}, not an integer"
    if base is None:
        return None if seq == 0 else f"a full value with seq {seq} (a full value has seq 0)"
    if not _is_int(base):
        return f"its base version is {base!r:.40}, not an integer"
    if not 1 <= seq <= MAX_SEQ:
        return f"a delta with seq {seq} (a delta has seq 1..{MAX_SEQ})"
    return None


@dataclass(slots=True)
class ChainReader:
    """Blob rows of one read (one ``get_tuple``, or one whole ``alist``).

    Feed it rows with :meth:`add`; ask it for values with :meth:`value`.
    Each row is decoded once, when a value first needs it, however many
    versions share it; a row that does not decode, or is out of range, fails
    that value's read.
    """

    serde: Serializer
    _segments: dict[tuple[str, int], _Segment] = field(default_factory=dict)

    def has(self, channel: str, version: int) -> bool:
        return (channel, version) in self._segments

    def missing(self, versions: Mapping[str, int]) -> dict[str, int]:
        """The ``(channel, version)`` pairs not read yet."""
        return {ch: v for ch, v in versions.items() if (ch, v) not in self._segments}

    def known_pairs(self) -> tuple[list[str], list[int]]:
        """Every ``(channel, version)`` read so far, as two lists (for SQL's stop set)."""
        keys = list(self._segments)
        return [ch for ch, _ in keys], [v for _, v in keys]

    def add(self, channel: Any, version: Any, tag: Any, data: Any, base: Any, seq: Any) -> None:
        """Take one stored row (once: a row already read is skipped); it is decoded when first needed.

        A row whose key columns are not a text channel and an integer version
        cannot be what any checkpoint names: it is left out (a checkpoint
        naming that version then finds no row, and fails to read).
        """
        if type(channel) is not str or not _is_int(version) or (channel, version) in self._segments:
            return
        problem = _problem(tag, data, base, seq, version)
        if problem is not None:
            self._segments[(channel, version)] = _Segment(None, 0, "", b"", problem=problem)
            return
        self._segments[(channel, version)] = _Segment(base, seq, tag, bytes(data))

    def _decoded(self, channel: str, version: int, seg: _Segment) -> Any:
        """The row's value, decoded on first use (``_MISSING`` for EMPTY)."""
        value = seg.value
        if value is _UNREAD:
            try:
                value = _MISSING if seg.tag == EMPTY else self.serde.loads_typed((seg.tag, seg.data))
            except CorruptCheckpointError as exc:
                raise CorruptCheckpointError(f"channel {channel!r} version {version}: {exc}") from exc
            if seg.base is not None and (value is _MISSING or value.__class__ is not list):
                raise CorruptCheckpointError(f"channel {channel!r} version {version}: a delta that is not a list")
            seg.value = value
        return value

    def size(self, channel: str, version: int) -> int | None:
        """The stored bytes of ``version``'s row and of every row down its delta chain (None: not read)."""
        path = self._path(channel, version)
        return None if path is None else sum(len(seg.data) for _, seg in path)

    def _path(self, channel: str, version: int) -> list[tuple[int, _Segment]] | None:
        """The chain of ``version`` from the version itself down to its full value, or None.

        Bounded by the rows read: a walk longer than that has come round to a
        row again (stored bases that loop), and is refused.
        """
        path: list[tuple[int, _Segment]] = []
        v: int | None = version
        while v is not None:
            seg = self._segments.get((channel, v))
            if seg is None:
                return None if not path else _broken(channel, version, v)
            if seg.problem is not None:
                raise CorruptCheckpointError(f"channel {channel!r} version {v}: stored row out of range: {seg.problem}")
            if len(path) >= len(self._segments):  # more steps than rows read: a row came round again
                raise CorruptCheckpointError(f"channel {channel!r} version {version}: its delta chain loops")
            path.append((v, seg))
            v = seg.base
        return path

    def value(self, channel: str, version: int) -> Any:
        """The channel's value at ``version`` (``_MISSING`` for an EMPTY row).

        A rebuilt list is a new list, but its items are shared with other
        values rebuilt by the same reader (one ``alist``): treat read values
        as read-only, as every checkpoint returned by a saver.

        Raises:
            KeyError: no row was read for ``version``.
            CorruptCheckpointError: its chain is broken, out of range, or not made of lists.
        """
        path = self._path(channel, version)
        if path is None:
            raise KeyError((channel, version))
        root_version, root_seg = path[-1]
        root = self._decoded(channel, root_version, root_seg)
        if len(path) == 1:
            return root
        if root is _MISSING or root.__class__ is not list:
            raise CorruptCheckpointError(f"channel {channel!r} version {version}: a delta on a value that is not a list")
        out = list(root)
        for v, seg in reversed(path[:-1]):
            out.extend(self._decoded(channel, v, seg))
        return out

    def values(self, versions: Mapping[str, int]) -> dict[str, Any]:
        """Channel values at ``versions``, in that order, skipping channels whose row is EMPTY.

        Raises:
            CorruptCheckpointError: a version names a value no row holds (every put
                stores a row, EMPTY included, for each version it names), or a
                chain is broken: answering without the channel would be wrong.
        """
        out: dict[str, Any] = {}
        for channel, version in versions.items():
            try:
                value = self.value(channel, version)
            except KeyError:
                raise CorruptCheckpointError(f"channel {channel!r} version {version}: no row holds its value") from None
            if value is not _MISSING:
                out[channel] = value
        return out

    def known(self, channel: str, version: int) -> Known | None:
        """A cache entry for a list value read at ``version`` (None for other values)."""
        path = self._path(channel, version)
        if path is None:
            return None
        root = self._decoded(channel, *path[-1])
        if root is _MISSING or root.__class__ is not list:
            return None
        length, size, links = len(root), 0, []
        for v, seg in reversed(path):
            if seg.base is not None:
                length += len(self._decoded(channel, v, seg))
            size += len(seg.data)
            links.append(Link(seg.seq, v, length, size))
        links.reverse()
        return Known(version, self.value(channel, version), tuple(links))


def _broken(channel: str, version: int, missing: int) -> Any:
    raise CorruptCheckpointError(
        f"channel {channel!r} version {version}: its delta chain needs version {missing}, which is not stored"
    )
