"""Append-only channels stored as deltas: the write plan, for every saver.

A chat's ``messages`` list grows by a message or two per step. Storing the
whole list at every version makes a thread's storage grow with the square of
its length; storing what was appended makes it grow linearly. Savers differ
in where rows go, not in how a delta is chosen, so that lives here (and how
one is replayed in :mod:`engine.checkpoint._chain`).

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

Across namespaces. A subgraph under a new namespace per call has no earlier
version of its own: its first ``messages`` value would be stored whole, and so
would its input (a dict holding the conversation) and its output handed back
to the parent as pending writes. A list that no same-channel value of its
namespace starts, but that starts with another list the cache remembers for
the thread (the parent's), is a delta on that one's chain (a
:class:`~engine.checkpoint._chain.Ref` row, with the seq arithmetic above
continuing its chain); a dict value or a pending write that repeats one is a
ref to it plus the rest (:mod:`engine.checkpoint._refs`). Only rows known
committed are named across namespaces (a batch in flight on another
connection would not be visible to the foreign key), and the cache keeps at
most :data:`MAX_LISTS_PER_THREAD` lists per thread.

Reads replay chains with :class:`~engine.checkpoint._chain.ChainReader`,
which checks every stored row before it is used; retention (which rows a
prune keeps) is :mod:`engine.checkpoint._retention`.

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

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import metrics

from engine.checkpoint._chain import EMPTY, MAX_SEQ, BlobRow, ChainReader, Known, Link, Ref, base_seq, compressed
from engine.checkpoint._inline import Stored, StoredForms, blob_versions, plan_inline, stored
from engine.checkpoint._refs import MIN_ITEMS, extends, longest_prefix, reference, whole_row
from engine.serde import Serializer, StateTooLargeError

__all__ = [
    "DEFAULT_CACHE_THREADS",
    "DEFAULT_FANOUT",
    "MAX_LISTS_PER_THREAD",
    "BlobPlan",
    "DeltaCache",
    "base_key",
    "record_size",
]

DEFAULT_FANOUT = 32
DEFAULT_CACHE_THREADS = 1024
# Lists remembered per thread (namespace and channel pairs, least recently
# stored first out): a thread whose subgraph runs under a new namespace per
# call would otherwise grow its entry by one list per call.
MAX_LISTS_PER_THREAD = 32
# A chain longer than this is never extended (a full value is written): a
# guard against seq numbers written under another fan-out, not a normal path.
_MAX_LEVELS = 4



_MISSING: Any = object()


# -- the write side --------------------------------------------------------------------
@dataclass(slots=True)
class BlobPlan:
    """The rows one ``put`` writes, and what the cache learns once they are committed."""

    rows: list[BlobRow]
    learned: dict[str, Known | None]  # channel -> new cache entry (None: forget the channel)
    values: dict[str, Any]  # channel -> value, to write a delta in full after all (see full_row)
    serde: Serializer
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)  # channel -> (version, bytes), when measured
    ns: str = ""
    ref_sizes: dict[str, int] = field(default_factory=dict)  # channel -> bytes of the chain its dict ref names
    inline: dict[str, list[Any]] = field(default_factory=dict)  # the checkpoint's inline values (_inline.py)
    stored: Stored | None = None  # the version as stored (versions, inline entries): remembered once committed

    def written_size(self, row: BlobRow) -> int:
        """The stored bytes of the value ``row`` (one of :attr:`rows`) stores: a delta's whole chain's."""
        known = self.learned.get(row.channel)
        return known.chain[0].size if known is not None else len(row.data) + self.ref_sizes.get(row.channel, 0)

    def blob_versions(self, versions: Mapping[str, int]) -> Mapping[str, int]:
        """``versions`` (the checkpoint's) less the inline channels: the ones read from blob rows."""
        return blob_versions({"channel_versions": versions, "inline": self.inline}, self.stored.places if self.stored else None)

    def full_row(self, row: BlobRow) -> BlobRow:
        """``row`` (a delta) written as a full value: its base was not found in storage."""
        value = self.values[row.channel]
        tag, data = self.serde.dumps_channel(row.channel, value)
        if type(value) is list:
            link = Link(0, row.version, len(value), len(data), self.ns, row.channel)
            self.learned[row.channel] = Known(row.version, list(value), (link,))
        if row.channel in self.sizes:
            self.sizes[row.channel] = (row.version, len(data))
        return BlobRow(row.channel, row.version, tag, data)

    def without_missing_bases(self, exists: Callable[[BlobRow], bool]) -> list[BlobRow]:
        """The rows, with every delta whose base (or ref) ``exists`` denies replaced by a full row."""
        return [r if (r.base is None and r.ref is None) or exists(r) else self.full_row(r) for r in self.rows]

    def full(self) -> list[BlobRow]:
        """Every row as a full value (its bases are gone, or may be)."""
        return self.without_missing_bases(lambda r: False)


def base_key(ns: str, row: BlobRow) -> tuple[str, str, int] | None:
    """``(ns, channel, version)`` of the row ``row`` (of namespace ``ns``) extends, or None for a full value."""
    if row.ref is not None:
        return (row.ref.ns, row.ref.channel, row.ref.version)
    return None if row.base is None else (ns, row.channel, row.base)


@dataclass(slots=True)
class _ThreadEntry:
    known: dict[tuple[str, str], Known] = field(default_factory=dict)  # (ns, channel) -> last list value
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
        inline: keep small values in the checkpoint's row (:mod:`._inline`; not the in-memory saver's).
    """

    def __init__(
        self,
        *,
        fanout: int | None = DEFAULT_FANOUT,
        max_threads: int = DEFAULT_CACHE_THREADS,
        max_state_bytes: int | None = None,
        inline: bool = True,
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
        self.forms = StoredForms(max_threads)
        self.inline = inline

    # -- cache ---------------------------------------------------------------
    def _get(self, thread_id: str, ns: str, channel: str) -> Known | None:
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
        learned: Mapping[str, Known | None],
        sizes: Mapping[str, tuple[int, int]] | None = None,
    ) -> None:
        keep_known = bool(self.fanout)
        keep_sizes = self.max_state_bytes is not None and bool(sizes)
        if not self.max_threads or not (keep_known or keep_sizes):
            return
        with self._lock:
            entry = self._threads.get(thread_id)
            if entry is None:
                if not keep_sizes and not any(learned.values()):
                    return  # nothing to learn, nothing to forget: no entry made (a put of no list)
                entry = self._threads[thread_id] = _ThreadEntry()
            self._threads.move_to_end(thread_id)
            if keep_known:
                for channel, known in learned.items():
                    entry.known.pop((ns, channel), None)  # (re)inserted last: the most recent
                    if known is not None:
                        entry.known[(ns, channel)] = known
                while len(entry.known) > MAX_LISTS_PER_THREAD:
                    del entry.known[next(iter(entry.known))]
            if keep_sizes:
                for channel, size in (sizes or {}).items():
                    entry.sizes[(ns, channel)] = size
            while len(self._threads) > self.max_threads:
                self._threads.popitem(last=False)

    def forget_thread(self, thread_id: str) -> None:
        """Drop everything known about a thread (after it was deleted or pruned)."""
        with self._lock:
            self._threads.pop(thread_id, None)
        self.forms.forget(thread_id)

    def clear(self) -> None:
        with self._lock:
            self._threads.clear()
        self.forms.clear()

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
            versions: every channel's version in the checkpoint (``channel_versions``): needed to enforce
                ``max_state_bytes`` and to keep unchanged small values inline (a saver always passes them).

        Raises:
            SerializationError: a value outside the serializer's allowlist
                (nothing is stored, nothing is learned).
            StateTooLargeError: the checkpoint's state would be over
                ``max_state_bytes`` (nothing is stored, nothing is learned).
        """
        last = self.forms.get(thread_id, ns) if self.inline else None
        inline, rows = plan_inline(values, new_versions, versions, last) if self.inline else ({}, [])
        learned: dict[str, Known | None] = {}
        lists: dict[str, Any] = {}
        ref_sizes: dict[str, int] = {}
        for channel, version in new_versions.items():
            value = values.get(channel, _MISSING)
            if channel in inline or value is _MISSING:  # no value, or a small one: in the checkpoint's row
                if channel not in inline:  # a version outside ``versions``: not in the row's order
                    rows.append(BlobRow(channel, version, EMPTY, b""))
                learned[channel] = None
                continue
            if type(value) is not list or not self.fanout:
                row, ref_size = whole_row(serde, (lambda: self._lists(thread_id)) if self.fanout else None, channel, version, value)
                rows.append(row)
                if ref_size is not None:
                    lists[channel], ref_sizes[channel] = value, ref_size
                learned[channel] = None
                continue
            lists[channel] = value
            row, known = self._plan_list(serde, thread_id, ns, channel, version, value)
            rows.append(row)
            learned[channel] = known
        kept = None if versions is None or not self.inline else stored(versions, inline, last)
        plan = BlobPlan(rows, learned, lists, serde, ns=ns, ref_sizes=ref_sizes, inline=inline, stored=kept)
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
                size = plan.written_size(row)
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
    ) -> tuple[BlobRow, Known]:
        known = self._get(thread_id, ns, channel)
        if known is None or known.version == version or not extends(serde, value, known.items):
            # Not an extension of this channel's last value: of another list the
            # thread stored (a subgraph's first value of its parent's conversation)?
            known = longest_prefix(serde, self._lists(thread_id, skip=(ns, channel)), value) if len(value) >= MIN_ITEMS else None
        # A run past MAX_SEQ starts again (what was read is checked: seq >= 0, so seq here is >= 1).
        if known is not None and known.chain[0].seq < MAX_SEQ:
            seq = known.chain[0].seq + 1
            want = base_seq(seq, self.fanout)
            for i, link in enumerate(known.chain):
                if link.seq == want:
                    if len(known.chain) - i + 1 <= self.fanout * _MAX_LEVELS:
                        tag, data = serde.dumps_channel(channel, value[link.length :])
                        chain = (Link(seq, version, len(value), link.size + len(data), ns, channel), *known.chain[i:])
                        if seq % self.fanout == 0:  # the items of K (K², …) steps, stored again: compressed
                            tag, data = compressed(tag, data)
                        if (link.ns, link.channel) == (ns, channel):
                            row = BlobRow(channel, version, tag, data, link.version, seq)
                        else:
                            row = BlobRow(channel, version, tag, data, None, seq, Ref(link.ns, link.channel, link.version))
                        return row, Known(version, list(value), chain)
                    break
        tag, data = serde.dumps_channel(channel, value)
        link = Link(0, version, len(value), len(data), ns, channel)
        return BlobRow(channel, version, tag, data), Known(version, list(value), (link,))

    def _lists(self, thread_id: str, skip: tuple[str, str] | None = None) -> list[Known]:
        """The thread's remembered lists other namespaces' rows may refer to (committed ones), but ``skip``'s."""
        with self._lock:
            entry = self._threads.get(thread_id)
            if entry is None or not self.fanout:
                return []
            return [k for key, k in entry.known.items() if key != skip and k.committed]

    def referrer(self, serde: Serializer, thread_id: str) -> Callable[[Any], tuple[Ref, Any, int] | None]:
        """For pending writes: ``value -> (ref, rest, bytes of the chain the ref names)`` or None
        (see :func:`engine.checkpoint._refs.reference`)."""

        def refer(value: Any) -> tuple[Ref, Any, int] | None:
            if not self.fanout or type(value) not in (list, dict):
                return None
            return reference(serde, lambda: self._lists(thread_id), value)

        return refer

    def commit(self, thread_id: str, ns: str, plan: BlobPlan, inserted: Iterable[str] | None = None) -> None:
        """Learn what a committed put stored.

        Args:
            inserted: channels whose row was actually inserted (``None``: all).
                A row that already existed holds whatever was stored first, so
                the cache learns nothing from it (and keeps what it knew).
        """
        record_size(plan, inserted)
        self.committed(plan)
        if inserted is None:
            self.assume(thread_id, ns, plan)
            return
        self.forms.remember(thread_id, ns, plan.stored)
        done = set(inserted)
        self._set_many(
            thread_id, ns, {ch: known for ch, known in plan.learned.items() if ch in done or known is None}, plan.sizes
        )

    def assume(self, thread_id: str, ns: str, plan: BlobPlan) -> None:
        """Learn a put that is planned but not committed yet.

        For a batch of puts stored in one transaction (``aput_many``): the
        next version's deltas build on this one's rows, written earlier in the
        same transaction. The caller must :meth:`forget_thread` when the batch
        does not commit exactly as planned; nothing else undoes this, and
        :meth:`committed` once it does. Until then, no other namespace's row
        refers to these (another connection's foreign key would not see them).
        """
        for known in plan.learned.values():
            if known is not None:
                known.committed = False
        self._set_many(thread_id, ns, plan.learned, plan.sizes)
        self.forms.remember(thread_id, ns, plan.stored)

    @staticmethod
    def committed(plan: BlobPlan) -> None:
        """The batch ``plan`` was assumed in committed as planned: other namespaces may refer to its rows."""
        for known in plan.learned.values():
            if known is not None:
                known.committed = True

    def learn(self, thread_id: str, ns: str, reader: ChainReader, meta: Mapping[str, Any]) -> None:
        """Remember list values (and, with a size limit, every channel's size) of a version just read
        (``meta``: its loaded meta), and how its channels are stored.

        A run continues from what it read, so its next put finds them here.
        """
        if not self.max_threads:
            return
        if self.inline:
            self.forms.remember(thread_id, ns, stored(meta["channel_versions"], dict(meta.get("inline") or {})))
        versions = blob_versions(meta)
        learned: dict[str, Known | None] = {}
        sizes: dict[str, tuple[int, int]] = {}
        for channel, version in versions.items():
            if self.fanout:
                found = reader.known(channel, version, ns)
                if found is not None:
                    learned[channel] = found
            if self.max_state_bytes is not None:
                size = reader.size(channel, version, ns)
                if size is not None:
                    sizes[channel] = (version, size)
        if learned or sizes:
            self._set_many(thread_id, ns, learned, sizes)


_WRITE_SIZE = metrics.get_meter("graphwire.checkpoint").create_histogram(
    "graphwire.checkpoint.write.size", unit="By", description="Bytes of channel values one checkpoint write stored"
)


def record_size(plan: BlobPlan, inserted: Iterable[str] | None) -> None:
    """Report the bytes a committed put stored (a no-op without an OpenTelemetry SDK)."""
    done = None if inserted is None else set(inserted)
    size = deltas = 0
    for r in plan.rows:  # one pass: every put of every step comes here
        if done is None or r.channel in done:
            size += len(r.data)
        if r.base is not None or r.ref is not None:
            deltas += 1
    _WRITE_SIZE.record(size, {"graphwire.delta_rows": deltas})
