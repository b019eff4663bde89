"""Pending writes as every saver stores them: serialized rows, and reading them back.

A task's writes are stored one row per write, except in the SQL savers several
regular writes of one call, none a ref, which are one row (:func:`packed`: a
chat step's message and its trigger were two rows, each with the checkpoint's
and task's ids, its path and an index entry). A write that repeats a list the
thread already stored (a subgraph's output handing the whole conversation
back to its parent; a subgraph's START task writing its input) is stored as
a :class:`~engine.checkpoint._chain.Ref` to that list's row and the items
after it, so what a subgraph call stores does not grow with the conversation.
A saver stores such a row only while the row it names exists (the SQL
savers' foreign key, the in-memory saver's check), and writes it whole
otherwise (:meth:`WriteRow.full`).

A step's write that the next version stores again as its delta (a chat
step's new message, stored with that version in one batch) is, in the SQL
savers, a ref to that blob row with the tag :data:`~engine.checkpoint._chain.ITEMS`
and no data: its value is the items the row holds itself (:func:`repeating`).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

import msgpack

from engine.checkpoint._chain import EMPTY, ITEMS, ZLIB, BlobRow, ChainReader, Ref, uncompressed
from engine.checkpoint._refs import MIN_ITEMS
from engine.checkpoint.base import ERROR, WRITES_IDX_MAP, PendingWrite
from engine.errors import CorruptCheckpointError
from engine.serde import Serializer, StateTooLargeError

__all__ = [
    "ITEMS_MIN", "NULL_TASK_ID", "PACK", "WriteRow", "at_risk", "dump_writes", "load_writes", "packed", "past_stored", "repeating",
    "unpacked", "write_ref",
]  # fmt: skip

#: Type tag of a row holding several regular writes of one task, in index order
#: (msgpack: a list of ``[channel, type, data]``); the row has the first one's index, 0.
PACK = "graphwire:writes"


class WriteRow(NamedTuple):  # a tuple: one is made per pending write
    """One serialized pending write: its index, channel, data and, when ``ref``
    is set, the stored list its value extends (the data then holds the rest)."""

    idx: int
    channel: str
    type: str
    data: bytes
    replaces: bool  # a special channel's write replaces what its (task, idx) held
    ref: Ref | None = None
    #: ref set only: the value, to store in full after all; for an :data:`~._chain.ITEMS` row, the
    #: row as serialized; for a :data:`PACK`, the rows packed (ref or not: see :func:`past_stored`)
    value: Any = None

    def full(self, serde: Serializer) -> WriteRow:
        """This write without its ref (the row it names is not stored after all)."""
        if self.ref is None:
            return self
        if self.type == ITEMS:
            return self.value  # type: ignore[no-any-return]
        if self.type == PACK:
            return packed([r.full(serde) for r in self.value], "")[0]
        tag, data = serde.dumps_typed(self.value, path_prefix=f"write to channel {self.channel!r}")
        return WriteRow(self.idx, self.channel, tag, data, self.replaces)


def dump_writes(
    serde: Serializer,
    writes: Sequence[tuple[str, Any]],
    task_id: str,
    *,
    max_bytes: int | None = None,
    refer: Callable[[Any], tuple[Ref, Any, int] | None] | None = None,
) -> list[WriteRow]:
    """Serialize a task's writes, giving special channels their fixed index.

    A regular write keeps the first copy stored at its ``(task_id, idx)``
    (so a retried task does not duplicate it); a special one replaces it.
    ``refer`` (the saver's delta cache, :meth:`~engine.checkpoint._delta.DeltaCache.referrer`):
    a write that repeats a list the thread stored (a subgraph's output
    handing its whole conversation back to the parent) is stored as a ref to
    it and the rest, not whole.

    Raises:
        SerializationError: a value outside the allowlist.
        StateTooLargeError: one write alone is larger than ``max_bytes`` (the
            saver's ``max_state_bytes``: such a write could never become state).
    """
    rows: list[WriteRow] = []
    for idx, (channel, value) in enumerate(writes):
        where = f"write of task {task_id!r} to channel {channel!r}"
        special = WRITES_IDX_MAP.get(channel)
        if channel == ERROR and isinstance(value, BaseException):
            value = repr(value)  # what LangGraph (which hands the exception itself) stores, and the engine writes
        # Only a dict, or a list of MIN_ITEMS or more, can be a ref: the common one-message write skips the look.
        kind = type(value)
        worth = kind is dict or (kind is list and len(value) >= MIN_ITEMS)
        found = refer(value) if worth and refer is not None and special is None else None
        if found is None:
            tag, data = serde.dumps_typed(value, path_prefix=where)
            size = len(data)
        else:
            tag, data = serde.dumps_typed(found[1], path_prefix=where)
            size = len(data) + found[2]
        if max_bytes is not None and size > max_bytes:
            raise StateTooLargeError(
                f"{where}: {size} bytes, over the state size limit of {max_bytes} bytes (max_state_bytes)"
            )
        ref = None if found is None else found[0]
        rows.append(WriteRow(idx if special is None else special, channel, tag, data, special is not None, ref,
                             value if ref is not None else None))  # fmt: skip
    return rows


#: The shortest serialized write :func:`repeating` names a row for.
ITEMS_MIN = 128

#: The task id a step's input writes (a Command's update and goto) are stored under, as LangGraph's.
NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"


def repeating(rows: list[WriteRow], blobs: Iterable[BlobRow], ns: str) -> list[WriteRow]:
    """``rows`` (a task's writes to version P, serialized) with each regular write that a blob row
    of ``blobs`` (of namespace ``ns``: the rows of P's child, stored in the same batch) holds as
    its own items, byte for byte, made an :data:`~._chain.ITEMS` ref to that row: the step's
    one write to ``messages`` is the next version's delta of it, stored once.

    Only a write of :data:`ITEMS_MIN` bytes or more: the ref's columns and its index entry
    cost about as much as a short message.

    The saver stores such a ref only with the row it names inserted by the same batch as
    planned (else :meth:`WriteRow.full`): a row stored before may hold another form.
    """
    if not any(len(r.data) >= ITEMS_MIN for r in rows):
        return rows
    # Deltas only: their rows hold a list's new items. A full row holds the channel's whole value,
    # which equals a write's bytes for a LastValue channel too (a string, a dict): the read takes
    # only a list's items back.
    own = {b.channel: b for b in blobs if b.base is not None and b.ref is None and b.type != EMPTY}
    out = []
    for r in rows:
        b = own.get(r.channel) if len(r.data) >= ITEMS_MIN else None
        if b is not None and r.ref is None and not r.replaces and r.type == b.type and r.data == b.data:
            r = WriteRow(r.idx, r.channel, ITEMS, b"", False, Ref(ns, b.channel, b.version), r)
        out.append(r)
    return out


def packed(rows: list[WriteRow], task_id: str) -> list[WriteRow]:
    """One call's rows as the SQL savers store them: its regular writes in one row when there
    are several and none is a ref but one :data:`~._chain.ITEMS` ref (the pack's ref; a special
    write replaces its own row: those stay apart).

    A regular write keeps the first copy stored at its index; a retried task writes
    the same writes again, so a pack keeps the first pack stored, as its rows would. A task
    run again may write more than it did (or the same writes apart, after a pack): the SQL
    savers then store those past what is stored, one row each (:func:`past_stored`).
    Not the null task's: a second Command on a version sends the writes stored there with
    its own after them, and the rows past the first pack's must be stored.
    """
    if len(rows) < 2 or rows[0].idx != 0 or task_id == NULL_TASK_ID or any(r.replaces for r in rows):
        return rows
    refs = [r for r in rows if r.ref is not None]
    if refs and (len(refs) > 1 or refs[0].type != ITEMS):
        return rows
    data = msgpack.packb([[r.channel, r.type, r.data] for r in rows], use_bin_type=True)
    return [WriteRow(0, rows[0].channel, PACK, data, False, refs[0].ref if refs else None, rows)]


def at_risk(row: WriteRow) -> bool:
    """Whether storing ``row`` (a task's write) may meet a pack of the same task stored before: it is
    a pack (which holds the indexes past its own), or a regular write past index 0 (which a pack may
    hold). Such rows are stored by :func:`past_stored`'s rule."""
    return not row.replaces and (row.idx > 0 or row.type == PACK)


def past_stored(rows: Iterable[WriteRow], stored: Iterable[tuple[int, Any, Any]], task_id: str) -> list[WriteRow]:
    """Of a task's regular writes ``rows`` (packs taken apart), those whose index nothing in
    ``stored`` holds: the task's (``task_id``) stored rows ``(idx, type, data)``, where a pack at index 0 holds
    the indexes 0 to its length. What a SQL saver stores of a call whose pack (or a row past
    index 0) met stored rows of the task: LangGraph's rule, each index keeps its first write.

    Raises:
        CorruptCheckpointError: a stored pack that does not decode.
    """
    held: set[int] = set()
    for idx, tag, data in stored:
        tag, data = _opened(task_id, tag, data)
        if tag == PACK:
            held.update(range(idx, idx + len(_pack_items(task_id, data))))
        else:
            held.add(idx)
    out: list[WriteRow] = []
    for r in rows:
        out.extend(r.value if r.type == PACK else (r,))
    return [r for r in out if not r.replaces and r.idx not in held]


def unpacked(reader: ChainReader, task_id: str, channel: Any, tag: Any, data: Any, ref: Any) -> list[PendingWrite]:
    """A stored write row's pending writes: its own, or a pack's (see :func:`packed`).

    Raises:
        CorruptCheckpointError: a pack that is not a list of ``[channel, type, data]``,
            or a value that does not decode.
    """
    tag, data = _opened(task_id, tag, data)
    if tag != PACK:
        return [PendingWrite(task_id, channel, reader.resolve(tag, data, ref))]
    items = _pack_items(task_id, data)
    # A pack's ref is its ITEMS write's (see packed); no other item may name it.
    if ref is None and any(t == ITEMS for _, t, _ in items):
        raise CorruptCheckpointError(f"stored pending writes of task {task_id!r:.60} repeat a row they do not name")
    return [PendingWrite(task_id, ch, reader.resolve(t, d, ref if t == ITEMS else None)) for ch, t, d in items]


def _opened(task_id: str, tag: Any, data: Any) -> tuple[Any, Any]:
    """A stored write row's ``(tag, data)``, decompressed if it was stored so (the SQL savers: STORE_MIN).

    Raises:
        CorruptCheckpointError: compressed data that does not decompress.
    """
    if type(tag) is str and tag.startswith(ZLIB):
        try:
            return uncompressed(tag, bytes(data))
        except (zlib.error, TypeError) as exc:
            raise CorruptCheckpointError(f"stored pending writes of task {task_id!r:.60} do not decompress ({exc})") from None
    return tag, data


def _pack_items(task_id: str, data: Any) -> list[list[Any]]:
    """A stored pack's writes, ``[channel, type, data]`` each.

    Raises:
        CorruptCheckpointError: data that does not decode to such a list.
    """
    try:
        items = msgpack.unpackb(data, raw=False, use_list=True)
    except Exception as exc:  # noqa: BLE001 - hostile bytes: any failure to decode is corruption
        raise CorruptCheckpointError(f"stored pending writes of task {task_id!r:.60} do not decode ({exc})") from None
    if type(items) is not list or not all(
        type(i) is list and len(i) == 3 and type(i[0]) is str and type(i[1]) is str and type(i[2]) is bytes for i in items
    ):
        raise CorruptCheckpointError(f"stored pending writes of task {task_id!r:.60} are not a list of writes")
    return items


def load_writes(reader: ChainReader, rows: Iterable[Sequence[Any]]) -> list[PendingWrite]:
    """Decode stored pending writes, checking their columns.

    A row is ``(task_id, channel, type, data)`` or, from a table with refs,
    ``(task_id, channel, type, data, ref_ns, ref_channel, ref_version, ref_key)``;
    a write with a ref extends a list whose rows ``reader`` has read.

    Raises:
        CorruptCheckpointError: a task id or channel that is not text, data
            that does not decode, or a ref to nothing ``reader`` holds.
    """
    out = []
    for row in rows:
        task_id, channel, tag, data = row[:4]
        if type(task_id) is not str or type(channel) is not str:
            raise CorruptCheckpointError(
                f"stored pending write: task id {task_id!r:.60} and channel {channel!r:.60} are not both text"
            )
        out.extend(unpacked(reader, task_id, channel, tag, data, write_ref(row)))
    return out


def write_ref(row: Sequence[Any]) -> tuple[Any, Any, Any, Any] | None:
    """The ref columns of a stored pending write (its last four of eight), or None."""
    if len(row) < 8 or (row[4] is None and row[5] is None and row[6] is None and row[7] is None):
        return None
    return (row[4], row[5], row[6], row[7])
