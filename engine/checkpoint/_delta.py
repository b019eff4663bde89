"""Append-only channels stored as deltas: the write plan and the read replay, for every saver.

A chat's ``messages`` list grows by a message or two per step. Storing the
whole list at every version makes a thread's storage grow with the square of
its length; storing what was appended makes it grow linearly. Savers differ
in where rows go, not in how a delta is chosen or replayed, so both live here.

Theory of operation
-------------------

A blob row is either *full* (``base`` is None: the value itself) or a
*delta* (``base`` names another version of the same channel, and the row
holds the list items appended to that version's value). A value is rebuilt by
following ``base`` links down to a full row and concatenating. Deltas apply
only to values of type ``list`` (what ``operator.add`` and ``add_messages``
produce); anything else is stored full, as before.

Which base a delta names follows its *sequence number* ``seq``: the position
of the version in its append run (0 for the run's full value, then 1, 2, …
while every new value extends the previous one). With fan-out ``K``:

* a version at ``seq`` not divisible by ``K`` is based on ``seq - 1`` (one
  step's items);
* at a multiple of ``K``, on ``seq - K`` (the items of ``K`` steps in one
  row); at a multiple of ``K²``, on ``seq - K²``; and so on.

So reading any version replays at most ``K - 1`` deltas per level, and there
are ``log_K(seq)`` levels (``K = 32``: ≤ 31 deltas below 32 versions, ≤ 62
below 1,024, ≤ 93 below 32,768), while each appended item is stored once per
level. Storage grows as ``n·log_K(n)``, linear for any real thread, where a
full snapshot every ``K`` versions would grow as ``n²/K`` (at 200 chat turns
that is several times the deltas themselves). The bases a version can need
are always on the chain of the version before it, which is what the writer
keeps (see :class:`DeltaCache`).

What is written depends on a bounded per-saver cache of the value each
channel had at the last version this saver wrote or read (LRU by thread).
The cache holds a *shallow copy* of that list, so a list extended in place
(``left.extend(right); return left``) is still compared against the items it
held when stored. Items are compared by identity, then, for items that are
not the same object, by their serialized bytes, so an equal but different
value (``1`` vs ``True``, two equal datetimes in different time zones) is
never mistaken for the stored one. An item mutated *in place* after it was
stored is not seen: state values must not be mutated in place (as in
LangGraph, return updates instead). On a cache miss, or when the new value
does not extend the cached one (``add_messages`` replacing a message), the
value is stored full and a new run starts. Correctness never depends on the
cache: a delta's base must exist when the delta is committed, or the value
is stored full instead (the in-memory and SQLite savers check it in the write
transaction; PostgreSQL's foreign key refuses the delta, and the saver writes
the put again with full values).

Reads fetch a version's whole chain in one query (a recursive CTE in SQL)
and decode each row once; :class:`ChainReader` keeps decoded rows for the
duration of one ``alist`` call, so rebuilding a history of ``n`` versions
decodes ``n`` rows, not ``n²``. It decodes a row when a value needs it, not
when the row is fetched, so a row that fails to decode fails the read of the
checkpoint that needs it, and the saver can name that checkpoint.

State size limit
----------------

A saver built with ``max_state_bytes`` refuses (with
:class:`~engine.serde.StateTooLargeError`, before anything is stored) a
version whose state would take more than that many bytes. A version's size is
what a read of it must fetch and decode: for each channel, the stored bytes of
its row and of every row down its delta chain (for a list that is, to a few
bytes of msgpack headers, its full serialized size). The cache remembers each
channel's size at the version it last wrote or read, so a put measures only
the rows it writes; a channel the cache does not know is serialized once to
measure it.
"""

from __future__ import annotations

import operator
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from opentelemetry import metrics

from engine.errors import CorruptCheckpointError
from engine.serde import Serializer, StateTooLargeError

__all__ = [
    "DEFAULT_CACHE_THREADS",
    "DEFAULT_FANOUT",
    "EMPTY",
    "BlobPlan",
    "BlobRow",
    "ChainReader",
    "DeltaCache",
    "Link",
    "base_seq",
    "blobs_to_keep",
    "check_prune_args",
    "checkpoints_to_prune",
    "record_size",
]

# Type tag of a blob recording that a channel has no value at that version
# (it was cleared); such blobs are skipped when channel values are rebuilt.
EMPTY = "empty"

DEFAULT_FANOUT = 32
DEFAULT_CACHE_THREADS = 1024
# A chain longer than this is never extended (a full value is written): a
# guard against seq numbers written under another fan-out, not a normal path.
_MAX_LEVELS = 4

_MISSING: Any = object()


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


def base_seq(seq: int, fanout: int) -> int:
    """The run position a delta at ``seq`` (> 0) is based on (see the module docstring)."""
    span = 1
    while seq % (span * fanout) == 0:
        span *= fanout
    return seq - span


# -- the write side --------------------------------------------------------------------
@dataclass(slots=True)
class _Known:
    """What storage holds for one channel at one version, as far as this saver knows."""

    version: int
    items: list[Any]  # a shallow copy: the list as stored, whatever happens to the original
    chain: tuple[Link, ...]  # chain[0] is this version; then its bases, down to the run's full value


@dataclass(slots=True)
class BlobPlan:
    """The rows one ``put`` writes, and what the cache learns once they are committed."""

    rows: list[BlobRow]
    learned: dict[str, _Known | None]  # channel -> new cache entry (None: forget the channel)
    values: dict[str, Any]  # channel -> value, to write a delta in full after all (see full_row)
    serde: Serializer
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)  # channel -> (version, bytes), when measured

    def full_row(self, row: BlobRow) -> BlobRow:
        """``row`` (a delta) written as a full value: its base was not found in storage."""
        value = self.values[row.channel]
        tag, data = self.serde.dumps_channel(row.channel, value)
        self.learned[row.channel] = _Known(row.version, list(value), (Link(0, row.version, len(value), len(data)),))
        if row.channel in self.sizes:
            self.sizes[row.channel] = (row.version, len(data))
        return BlobRow(row.channel, row.version, tag, data)

    def without_missing_bases(self, exists: Callable[[BlobRow], bool]) -> list[BlobRow]:
        """The rows, with every delta whose base ``exists`` denies replaced by a full row."""
        return [r if r.base is None or exists(r) else self.full_row(r) for r in self.rows]


@dataclass(slots=True)
class _ThreadEntry:
    known: dict[tuple[str, str], _Known] = field(default_factory=dict)  # (ns, channel) -> last list value
    sizes: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)  # (ns, channel) -> (version, bytes)


class DeltaCache:
    """Per saver: the last stored value of each list channel, LRU by thread.

    Thread-safe (the sync face may call a saver from several threads). Holds
    at most ``max_threads`` threads; a thread's entries go together. With
    ``max_state_bytes`` it also remembers each channel's stored size and
    enforces the limit (see "State size limit" in the module docstring).

    Args:
        fanout: ``K`` of the module docstring; ``None`` or ``0`` stores every
            value full (no deltas).
        max_threads: how many threads' last values to keep.
        max_state_bytes: refuse a version whose state takes more bytes than
            this (None: no limit). Checked by :meth:`plan` when it is given
            the checkpoint's ``versions``.
    """

    def __init__(
        self,
        *,
        fanout: int | None = DEFAULT_FANOUT,
        max_threads: int = DEFAULT_CACHE_THREADS,
        max_state_bytes: int | None = None,
    ) -> None:
        if fanout is not None and fanout != 0 and fanout < 2:
            raise ValueError(f"delta fan-out must be >= 2 (or None/0 to store full values), got {fanout}")
        if max_threads < 0:
            raise ValueError(f"delta cache size must be >= 0, got {max_threads}")
        if max_state_bytes is not None and (type(max_state_bytes) is not int or max_state_bytes < 1):
            raise ValueError(f"max_state_bytes must be a positive int (or None), got {max_state_bytes!r}")
        self.fanout = fanout or 0
        self.max_threads = max_threads
        self.max_state_bytes = max_state_bytes
        self._threads: OrderedDict[str, _ThreadEntry] = OrderedDict()
        self._lock = threading.Lock()

    # -- cache ---------------------------------------------------------------
    def _get(self, thread_id: str, ns: str, channel: str) -> _Known | None:
        with self._lock:
            entry = self._threads.get(thread_id)
            if entry is None:
                return None
            self._threads.move_to_end(thread_id)
            return entry.known.get((ns, channel))

    def _sizes_of(self, thread_id: str, ns: str) -> dict[str, tuple[int, int]]:
        with self._lock:
            entry = self._threads.get(thread_id)
            if entry is None:
                return {}
            return {ch: size for (n, ch), size in entry.sizes.items() if n == ns}

    def _set_many(
        self,
        thread_id: str,
        ns: str,
        learned: Mapping[str, _Known | None],
        sizes: Mapping[str, tuple[int, int]] | None = None,
    ) -> None:
        keep_known = bool(self.fanout)
        keep_sizes = self.max_state_bytes is not None and bool(sizes)
        if not self.max_threads or not (keep_known or keep_sizes):
            return
        with self._lock:
            entry = self._threads.get(thread_id)
            if entry is None:
                entry = self._threads[thread_id] = _ThreadEntry()
            self._threads.move_to_end(thread_id)
            if keep_known:
                for channel, known in learned.items():
                    if known is None:
                        entry.known.pop((ns, channel), None)
                    else:
                        entry.known[(ns, channel)] = known
            if keep_sizes:
                for channel, size in (sizes or {}).items():
                    entry.sizes[(ns, channel)] = size
            while len(self._threads) > self.max_threads:
                self._threads.popitem(last=False)

    def forget_thread(self, thread_id: str) -> None:
        """Drop everything known about a thread (after it was deleted or pruned)."""
        with self._lock:
            self._threads.pop(thread_id, None)

    def clear(self) -> None:
        with self._lock:
            self._threads.clear()

    # -- writes --------------------------------------------------------------
    def plan(
        self,
        serde: Serializer,
        thread_id: str,
        ns: str,
        values: Mapping[str, Any],
        new_versions: Mapping[str, int],
        versions: Mapping[str, int] | None = None,
    ) -> BlobPlan:
        """Serialize the changed channels of a checkpoint, as deltas where the cache allows.

        Args:
            versions: every channel's version in the checkpoint
                (``channel_versions``); needed to enforce ``max_state_bytes``.

        Raises:
            SerializationError: a value outside the serializer's allowlist
                (nothing is stored, nothing is learned).
            StateTooLargeError: the checkpoint's state would be over
                ``max_state_bytes`` (nothing is stored, nothing is learned).
        """
        rows: list[BlobRow] = []
        learned: dict[str, _Known | None] = {}
        lists: dict[str, Any] = {}
        for channel, version in new_versions.items():
            value = values.get(channel, _MISSING)
            if value is _MISSING:
                rows.append(BlobRow(channel, version, EMPTY, b""))
                learned[channel] = None
                continue
            if type(value) is not list or not self.fanout:
                tag, data = serde.dumps_channel(channel, value)
                rows.append(BlobRow(channel, version, tag, data))
                learned[channel] = None
                continue
            lists[channel] = value
            row, known = self._plan_list(serde, thread_id, ns, channel, version, value)
            rows.append(row)
            learned[channel] = known
        plan = BlobPlan(rows, learned, lists, serde)
        if self.max_state_bytes is not None and versions is not None:
            plan.sizes = self._measure(serde, thread_id, ns, values, versions, plan)
        return plan

    def _measure(
        self,
        serde: Serializer,
        thread_id: str,
        ns: str,
        values: Mapping[str, Any],
        versions: Mapping[str, int],
        plan: BlobPlan,
    ) -> dict[str, tuple[int, int]]:
        """Each channel's ``(version, stored bytes)`` in this checkpoint; raise when the sum is over the limit."""
        limit = self.max_state_bytes
        assert limit is not None
        written = {r.channel: r for r in plan.rows}
        remembered = self._sizes_of(thread_id, ns)
        sizes: dict[str, tuple[int, int]] = {}
        for channel, version in versions.items():
            if channel not in values:
                continue
            row = written.get(channel)
            if row is not None:
                known = plan.learned.get(channel)
                size = known.chain[0].size if known is not None else len(row.data)
            else:
                found = remembered.get(channel)
                if found is not None and found[0] == version:
                    size = found[1]
                else:  # not seen by this saver yet (a restart, an evicted thread): measure it once
                    size = len(serde.dumps_channel(channel, values[channel])[1])
            sizes[channel] = (version, size)
        total = sum(size for _, size in sizes.values())
        if total > limit:
            largest = sorted(sizes.items(), key=lambda item: item[1][1], reverse=True)[:3]
            keys = ", ".join(f"{ch!r}: {size} bytes" for ch, (_, size) in largest)
            raise StateTooLargeError(
                f"thread {thread_id!r}: this version's state would take {total} bytes, over the limit of "
                f"{limit} bytes (max_state_bytes); largest keys: {keys}"
            )
        return sizes

    def _plan_list(
        self, serde: Serializer, thread_id: str, ns: str, channel: str, version: int, value: list[Any]
    ) -> tuple[BlobRow, _Known]:
        known = self._get(thread_id, ns, channel)
        if known is not None and known.version != version and _extends(serde, value, known.items):
            seq = known.chain[0].seq + 1
            want = base_seq(seq, self.fanout)
            for i, link in enumerate(known.chain):
                if link.seq == want:
                    if len(known.chain) - i + 1 <= self.fanout * _MAX_LEVELS:
                        tag, data = serde.dumps_channel(channel, value[link.length :])
                        chain = (Link(seq, version, len(value), link.size + len(data)), *known.chain[i:])
                        return BlobRow(channel, version, tag, data, link.version, seq), _Known(version, list(value), chain)
                    break
        tag, data = serde.dumps_channel(channel, value)
        return BlobRow(channel, version, tag, data), _Known(version, list(value), (Link(0, version, len(value), len(data)),))

    def commit(self, thread_id: str, ns: str, plan: BlobPlan, inserted: Iterable[str] | None = None) -> None:
        """Learn what a committed put stored.

        Args:
            inserted: channels whose row was actually inserted (``None``: all).
                A row that already existed holds whatever was stored first, so
                the cache learns nothing from it (and keeps what it knew).
        """
        record_size(plan, inserted)
        if inserted is None:
            self.assume(thread_id, ns, plan)
            return
        done = set(inserted)
        self._set_many(
            thread_id, ns, {ch: known for ch, known in plan.learned.items() if ch in done or known is None}, plan.sizes
        )

    def assume(self, thread_id: str, ns: str, plan: BlobPlan) -> None:
        """Learn a put that is planned but not committed yet.

        For a batch of puts stored in one transaction (``aput_many``): the
        next version's deltas build on this one's rows, written earlier in the
        same transaction. The caller must :meth:`forget_thread` when the batch
        does not commit exactly as planned; nothing else undoes this.
        """
        self._set_many(thread_id, ns, plan.learned, plan.sizes)

    def learn(self, thread_id: str, ns: str, reader: ChainReader, versions: Mapping[str, int]) -> None:
        """Remember list values (and, with a size limit, every channel's size) just read.

        A run continues from what it read, so its next put finds them here.
        """
        if not self.max_threads:
            return
        learned: dict[str, _Known | None] = {}
        sizes: dict[str, tuple[int, int]] = {}
        for channel, version in versions.items():
            if self.fanout:
                found = reader.known(channel, version)
                if found is not None:
                    learned[channel] = found
            if self.max_state_bytes is not None:
                size = reader.size(channel, version)
                if size is not None:
                    sizes[channel] = (version, size)
        if learned or sizes:
            self._set_many(thread_id, ns, learned, sizes)


def _extends(serde: Serializer, new: list[Any], old: list[Any]) -> bool:
    """Whether ``new`` starts with exactly the items of ``old``."""
    if len(new) < len(old):
        return False
    if all(map(operator.is_, new, old)):  # zip stops at len(old); the common case, in C
        return True
    dumps = serde.dumps_typed
    for a, b in zip(new, old):
        if a is not b:
            try:
                if dumps(a) != dumps(b):
                    return False
            except Exception:  # noqa: BLE001 - an unstorable item fails the put later, with a path
                return False
    return True


# -- the read side ---------------------------------------------------------------------
_UNREAD: Any = object()


@dataclass(slots=True)
class _Segment:
    base: int | None
    seq: int
    tag: str
    data: bytes  # as stored; decoded into value on first use
    value: Any = _UNREAD  # the full value, or the appended items of a delta; _MISSING for EMPTY


@dataclass(slots=True)
class ChainReader:
    """Blob rows of one read (one ``get_tuple``, or one whole ``alist``).

    Feed it rows with :meth:`add`; ask it for values with :meth:`value`.
    Each row is decoded once, when a value first needs it, however many
    versions share it; a row that does not decode fails that value's read.
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

    def add(self, channel: str, version: int, tag: str, data: bytes, base: int | None, seq: int | None) -> None:
        """Take one stored row (once: a row already read is skipped); it is decoded when first needed."""
        if (channel, version) in self._segments:
            return
        self._segments[(channel, version)] = _Segment(base, seq or 0, tag, bytes(data))

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
        """The chain of ``version`` from the version itself down to its full value, or None."""
        path: list[tuple[int, _Segment]] = []
        v: int | None = version
        while v is not None:
            seg = self._segments.get((channel, v))
            if seg is None:
                return None if not path else _broken(channel, version, v)
            path.append((v, seg))
            if len(path) > 1_000_000:  # pragma: no cover - a cycle only corrupt rows could make
                raise CorruptCheckpointError(f"channel {channel!r} version {version}: delta chain loops")
            v = seg.base
        return path

    def value(self, channel: str, version: int) -> Any:
        """The channel's value at ``version`` (``_MISSING`` for an EMPTY row).

        A rebuilt list is a new list, but its items are shared with other
        values rebuilt by the same reader (one ``alist``): treat read values
        as read-only, as every checkpoint returned by a saver.

        Raises:
            KeyError: no row was read for ``version``.
            CorruptCheckpointError: its chain is broken or not made of lists.
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

    def known(self, channel: str, version: int) -> _Known | None:
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
        return _Known(version, self.value(channel, version), tuple(links))


def _broken(channel: str, version: int, missing: int) -> Any:
    raise CorruptCheckpointError(
        f"channel {channel!r} version {version}: its delta chain needs version {missing}, which is not stored"
    )


# -- retention ----------------------------------------------------------------------------
def check_prune_args(keep_last: int | None, older_than: timedelta | None) -> None:
    """Validate ``aprune`` arguments the same way for every saver.

    Raises:
        ValueError: neither rule given, or a negative one.
    """
    if keep_last is None and older_than is None:
        raise ValueError("prune needs keep_last, older_than, or both")
    if keep_last is not None and (type(keep_last) is not int or keep_last < 1):
        raise ValueError(f"keep_last must be an int >= 1, got {keep_last!r}")
    if older_than is not None and (not isinstance(older_than, timedelta) or older_than < timedelta(0)):
        raise ValueError(f"older_than must be a timedelta >= 0, got {older_than!r}")


def checkpoints_to_prune(
    rows: Iterable[tuple[str, str, str]],
    *,
    keep_last: int | None,
    older_than: timedelta | None,
    now: datetime | None = None,
) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """Split a thread's checkpoints into ``(kept, deleted)`` sets of ``(ns, checkpoint_id)``.

    ``rows`` are ``(ns, checkpoint_id, ts)``. Per namespace, a checkpoint is
    kept when it is among the newest ``keep_last``, or younger than
    ``older_than``, or the namespace's newest (pruning removes history, never
    a thread's current state: use ``delete_thread`` for that). With both
    rules, a checkpoint goes only when both let it go.
    """
    cutoff = None if older_than is None else (now or datetime.now(UTC)) - older_than
    by_ns: dict[str, list[tuple[str, str]]] = {}
    for ns, cid, ts in rows:
        by_ns.setdefault(ns, []).append((cid, ts))
    kept: set[tuple[str, str]] = set()
    deleted: set[tuple[str, str]] = set()
    for ns, found in by_ns.items():
        found.sort(reverse=True)  # ids are time-ordered: newest first
        for rank, (cid, ts) in enumerate(found):
            keep = rank == 0
            if keep_last is not None and rank < keep_last:
                keep = True
            if cutoff is not None and _parse_ts(ts) > cutoff:
                keep = True
            if keep_last is None and cutoff is None:  # pragma: no cover - check_prune_args refuses it
                keep = True
            (kept if keep else deleted).add((ns, cid))
    return kept, deleted


def _parse_ts(ts: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(ts)
    except ValueError as exc:
        raise CorruptCheckpointError(f"stored checkpoint time {ts!r} is not ISO 8601") from exc
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def blobs_to_keep(
    referenced: Iterable[tuple[str, str, int]], bases: Mapping[tuple[str, str, int], int | None]
) -> set[tuple[str, str, int]]:
    """Every ``(ns, channel, version)`` a kept checkpoint needs, with its delta chain.

    ``referenced``: the versions kept checkpoints name; ``bases``: each stored
    blob's base version (None for a full value).
    """
    keep: set[tuple[str, str, int]] = set()
    for key in referenced:
        while key not in keep and key in bases:
            keep.add(key)
            base = bases[key]
            if base is None:
                break
            key = (key[0], key[1], base)
    return keep


_WRITE_SIZE = metrics.get_meter("graphwire.checkpoint").create_histogram(
    "graphwire.checkpoint.write.size", unit="By", description="Bytes of channel values one checkpoint write stored"
)


def record_size(plan: BlobPlan, inserted: Iterable[str] | None) -> None:
    """Report the bytes a committed put stored (a no-op without an OpenTelemetry SDK)."""
    done = None if inserted is None else set(inserted)
    size = sum(len(r.data) for r in plan.rows if done is None or r.channel in done)
    _WRITE_SIZE.record(size, {"graphwire.delta_rows": sum(1 for r in plan.rows if r.base is not None)})
