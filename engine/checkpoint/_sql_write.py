"""The SQL savers' write preparation: a version's plan and meta, made directly in the common case.

Before any statement, a put of the SQLite or PostgreSQL saver serializes its
version: :meth:`DeltaCache.plan <engine.checkpoint._delta.DeltaCache.plan>`
decides its rows (values inline in the checkpoint's row, list deltas, refs,
full values) and, with a state size limit (what ``graphwire serve`` sets),
measures the state; :func:`~engine.checkpoint._helpers.dump_meta` then packs
the meta through the serializer. On a step of a few small values that was
much of a put's work (issue 36): the measure serialized every inline value
again at each version (a counter's new value has no size remembered), and
under ``json_safe`` the serializer unpacked the meta again to check its map
keys, a meta whose parts are text and integers it was just handed.

Here the same rows and bytes are made with less (:meth:`SqlDeltas.plan_put`):

* the plan as :meth:`DeltaCache.plan` makes it, a list that extends the last
  one at the next run position as the in-memory saver makes it
  (:meth:`~engine.checkpoint._memory_write.MemoryDeltas.plan_list`), the
  sizes of small scalars from a memo of their serialized bytes
  (:class:`~engine.checkpoint._memory_write.ScalarMemo`), the sizes the cache
  remembers read without copying them. A state over the limit goes to the
  planner, whose error it raises.
* the meta (:func:`dump_sql_meta`) packed by msgpack alone, as the serializer
  packs plain data (to the same bytes). What the serializer would do another
  way goes to :func:`~engine.checkpoint._helpers.dump_meta`, so what it refuses
  is refused there, the same way: a codec or a serializer of another class, a
  value msgpack does not pack itself (a tuple, a lone surrogate, an integer
  past 64 bits), a meta that may nest deep. Under ``json_safe`` the
  serializer's check (a full unpack of the meta, for its map keys) can refuse
  nothing else in a meta whose map keys are text, whose versions are integers
  (:func:`~engine.checkpoint._versions.take_checkpoint` checked the channels',
  :func:`~engine.checkpoint._versions.seen_ints` ``versions_seen``'s) and whose
  inline values are scalars, but a non-finite float, which only an inline
  value can be: those keys are checked in C (``str.join``), the float is
  looked for in the packed bytes as the serializer looks for it.

What a put stores is unchanged: the rows, the meta's bytes, what the cache
learns (tests/checkpoint/test_sql_write.py puts a corpus through both ways).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import chain
from operator import itemgetter
from typing import Any

from engine.checkpoint._chain import EMPTY, BlobRow, Known
from engine.checkpoint._delta import BlobPlan
from engine.checkpoint._helpers import dump_meta
from engine.checkpoint._versions import seen_ints
from engine.checkpoint._inline import plan_inline, stored
from engine.checkpoint._memory_write import _SCALARS, MemoryDeltas, ScalarMemo, dumps_scalar, pack_plain
from engine.checkpoint._refs import whole_row
from engine.checkpoint.base import Checkpoint
from engine.serde import TAG, Serializer
from engine.serde._depth import could_nest_past_wire
from engine.serde._serializer import packs_as_is

__all__ = ["SqlDeltas", "blob_versions", "dump_sql_meta"]

_MISSING: Any = object()
_last = itemgetter(-1)
#: the types of the values an inline entry holds (engine.checkpoint._inline.inlinable's)
_INLINE = frozenset({type(None), bool, int, float, str})
#: a msgpack float64 whose exponent bits are all ones: NaN or an infinity (engine.serde._wire's pattern)
_NON_FINITE = re.compile(rb"\xcb[\x7f\xff][\xf0-\xff]")


class SqlDeltas(MemoryDeltas):
    """The SQL savers' delta cache: :meth:`plan_put` makes :meth:`plan`'s plans directly where it can."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._scalars = ScalarMemo()

    def plan_put(
        self, serde: Serializer, thread_id: str, ns: str, values: Mapping[str, Any], new_versions: Mapping[str, int],
        versions: Mapping[str, int],
    ) -> BlobPlan:  # fmt: skip
        """:meth:`plan` of a put (``versions``: the checkpoint's ``channel_versions``).

        Raises:
            SerializationError, StateTooLargeError: as :meth:`plan`.
        """
        plan = _plan_direct(self, serde, thread_id, ns, values, new_versions, versions)
        return self.plan(serde, thread_id, ns, values, new_versions, versions) if plan is None else plan

    def touch(self, thread_id: str) -> None:
        """Make the thread the most recently used one (if the cache holds it)."""
        with self._lock:
            if thread_id in self._threads:
                self._threads.move_to_end(thread_id)


def _plan_direct(
    deltas: SqlDeltas, serde: Serializer, thread_id: str, ns: str, values: Mapping[str, Any], new_versions: Mapping[str, int],
    versions: Mapping[str, int],
) -> BlobPlan | None:  # fmt: skip
    """The plan :meth:`DeltaCache.plan` makes, or None: none made here (no inline values, or a
    state over the size limit: the planner raises its error)."""
    if not deltas.inline:
        return None
    last = deltas.forms.get(thread_id, ns)
    inline, rows = plan_inline(values, new_versions, versions, last)
    learned: dict[str, Known | None] = dict.fromkeys(new_versions)  # (None: no list; a list's below, in its place)
    lists: dict[str, Any] = {}
    ref_sizes: dict[str, int] = {}
    fanout = deltas.fanout
    for channel, version in () if new_versions.keys() <= inline.keys() else new_versions.items():  # a step of small values: none
        if channel in inline:
            continue
        value = values.get(channel, _MISSING)
        if value is _MISSING:  # a version outside ``versions``: not in the row's order
            rows.append(BlobRow(channel, version, EMPTY, b""))
            continue
        kind = type(value)
        if kind is list and fanout:
            deltas.touch(thread_id)  # as the planner's look-up of the channel's last list does
            lists[channel] = value
            blob, known = deltas.plan_list(serde, thread_id, ns, channel, version, value)
            rows.append(BlobRow(channel, version, *blob))
            learned[channel] = known
            continue
        row, ref_size = whole_row(serde, (lambda: deltas.committed_lists(thread_id)) if fanout else None, channel, version, value)
        rows.append(row)
        if ref_size is not None:
            lists[channel], ref_sizes[channel] = value, ref_size
    plan = BlobPlan(rows, learned, lists, serde, ns=ns, ref_sizes=ref_sizes, inline=inline, stored=stored(versions, inline, last))
    if deltas.max_state_bytes is not None:
        sizes = _measure(deltas, serde, thread_id, ns, values, versions, plan)
        if sizes is None:
            return None
        plan.sizes = sizes
    return plan


def _measure(
    deltas: SqlDeltas, serde: Serializer, thread_id: str, ns: str, values: Mapping[str, Any], versions: Mapping[str, int],
    plan: BlobPlan,
) -> dict[str, tuple[int, int]] | None:  # fmt: skip
    """:meth:`DeltaCache._measure`'s sizes, or None when they are over the limit; a small scalar's from the memo."""
    written = {r.channel: r for r in plan.rows} if plan.rows else {}
    entry = deltas._threads.get(thread_id)  # one look-up, atomic; its sizes read as they are (no copy, no LRU move)
    remembered = {} if entry is None else entry.sizes
    memo = deltas._scalars.table(serde)
    sizes: dict[str, tuple[int, int]] = {}
    total = 0
    for channel, version in versions.items():
        value = values.get(channel, _MISSING)
        if value is _MISSING:
            continue
        row = written.get(channel)
        if row is not None:
            size = plan.written_size(row)
        else:
            found = remembered.get((ns, channel))
            if found is not None and found[0] == version:
                size = found[1]
            else:  # not seen at this version yet: measured once (a small scalar's bytes from the memo)
                kind = type(value)
                dumped = memo.get((kind, value)) if kind in _SCALARS else None
                size = len((dumped or dumps_scalar(memo, serde, channel, value))[1])
        sizes[channel] = (version, size)
        total += size
    limit = deltas.max_state_bytes
    return None if limit is None or total > limit else sizes


def _text_keys(v: Any, seen: Any, updated: Any, inline: Any, versions: Any) -> bool:
    """Whether every map key of a meta is text, as ``json_safe`` wants: the keys of its maps
    (``seen`` and its entries, ``inline``, ``versions``), the items of ``updated`` and the values of
    the inline entries are text, scalars and integers (versions: a saver's put checked the channel
    versions, :func:`~engine.checkpoint._versions.take_checkpoint`, and the caller ``versions_seen``'s,
    :func:`~engine.checkpoint._versions.seen_ints`), so no other map is in it.
    ``str.join`` checks text in C, refusing anything else (TypeError)."""
    try:
        "".join(seen)
        "".join(chain.from_iterable(seen.values()))  # (a node's entry that is not a map of text: refused or text)
        if updated is not None:
            "".join(updated)
        if inline is not None:
            "".join(inline)
        if versions is not None:
            "".join(versions)
        # an inline entry: [position, version] or [position, version, value], the value a scalar (_inline.py)
        return type(v) is int and (inline is None or _INLINE.issuperset(map(type, map(_last, inline.values()))))
    except (TypeError, AttributeError, LookupError):  # not text, not a map...
        return False


def blob_versions(plan: BlobPlan, versions: Mapping[str, int]) -> Mapping[str, int]:
    """``plan.blob_versions(versions)``: none when every channel is inline (a step of small values)."""
    return {} if plan.inline and len(plan.inline) == len(versions) else plan.blob_versions(versions)


def dump_sql_meta(
    serde: Serializer, checkpoint: Checkpoint, versions: Mapping[str, int] | None, inline: Mapping[str, list[Any]]
) -> tuple[str, bytes]:
    """``dump_meta(serde, checkpoint, versions=versions, inline=inline, compact=True)``, packed by
    msgpack alone when the meta is plain data of its shape (see the module docstring).

    Raises:
        SerializationError: as :func:`~engine.checkpoint._helpers.dump_meta`.
    """
    found = _meta_direct(serde, checkpoint, versions, inline)
    return dump_meta(serde, checkpoint, versions=versions, inline=inline, compact=True) if found is None else found


def _meta_direct(
    serde: Serializer, checkpoint: Checkpoint, versions: Mapping[str, int] | None, inline: Mapping[str, list[Any]]
) -> tuple[str, bytes] | None:
    """The meta's bytes as the serializer packs them, or None: the serializer's to pack."""
    if not packs_as_is(serde):
        return None  # a serializer of its own making, or a codec's bytes
    seen = checkpoint["versions_seen"]
    meta: dict[str, Any] = {"v": checkpoint["v"], "s": seen, "u": checkpoint.get("updated_channels")}
    if inline:
        meta["i"] = inline
    if versions is not None:
        meta["c"] = versions
    if serde.json_safe and not (seen_ints(checkpoint) and _text_keys(meta["v"], seen, meta["u"], inline or None, versions)):
        return None
    data = pack_plain(meta)
    if data is None or could_nest_past_wire(data) or (serde.json_safe and _NON_FINITE.search(data) is not None):
        return None  # a lone surrogate, a long integer, deep lists, maybe a NaN...: the serializer decides
    return TAG, data
