"""Stored blob rows and the read replay of their delta chains, for every saver.

A blob row is either *full* (``base`` is None, ``seq`` 0: the value itself)
or a *delta* (``base`` names an older version of the same channel, ``seq`` >
0 is its position in the append run, and the row holds the list items
appended to the base's value). How deltas are chosen is
:mod:`engine.checkpoint._delta`'s job; this module rebuilds values from rows.

A row may instead carry a :class:`Ref`: the ``(ns, channel, version)`` of
another row of the thread, in another namespace or channel, whose list it
extends (a subgraph's first value of its parent's conversation), or whose
list a dict of it extends under one key (a subgraph's input). A pending write
may carry one too (:mod:`engine.checkpoint._writes`). So a chain may pass
from a subgraph's namespace into its parent's, and rows are keyed by
namespace as well as channel and version.

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
branch of a forked thread, with a higher version.) A ref's columns are text,
text and an integer (and a text or NULL key); a row naming both a base and
a ref, or a dict ref anywhere but at the top of a chain, is out of range.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.errors import CorruptCheckpointError
from engine.serde import Serializer

__all__ = ["EMPTY", "ITEMS", "MAX_SEQ", "STORE_MIN", "ZLIB", "BlobRow", "compressed", "uncompressed", "ChainReader", "Key", "Known", "Link", "Ref", "base_seq"]

# Type tag of a blob recording that a channel has no value at that version
# (it was cleared); such blobs are skipped when channel values are rebuilt.
EMPTY = "empty"

#: Type tag of a pending write (or a pack's item, see :mod:`engine.checkpoint._writes`)
#: whose value is the items the row its ref names holds itself (not the list rebuilt
#: there): a step's write that the next version stores again as its delta. Its data is empty.
ITEMS = "graphwire:items"

#: The largest run position stored (PostgreSQL's ``seq`` is an ``integer``);
#: a run that would pass it starts again with a full value.
MAX_SEQ = 2**31 - 1

#: Prefix of the type tag of a row whose data is zlib-compressed (the rest is the
#: serializer's tag). The writer compresses the rows that gather many steps' items
#: (a delta at a multiple of the fan-out: the items of K steps, or K² …), which a
#: chat stores a second time beside the one-step deltas; rows written before keep
#: their plain tags and read as before.
ZLIB = "zlib+"
#: Smaller rows are never compressed (zlib's header and the CPU are not worth it).
COMPRESS_MIN = 1024
#: The SQL savers store every blob row and pending write of this many bytes or more
#: compressed when that saves a tenth (:func:`compressed` with ``least``): a chat's
#: messages, stored as a step's write and as the next version's delta, are text.
STORE_MIN = 256

_MISSING: Any = object()
_UNREAD: Any = object()


def compressed(tag: str, data: bytes, least: int = COMPRESS_MIN) -> tuple[str, bytes]:
    """``(tag, data)`` as stored: zlib-compressed (tag :data:`ZLIB` + ``tag``) when ``data`` has
    ``least`` bytes or more and that saves a tenth or more (data compressed already stays as it is)."""
    if len(data) < least or tag == EMPTY or tag.startswith(ZLIB):
        return tag, data
    packed = zlib.compress(data, 6)
    if len(packed) * 10 > len(data) * 9:
        return tag, data
    return ZLIB + tag, packed


def uncompressed(tag: str, data: bytes) -> tuple[str, bytes]:
    """A stored row's ``(tag, data)`` as the serializer wrote them (see :func:`compressed`).

    Raises:
        zlib.error: compressed data that does not decompress.
    """
    if tag.startswith(ZLIB):
        return tag[len(ZLIB) :], zlib.decompress(data)
    return tag, data


@dataclass(frozen=True, slots=True)
class Ref:
    """Another row of the thread whose list value a row (or a pending write) extends.

    ``key`` None: the row's value is that list followed by the row's items.
    ``key`` set: the row's value is a dict whose ``key`` entry is that list
    followed by the items the row's dict holds there (a subgraph's input:
    ``{"messages": [...the parent's conversation...], ...}``).
    """

    ns: str
    channel: str
    version: int
    key: str | None = None


class BlobRow(NamedTuple):  # a tuple: one is made per stored row, on every put
    """One stored ``(channel, version)``: a full value (``base`` and ``ref`` None),
    a delta on ``base`` (the same namespace and channel), or one on ``ref``."""

    channel: str
    version: int
    type: str
    data: bytes
    base: int | None = None
    seq: int = 0
    ref: Ref | None = None


class Link(NamedTuple):
    """One version on a chain: its run position, version, the list's length there,
    the stored bytes of its chain (this row and every row below it), and where
    the row is (a chain may pass into another namespace or channel of the thread)."""

    seq: int
    version: int
    length: int
    size: int
    ns: str
    channel: str


@dataclass(slots=True)
class Known:
    """What storage holds for one channel at one version, as far as a saver knows."""

    version: int
    items: list[Any]  # a shallow copy: the list as stored, whatever happens to the original
    chain: tuple[Link, ...]  # chain[0] is this version; then its bases, down to the run's full value
    #: False while the put that stores it is planned but not committed (a batch in
    #: flight): only its own batch may build on it, not other namespaces' puts.
    committed: bool = True


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


Key = tuple[str, str, int]  # (namespace, channel, version) of a blob row


@dataclass(slots=True)
class _Segment:
    base: Key | None  # the row this one extends (a delta's base, or its ref), None for a full value
    key: str | None  # a dict ref's key (see Ref)
    seq: int
    tag: str
    data: bytes  # as stored; decoded into value on first use
    value: Any = _UNREAD  # the full value, or the appended items of a delta; _MISSING for EMPTY
    problem: str | None = None  # why the row is out of range (it fails every read that needs it)


def _is_int(x: Any) -> bool:
    return type(x) is int


def _ref_problem(ref: tuple[Any, Any, Any, Any]) -> str | None:
    """What is out of range in a row's ref columns ``(ns, channel, version, key)`` (None: nothing)."""
    ns, channel, version, key = ref
    if type(ns) is not str or type(channel) is not str or not _is_int(version):
        return f"its ref ({ns!r:.40}, {channel!r:.40}, {version!r:.40}) is not text, text and an integer"
    if key is not None and type(key) is not str:
        return f"its ref key is {key!r:.40}, not text"
    return None


def _problem(tag: Any, data: Any, base: Any, seq: Any, ref: tuple[Any, Any, Any, Any] | None) -> str | None:
    """What is out of range in a stored row's columns (None: nothing)."""
    if type(tag) is not str:
        return f"its type tag is a {type(tag).__name__}, not text"
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return f"its data is a {type(data).__name__}, not bytes"
    if not _is_int(seq):
        return f"its seq is {seq!r:.40}, not an integer"
    if ref is not None:
        if base is not None:
            return "it names both a base version and a ref"
        problem = _ref_problem(ref)
        if problem is not None:
            return problem
        if ref[3] is not None:
            return None if seq == 0 else f"a dict ref with seq {seq} (a dict ref has seq 0)"
        return None if 1 <= seq <= MAX_SEQ else f"a ref with seq {seq} (a list ref has seq 1..{MAX_SEQ})"
    if base is None:
        return None if seq == 0 else f"a full value with seq {seq} (a full value has seq 0)"
    if not _is_int(base):
        return f"its base version is {base!r:.40}, not an integer"
    if not 1 <= seq <= MAX_SEQ:
        return f"a delta with seq {seq} (a delta has seq 1..{MAX_SEQ})"
    return None


def _ref_of(ref_ns: Any, ref_channel: Any, ref_version: Any, ref_key: Any) -> tuple[Any, Any, Any, Any] | None:
    """A row's ref columns as one tuple, or None when the row has none (all four NULL)."""
    if ref_ns is None and ref_channel is None and ref_version is None and ref_key is None:
        return None
    return (ref_ns, ref_channel, ref_version, ref_key)


def _where(key: Key) -> str:
    ns, channel, version = key
    return f"channel {channel!r} version {version}" + (f" in namespace {ns!r}" if ns else "")


@dataclass(slots=True)
class ChainReader:
    """Blob rows of one read (one ``get_tuple``, or one whole ``alist``) of one thread.

    Feed it rows with :meth:`add`; ask it for values with :meth:`value`.
    Each row is decoded once, when a value first needs it, however many
    versions share it; a row that does not decode, or is out of range, fails
    that value's read. Rows are keyed by namespace, channel and version (a
    subgraph's chain may pass into its parent's rows); ``ns`` defaults to the
    root namespace.
    """

    serde: Serializer
    _segments: dict[Key, _Segment] = field(default_factory=dict)

    def has(self, channel: str, version: int, ns: str = "") -> bool:
        return (ns, channel, version) in self._segments

    def missing(self, versions: Mapping[str, int], ns: str = "") -> dict[str, int]:
        """The ``(channel, version)`` pairs of namespace ``ns`` not read yet."""
        return {ch: v for ch, v in versions.items() if (ns, ch, v) not in self._segments}

    def known_keys(self) -> list[Key]:
        """Every ``(ns, channel, version)`` read so far (for SQL's stop set)."""
        return list(self._segments)

    def add(
        self,
        channel: Any,
        version: Any,
        tag: Any,
        data: Any,
        base: Any,
        seq: Any,
        *,
        ns: Any = "",
        ref_ns: Any = None,
        ref_channel: Any = None,
        ref_version: Any = None,
        ref_key: Any = None,
    ) -> None:
        """Take one stored row (once: a row already read is skipped); it is decoded when first needed.

        A row whose key columns are not a text namespace and channel and an
        integer version cannot be what any checkpoint names: it is left out
        (a checkpoint naming that version then finds no row, and fails to read).
        """
        if type(ns) is not str or type(channel) is not str or not _is_int(version):
            return
        key = (ns, channel, version)
        if key in self._segments:
            return
        ref = _ref_of(ref_ns, ref_channel, ref_version, ref_key)
        problem = _problem(tag, data, base, seq, ref)
        if problem is None and tag.startswith(ZLIB):
            try:  # the row as written: sizes and decoding see the serializer's bytes
                tag, data = uncompressed(tag, bytes(data))
            except zlib.error as exc:
                problem = f"its compressed data does not decompress ({exc})"
        if problem is not None:
            self._segments[key] = _Segment(None, None, 0, "", b"", problem=problem)
            return
        if ref is not None:
            self._segments[key] = _Segment((ref[0], ref[1], ref[2]), ref[3], seq, tag, bytes(data))
        else:
            self._segments[key] = _Segment(None if base is None else (ns, channel, base), None, seq, tag, bytes(data))

    def _decoded(self, key: Key, seg: _Segment) -> Any:
        """The row's value, decoded on first use (``_MISSING`` for EMPTY)."""
        value = seg.value
        if value is _UNREAD:
            try:
                value = _MISSING if seg.tag == EMPTY else self.serde.loads_typed((seg.tag, seg.data))
            except CorruptCheckpointError as exc:
                raise CorruptCheckpointError(f"{_where(key)}: {exc}") from exc
            if seg.base is not None:
                want = list if seg.key is None else dict
                if value is _MISSING or value.__class__ is not want:
                    raise CorruptCheckpointError(f"{_where(key)}: a delta that is not a {want.__name__}")
                if seg.key is not None and (not isinstance(value, dict) or value.get(seg.key, _MISSING).__class__ is not list):
                    raise CorruptCheckpointError(f"{_where(key)}: a dict ref whose {seg.key!r} is not a list")
            seg.value = value
        return value

    def size(self, channel: str, version: int, ns: str = "") -> int | None:
        """The stored bytes of ``version``'s row and of every row down its delta chain (None: not read)."""
        path = self._path((ns, channel, version))
        return None if path is None else sum(len(seg.data) for _, seg in path)

    def _path(self, key: Key) -> list[tuple[Key, _Segment]] | None:
        """The chain of ``key`` from the row itself down to its full value, or None when the row was not read.

        Bounded by the rows read: a walk longer than that has come round to a
        row again (stored bases that loop), and is refused. Only the first row
        may be a dict ref: a chain's other rows are lists.
        """
        path: list[tuple[Key, _Segment]] = []
        k: Key | None = key
        while k is not None:
            seg = self._segments.get(k)
            if seg is None:
                return None if not path else _broken(key, k)
            if seg.problem is not None:
                raise CorruptCheckpointError(f"{_where(k)}: stored row out of range: {seg.problem}")
            if len(path) >= len(self._segments):  # more steps than rows read: a row came round again
                raise CorruptCheckpointError(f"{_where(key)}: its delta chain loops")
            if path and seg.key is not None:
                raise CorruptCheckpointError(f"{_where(key)}: a delta on a dict ref, not on a list")
            path.append((k, seg))
            k = seg.base
        return path

    def value(self, channel: str, version: int, ns: str = "") -> Any:
        """The channel's value at ``version`` (``_MISSING`` for an EMPTY row).

        A rebuilt list is a new list, but its items are shared with other
        values rebuilt by the same reader (one ``alist``): treat read values
        as read-only, as every checkpoint returned by a saver.

        Raises:
            KeyError: no row was read for ``version``.
            CorruptCheckpointError: its chain is broken, out of range, or not made of lists.
        """
        key = (ns, channel, version)
        path = self._path(key)
        if path is None:
            raise KeyError(key)
        return self._rebuild(key, path)

    def _rebuild(self, key: Key, path: list[tuple[Key, _Segment]]) -> Any:
        root_key, root_seg = path[-1]
        root = self._decoded(root_key, root_seg)
        if len(path) == 1:
            return root
        if root is _MISSING or root.__class__ is not list:
            raise CorruptCheckpointError(f"{_where(key)}: a delta on a value that is not a list")
        head_key, head = path[0]
        out = list(root)
        for k, seg in reversed(path[1:-1] if head.key is not None else path[:-1]):
            out.extend(self._decoded(k, seg))
        if head.key is None:
            return out
        value = dict(self._decoded(head_key, head))
        value[head.key] = out + value[head.key]
        return value

    def values(self, versions: Mapping[str, int], ns: str = "") -> dict[str, Any]:
        """Channel values at ``versions`` in namespace ``ns``, in that order, skipping channels whose row is EMPTY.

        Raises:
            CorruptCheckpointError: a version names a value no row holds (every put
                stores a row, EMPTY included, for each version it names), or a
                chain is broken: answering without the channel would be wrong.
        """
        out: dict[str, Any] = {}
        for channel, version in versions.items():
            try:
                value = self.value(channel, version, ns)
            except KeyError:
                raise CorruptCheckpointError(f"{_where((ns, channel, version))}: no row holds its value") from None
            if value is not _MISSING:
                out[channel] = value
        return out

    def resolve(self, tag: Any, data: Any, ref: tuple[Any, Any, Any, Any] | None) -> Any:
        """A stored pending write's value: its data, or, with a ref, the list it extends (see :class:`Ref`).

        Raises:
            CorruptCheckpointError: the data does not decode, the ref's columns
                are out of range, its row was not read, or it is not a list.
        """
        if ref is None:
            if tag == ITEMS:
                raise CorruptCheckpointError("stored pending write: it repeats a row it does not name")
            return self.serde.loads_typed((tag, data))
        problem = _ref_problem(ref)
        if problem is not None:
            raise CorruptCheckpointError(f"stored pending write out of range: {problem}")
        ns, channel, version, key = ref
        if tag == ITEMS:
            return self._items((ns, channel, version), key)
        try:
            base = self.value(channel, version, ns)
        except KeyError:
            raise CorruptCheckpointError(
                f"stored pending write: it extends {_where((ns, channel, version))}, which is not stored"
            ) from None
        value = self.serde.loads_typed((tag, data))
        if base is _MISSING or base.__class__ is not list:
            raise CorruptCheckpointError(f"stored pending write: it extends {_where((ns, channel, version))}, not a list")
        if key is None:
            if value.__class__ is not list:
                raise CorruptCheckpointError("stored pending write: a delta that is not a list")
            return base + value
        if value.__class__ is not dict or value.get(key, _MISSING).__class__ is not list:
            raise CorruptCheckpointError(f"stored pending write: a dict ref whose {key!r} is not a list")
        out = dict(value)
        out[key] = base + value[key]
        return out

    def _items(self, key: Key, ref_key: Any) -> list[Any]:
        """The items row ``key`` holds itself (an :data:`ITEMS` write's value): a new list.

        Raises:
            CorruptCheckpointError: the row was not read, is out of range, is a dict ref, or holds no list.
        """
        seg = self._segments.get(key)
        if seg is None:
            raise CorruptCheckpointError(f"stored pending write: it repeats {_where(key)}, which is not stored")
        if seg.problem is not None:
            raise CorruptCheckpointError(f"{_where(key)}: stored row out of range: {seg.problem}")
        value = None if ref_key is not None or seg.key is not None else self._decoded(key, seg)
        if value is None or value.__class__ is not list:
            raise CorruptCheckpointError(f"stored pending write: it repeats {_where(key)}, which holds no list of its own")
        return list(value)

    def known(self, channel: str, version: int, ns: str = "") -> Known | None:
        """A cache entry for a list value read at ``version`` (None for other values)."""
        path = self._path((ns, channel, version))
        if path is None or path[0][1].key is not None:
            return None
        root = self._decoded(*path[-1])
        if root is _MISSING or root.__class__ is not list:
            return None
        length, size, links = len(root), 0, []
        for k, seg in reversed(path):
            if seg.base is not None:
                length += len(self._decoded(k, seg))
            size += len(seg.data)
            links.append(Link(seg.seq, k[2], length, size, k[0], k[1]))
        links.reverse()
        return Known(version, self.value(channel, version, ns), tuple(links))


def _broken(key: Key, missing: Key) -> Any:
    needs = f"version {missing[2]}" if missing[:2] == key[:2] else _where(missing)
    raise CorruptCheckpointError(f"{_where(key)}: its delta chain needs {needs}, which is not stored")
