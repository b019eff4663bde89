"""Small channel values kept in their checkpoint's own row: no blob row each.

A chat's step changes a few channels whose values are tiny (a trigger
channel's ``None``, a counter) or clears some (``__start__`` once read, a
branch once taken). Stored as blob rows, those were most of a thread's rows
(7 of 9 a turn), each paying a row's and an index entry's overhead for a byte
or none of data. Instead a checkpoint's stored meta carries them under
``inline``: channel -> ``[position, version, value]``, or ``[position,
version]`` for a channel with no value at that version (``position``: its
place in the checkpoint's ``channel_versions``, whose order a read keeps).
Such a channel is left out of the stored ``channel_versions`` (the blob rows
a read fetches); a read puts it back in its place.

Which values: None, booleans, floats, integers of 64 bits and ASCII text of
at most :data:`INLINE_TEXT` characters; every serializer gives those back as
they were. A checkpoint carries every inline channel of its versions, the
unchanged ones too (they are small, and a read then needs no other row). An
unchanged channel's value is in the checkpoint handed to ``put``, except a
channel with no value (or a delta channel's, which the caller leaves out):
for those the saver remembers how the version was stored, from its last
put or read of the namespace (:class:`StoredForms`, kept by
:class:`~engine.checkpoint._delta.DeltaCache`); when it does not know, it
writes an EMPTY blob row for that version, which a row already stored there
outranks (a version's first row stays).

Checkpoints written before hold no ``inline`` and read as they did.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.checkpoint._chain import EMPTY, BlobRow, ChainReader

__all__ = [
    "INLINE_TEXT", "Stored", "StoredForms", "blob_versions", "inlinable", "inline_problem", "merge_inline", "plan_inline",
    "stored", "values_of",
]  # fmt: skip

#: The longest text kept inline (ASCII: valid in every serializer's encoding).
INLINE_TEXT = 64
_MIN_INT, _MAX_INT = -(1 << 63), 1 << 64


def inlinable(value: Any) -> bool:
    """Whether ``value`` is kept in the checkpoint's row (see the module docstring)."""
    t = type(value)
    if t is int:
        return _MIN_INT <= value < _MAX_INT
    return value is None or t is bool or t is float or (t is str and len(value) <= INLINE_TEXT and value.isascii())


def inline_problem(meta: dict[str, Any]) -> str | None:
    """What is wrong with a decoded meta's ``inline`` (None: nothing, or none stored); ``channel_versions`` checked."""
    inline = meta.get("inline")
    if inline is None:
        return None
    if type(inline) is not dict or not all(
        type(k) is str and type(e) is list and len(e) in (2, 3) and type(e[0]) is int and type(e[1]) is int
        for k, e in inline.items()
    ):
        return "inline is not a map of channel names to [position, version] or [position, version, value]"
    versions = meta["channel_versions"]
    if not inline.keys().isdisjoint(versions):
        return "a channel is both inline and in channel_versions"
    n = len(versions) + len(inline)
    if len({e[0] for e in inline.values() if 0 <= e[0] < n}) != len(inline):
        return "inline positions out of range or repeated"
    return None


def merge_inline(meta: dict[str, Any]) -> None:
    """Put the inline channels' versions back into ``channel_versions``, in their places (a checked meta)."""
    inline = meta.get("inline")
    if not inline:
        return
    blob = iter(meta["channel_versions"].items())
    slots: list[str | None] = [None] * (len(meta["channel_versions"]) + len(inline))
    for ch, entry in inline.items():
        slots[entry[0]] = ch
    versions: dict[str, int] = {}
    for ch in slots:
        if ch is None:
            k, v = next(blob)
            versions[k] = v
        else:
            versions[ch] = inline[ch][1]
    meta["channel_versions"] = versions


def blob_versions(meta: Mapping[str, Any], places: Mapping[str, int] | None = None) -> Mapping[str, int]:
    """The ``(channel, version)`` pairs of a meta (loaded, or one to store) stored as blob rows, in their order.

    ``places``: channel -> position in ``channel_versions``, when known (then the
    work is over the few blob channels, not every channel).
    """
    versions: Mapping[str, int] = meta["channel_versions"]
    inline = meta.get("inline")
    if not inline:
        return versions
    if places is None:
        return {ch: v for ch, v in versions.items() if ch not in inline}
    return {ch: versions[ch] for ch in sorted(versions.keys() - inline.keys(), key=places.__getitem__)}


def values_of(reader: ChainReader, meta: Mapping[str, Any], ns: str) -> dict[str, Any]:
    """A loaded meta's channel values: its blob rows' (from ``reader``) and its inline ones."""
    inline = meta.get("inline")
    if not inline:
        return reader.values(meta["channel_versions"], ns)
    stored = reader.values(blob_versions(meta), ns)
    out: dict[str, Any] = {}
    for ch in meta["channel_versions"]:  # in their order, as a checkpoint without inline values reads
        entry = inline.get(ch)
        if entry is None:
            if ch in stored:
                out[ch] = stored[ch]
        elif len(entry) == 3:
            out[ch] = entry[2]
    return out


_MISSING: Any = object()
# Namespaces remembered per thread (least recently stored first out): a
# subgraph under a new namespace per call would otherwise grow a thread's entry.
_MAX_NAMESPACES = 32


@dataclass(frozen=True, slots=True)
class Stored:
    """A version as a saver last stored or read it: every channel's version, and its inline entries."""

    versions: dict[str, int]
    inline: dict[str, list[Any]]
    order: list[str]  # the channels in ``versions``' order
    places: dict[str, int]  # channel -> position in ``order``


def stored(versions: Mapping[str, int], inline: dict[str, list[Any]], like: Stored | None = None) -> Stored:
    """A :class:`Stored` record (``like``: an earlier one whose order it may share)."""
    order = list(versions)
    if like is not None and like.order == order:
        return Stored(dict(versions), inline, like.order, like.places)
    return Stored(dict(versions), inline, order, dict(zip(order, range(len(order)))))


def plan_inline(
    values: Mapping[str, Any], new_versions: Mapping[str, int], versions: Mapping[str, int] | None, last: Stored | None
) -> tuple[dict[str, list[Any]], list[BlobRow]]:
    """What a put keeps inline: ``(inline, rows)``.

    ``inline``: the checkpoint's inline entries (changed channels and
    unchanged ones); ``rows``: EMPTY rows for unchanged channels with no
    value whose version's form ``last`` (the version this saver last stored
    or read of the namespace) does not tell (a row already there outranks
    them). ``versions``: every channel's version (None: only the changed
    channels are looked at).

    The common put extends the version stored last: every channel but the
    changed ones has the version it had there, in the same order (a channel
    first written comes last). Then the
    entries of that version hold for them, and only the changed channels and
    those with a value are looked at (a graph of many nodes has as many
    trigger channels, most of them empty and unchanged at every step).
    """
    full = new_versions if versions is None else versions
    order = list(full)
    if last is not None and len(last.order) <= len(order) and order[: len(last.order)] == last.order:
        expect = last.versions.copy()  # the last version with this put's changes (new channels come last)
        expect.update(new_versions)
        if expect == full:  # all C-level dict work
            inline = dict(last.inline)
            for ch in (new_versions.keys() | values.keys()) & full.keys():
                pos = last.places.get(ch)
                pos = order.index(ch) if pos is None else pos
                _place(inline, ch, pos, full[ch], values.get(ch, _MISSING), changed=ch in new_versions)
            return inline, []
    inline = {}
    rows: list[BlobRow] = []
    for pos, (channel, version) in enumerate(full.items()):
        value = values.get(channel, _MISSING)
        if value is not _MISSING or channel in new_versions:
            _place(inline, channel, pos, version, value, changed=channel in new_versions)
        elif last is None or last.versions.get(channel) != version:  # how it was stored is not known here
            rows.append(BlobRow(channel, version, EMPTY, b""))  # a row, unless one is there
        elif channel in last.inline:
            inline[channel] = [pos, version, *last.inline[channel][2:]]
    return inline, rows


def _place(inline: dict[str, list[Any]], channel: str, pos: int, version: int, value: Any, *, changed: bool) -> None:
    """Set ``channel``'s inline entry from its value (``_MISSING``: none), or leave it to a blob row."""
    if value is _MISSING:
        if changed:
            inline[channel] = [pos, version]  # cleared at this version
        else:
            inline.pop(channel, None)  # (never reached: a value-less unchanged channel keeps its entry)
    elif inlinable(value):
        inline[channel] = [pos, version, value]
    else:
        inline.pop(channel, None)


class StoredForms:
    """Per saver: the version of each namespace of a thread it last stored or read, LRU by thread (thread-safe)."""

    def __init__(self, max_threads: int) -> None:
        self.max_threads = max_threads
        self._threads: OrderedDict[str, OrderedDict[str, Stored]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, thread_id: str, ns: str) -> Stored | None:
        with self._lock:
            entry = self._threads.get(thread_id)
            return None if entry is None else entry.get(ns)

    def remember(self, thread_id: str, ns: str, record: Stored | None) -> None:
        if not self.max_threads or record is None:
            return
        with self._lock:
            entry = self._threads.get(thread_id)
            if entry is None:
                entry = self._threads[thread_id] = OrderedDict()
            self._threads.move_to_end(thread_id)
            entry.pop(ns, None)
            entry[ns] = record
            while len(entry) > _MAX_NAMESPACES:
                del entry[next(iter(entry))]
            while len(self._threads) > self.max_threads:
                self._threads.popitem(last=False)

    def forget(self, thread_id: str) -> None:
        with self._lock:
            self._threads.pop(thread_id, None)

    def clear(self) -> None:
        with self._lock:
            self._threads.clear()
