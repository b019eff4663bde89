"""The in-memory saver's write path: the rows the shared planner would make, made directly.

What a put stores is decided as for every saver (:mod:`engine.checkpoint._delta`):
a list that extends the last one the delta cache knows for its channel is a delta
on it (:meth:`DeltaCache._plan_list <engine.checkpoint._delta.DeltaCache>` makes
the row), a dict holding a list the thread stored is a ref to it and the rest
(:func:`~engine.checkpoint._refs.reference`), anything else is stored whole,
and a delta or ref whose row is gone when the put is stored is stored whole
instead. :meth:`DeltaCache.plan` and :meth:`DeltaCache.commit` wrap that in a
plan object, inline values, size measures and batch bookkeeping the in-memory
saver has no use for; on a put of a few small values that wrapping was most
of the put. Here the same rows are made in one pass (:func:`plan_put`), a task's
writes likewise (:func:`plain_writes`, the rows of
:func:`~engine.checkpoint._writes.dump_writes`), and the cache is told what was
stored as ``commit`` tells it (:meth:`MemoryDeltas.learn_put`). A saver with a
state size limit goes through the planner, which measures every put.

Two shortcuts keep the bytes the serializer writes: small scalars (a step's
trigger channels hold None, a counter an int) are serialized once and found
again in a memo (:class:`ScalarMemo`), and a checkpoint's meta, when it is plain
data, is packed by msgpack alone, or by ormsgpack where it is
installed, to the same bytes (:func:`dump_plain_meta`, :mod:`engine.serde._plain`).
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from operator import is_
from typing import Any

import msgpack

from engine.checkpoint._chain import EMPTY, MAX_SEQ, Known, Link, Ref
from engine.checkpoint._delta import _MAX_LEVELS, MAX_LISTS_PER_THREAD, DeltaCache, _ThreadEntry
from engine.checkpoint._refs import MIN_ITEMS, reference
from engine.checkpoint._helpers import dump_meta
from engine.checkpoint.base import ERROR, WRITES_IDX_MAP, Checkpoint
from engine.errors import SerializationError
from engine.serde import TAG, Serializer
from engine.serde._plain import FAST
from engine.serde._plain import pack_plain as fast_pack_plain
from engine.serde._serializer import plain_packer

__all__ = [
    "NO_DELTAS", "MemoryDeltas", "Planned", "ScalarMemo", "dump_plain_meta", "dumps_scalar", "full_value", "pack_plain", "plan_put",
    "plain_writes",
]  # fmt: skip

#: a stored blob, as the in-memory saver keeps it: (type, data, base, seq, ref); see engine.checkpoint.memory
_EMPTY_BLOB = (EMPTY, b"", None, 0, None)
_new_tuple = tuple.__new__  # a Link made in C, as its own __new__ makes it, without that Python layer
#: the attributes of a put with no delta rows (graphwire.checkpoint.write.size: engine.checkpoint._delta.record_size)
NO_DELTAS = {"graphwire.delta_rows": 0}
#: msgpack's own types only (a tuple, an int or str subclass raise TypeError), a str as UTF-8 (a lone surrogate raises)
_META_PACK_OPTIONS = {"strict_types": True, "use_bin_type": True, "datetime": False}
# Idle packers, taken and given back whole (list.pop and append are atomic): msgpack's Packer
# is not thread-safe, and LangGraph calls put from worker threads it makes per invoke, in which
# a packer of the thread's own (a thread-local's first use, a packer's buffer) cost more than the pack.
_packers: list[msgpack.Packer] = []


#: the scalars :class:`ScalarMemo` keeps: equal values of these types serialize to equal bytes
#: (not float: ``0.0 == -0.0``, and NaN is equal to nothing)
_SCALARS = frozenset({type(None), bool, int, str})
_MEMO_SIZE = 4096
_MEMO_TEXT = 128


class ScalarMemo:
    """The serialized form of small scalars a saver stored lately: a step's trigger channels
    hold None, a counter an int, a route a short string, and serializing one costs about
    2 µs where finding it here costs a tenth of that. The bytes are the serializer's own
    (its first serialization of the value), so what is stored does not change; the memo
    is kept for one serializer in one ``json_safe`` setting, emptied when either changes.
    """

    __slots__ = ("_memo", "_serde", "_json_safe", "plain")

    def __init__(self) -> None:
        self._memo: dict[tuple[type, Any], tuple[str, bytes]] = {}
        self._serde: Serializer | None = None
        self._json_safe: Any = None
        #: ``serde``'s :func:`~engine.serde._serializer.plain_packer` as of the last :meth:`table`
        self.plain: Callable[[Any], bytes | None] | None = None

    def table(self, serde: Serializer) -> dict[tuple[type, Any], tuple[str, bytes]]:
        """The memo for ``serde``: ``(type, value) -> (tag, bytes)`` (see :func:`dumps_scalar`);
        :attr:`plain` is then ``serde``'s plain packer."""
        json_safe = getattr(serde, "json_safe", None)
        if serde is not self._serde or json_safe != self._json_safe:
            self._memo, self._serde, self._json_safe = {}, serde, json_safe
            self.plain = plain_packer(serde)
        return self._memo


def dumps_scalar(memo: dict[tuple[type, Any], tuple[str, bytes]], serde: Serializer, channel: str, value: Any) -> tuple[str, bytes]:
    """``serde.dumps_channel(channel, value)``, kept in ``memo`` (:meth:`ScalarMemo.table`) for a small scalar.

    Raises:
        SerializationError: as ``dumps_channel``.
    """
    found = serde.dumps_channel(channel, value)
    kind = type(value)
    if kind in _SCALARS and (kind is not str or len(value) <= _MEMO_TEXT):
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[(kind, value)] = found
    return found


#: one changed channel of a put: (channel, version, blob as stored, what the delta cache learns
#: once it is stored: a list's value and chain, or None for any other value)
Planned = tuple[str, int, tuple[str, bytes, int | None, int, Ref | None], Known | None]


def plan_put(
    deltas: MemoryDeltas, memo: dict[tuple[type, Any], tuple[str, bytes]], serde: Serializer, thread_id: str, ns: str,
    values: Mapping[str, Any], new_versions: Mapping[str, Any], plain: Callable[[Any], bytes | None] | None = None,
) -> list[Planned] | None:  # fmt: skip
    """The rows of a put's changed channels, as :meth:`DeltaCache.plan` makes them: a list as a
    delta on the last one the cache knows for the channel, when it extends it; a dict holding a
    list the thread stored as a ref to it, and the rest; any other value in full; an empty row
    for a channel without one. None when a version in ``new_versions`` is not an int (the
    caller takes them first: :func:`~engine.checkpoint._versions.take_checkpoint`); checked
    here, in the loop every put makes, rather than in one more pass before it.

    Raises:
        SerializationError: a value the serializer refuses (the message names its state key).
    """
    out: list[Planned] = []
    for channel, version in new_versions.items():
        if type(version) is not int:
            return None
        if channel not in values:
            out.append((channel, version, _EMPTY_BLOB, None))
            continue
        value = values[channel]
        kind = type(value)
        if kind is dict and deltas.fanout:  # a dict holding a list the thread stored (a subgraph's input): a ref, and the rest
            referred = reference(serde, lambda: deltas.committed_lists(thread_id), value)
            if referred is not None:
                tag, data = serde.dumps_channel(channel, referred[1])
                out.append((channel, version, (tag, data, None, 0, referred[0]), None))
                continue
            tag, data = serde.dumps_channel(channel, value)
            out.append((channel, version, (tag, data, None, 0, None), None))
            continue
        if kind is list and deltas.fanout:
            blob, known = deltas.plan_list(serde, thread_id, ns, channel, version, value, plain)
            out.append((channel, version, blob, known))
            continue
        found = memo.get((kind, value)) if kind in _SCALARS else None  # (another kind may not hash)
        tag, data = found or dumps_scalar(memo, serde, channel, value)
        out.append((channel, version, (tag, data, None, 0, None), None))
    return out


def dump_plain_meta(serde: Serializer, checkpoint: Checkpoint, versions: Mapping[str, int]) -> tuple[str, bytes]:
    """:func:`~engine.checkpoint._helpers.dump_meta` of a checkpoint without inline values, packed
    by msgpack alone when it is plain data (msgpack's own types: else the serializer's way),
    as the serializer reads it back (tag ``msgpack``, whatever its codec); else by the serializer.
    A third of the serializer's time: a meta has three levels, none past any depth limit, and
    nothing for its hooks."""
    if getattr(serde, "json_safe", False):  # its refusals (a map key that is not text...) are the serializer's
        return dump_meta(serde, checkpoint, versions=versions)
    meta = {"v": checkpoint["v"], "versions_seen": checkpoint["versions_seen"],
            "updated_channels": checkpoint.get("updated_channels"), "channel_versions": versions}  # fmt: skip
    data = pack_plain(meta)
    if data is None:  # a tuple, a lone surrogate...: the serializer's way
        return dump_meta(serde, checkpoint, versions=versions)
    return TAG, data


def _msgpack_plain(data: Any) -> bytes | None:
    try:
        packer = _packers.pop()
    except IndexError:
        packer = msgpack.Packer(**_META_PACK_OPTIONS)
    try:
        return packer.pack(data)
    except (TypeError, ValueError, OverflowError):
        return None
    finally:
        _packers.append(packer)  # (a failed pack leaves its buffer empty)


#: ``data`` packed by msgpack alone (its own types only, text as strict UTF-8), as the serializer
#: packs plain data; None when msgpack refuses it (a tuple, a lone surrogate, an int past 64
#: bits...), which the serializer then handles its own way. ormsgpack's function itself where it
#: is installed (:mod:`engine.serde._plain`: the same bytes, faster; no call of ours around it).
pack_plain: Callable[[Any], bytes | None] = fast_pack_plain if FAST else _msgpack_plain


def full_value(serde: Serializer, ns: str, channel: str, version: int, value: Any) -> tuple[tuple[str, bytes, None, int, None], Known | None]:
    """A delta or a ref stored in full after all (the row it named is gone), and what the cache
    learns: a list's new chain, nothing for a dict (as :meth:`~engine.checkpoint._delta.BlobPlan.full_row`)."""
    tag, data = serde.dumps_channel(channel, value)
    if type(value) is not list:
        return (tag, data, None, 0, None), None
    return (tag, data, None, 0, None), Known(version, list(value), (Link(0, version, len(value), len(data), ns, channel),))


def plain_writes(
    memo: dict[tuple[type, Any], tuple[str, bytes]], serde: Serializer, writes: Sequence[tuple[str, Any]], task_id: str,
    task_path: str, plain: Callable[[Any], bytes | None] | None = None,
) -> dict[tuple[str, int], tuple[str, str, bytes, str, Ref | None]] | None:  # fmt: skip
    """``{(task_id, index): row as stored}`` of a task's writes, the rows
    :func:`~engine.checkpoint._writes.dump_writes` would make (a special channel's index is
    negative: its row replaces a stored one, the others' do not); None when one may be a ref
    (a dict, a list of two items or more), is an error (stored as its ``repr``), or does not
    serialize (``dump_writes`` then raises, naming the task and channel)."""
    out: dict[tuple[str, int], tuple[str, str, bytes, str, Ref | None]] = {}
    for idx, (channel, value) in enumerate(writes):
        special = WRITES_IDX_MAP.get(channel)
        if special is not None:
            if channel == ERROR:
                return None
            idx = special
        kind = type(value)
        if kind in _SCALARS:
            found = memo.get((kind, value))
        elif kind is dict or (kind is list and len(value) >= MIN_ITEMS):
            return None
        else:  # (a one-message list: the serializer's bytes, without its layers)
            packed = None if plain is None else plain(value)
            found = None if packed is None else (TAG, packed)
        if found is None:
            try:
                found = dumps_scalar(memo, serde, channel, value)
            except SerializationError:
                return None
        out[(task_id, idx)] = (channel, found[0], found[1], task_path, None)
    return out


class MemoryDeltas(DeltaCache):
    """The in-memory saver's delta cache, planned and told a put by :func:`plan_put` and the saver
    (and, for :meth:`plan_list`, the SQL savers': :class:`~engine.checkpoint._sql_write.SqlDeltas`).
    ``lock``: the in-memory saver's, which it holds to call :meth:`learn_put` (and must not hold
    to call anything else here: it is not reentrant); else the cache's own."""

    def __init__(self, *, lock: threading.Lock | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._lock = lock or self._lock

    def plan_list(
        self, serde: Serializer, thread_id: str, ns: str, channel: str, version: int, value: list[Any],
        plain: Callable[[Any], bytes | None] | None = None,
    ) -> tuple[tuple[str, bytes, int | None, int, Ref | None], Known]:  # fmt: skip
        """The row of a list channel's new version (as the saver stores it), and what the cache
        learns once it is stored.

        The common case, a list that extends this channel's last value at the next run
        position below a K-th (its base is that value's row, nothing compressed), is made
        here as :meth:`DeltaCache._plan_list <engine.checkpoint._delta.DeltaCache>` makes it
        (a step of a chat: a turn's messages after the conversation); the rest by it.
        """
        entry = self._threads.get(thread_id)  # one look-up each, atomic (no LRU move: learn_put makes it)
        known = None if entry is None else entry.known.get((ns, channel))
        if known is not None and known.version != version:
            last, chain, items = known.chain[0], known.chain, known.items
            seq = last.seq + 1
            if (
                seq % self.fanout  # its base is seq - 1 (base_seq), the link before, and nothing is compressed
                and seq <= MAX_SEQ
                and len(chain) < self.fanout * _MAX_LEVELS
                and last.ns == ns
                and last.channel == channel
                and len(value) >= len(items)
                and all(map(is_, value, items))  # extends it, item by item (zip stops at its end), in C
            ):
                delta = value[last.length :]
                packed = None if plain is None else plain(delta)  # (the serializer's bytes, without its layers)
                tag, data = serde.dumps_channel(channel, delta) if packed is None else (TAG, packed)
                link = _new_tuple(Link, (seq, version, len(value), last.size + len(data), ns, channel))
                learned = Known(version, list(value), (link, *chain))
                return (tag, data, last.version, seq, None), learned
        row, learned = self._plan_list(serde, thread_id, ns, channel, version, value)
        return (row.type, row.data, row.base, row.seq, row.ref), learned

    def committed_lists(self, thread_id: str) -> list[Known]:
        """The thread's remembered lists a ref may name (committed ones)."""
        return self._lists(thread_id)

    def learn_put(self, thread_id: str, ns: str, learned: Mapping[str, Known | None]) -> None:
        """What a stored put tells the cache (as :meth:`commit` does with a plan's): a list's new
        value for each channel in ``learned`` with one, and no list for the others; called holding
        the lock the saver shares with the cache (a put takes one lock, not two)."""
        if not self.fanout or not self.max_threads:
            return
        threads = self._threads
        entry = threads.get(thread_id)
        if entry is None:
            if not any(learned.values()):
                return  # nothing to learn, nothing to forget: no entry made
            entry = threads[thread_id] = _ThreadEntry()
        threads.move_to_end(thread_id)
        known = entry.known
        for channel, found in learned.items():
            key = (ns, channel)
            if found is not None:
                known.pop(key, None)  # (re)inserted last: the most recent
                known[key] = found
            elif key in known:  # (most channels never held a list: a look-up, no call)
                del known[key]
        while len(known) > MAX_LISTS_PER_THREAD:
            del known[next(iter(known))]
        while len(threads) > self.max_threads:
            threads.popitem(last=False)
