"""What the SQL run stores (SQLite's and PostgreSQL's) share: the rows of a run's events and records.

A write of several events is one row (:func:`pack_events`); a record is read back from a row's values
(:func:`record_of`); a listing leaves out what a listing does not show (:func:`listed_columns`,
:func:`listing_sql`; see :func:`engine.checkpoint._runs.slim`).
"""

from __future__ import annotations

import struct
from typing import Any, Callable, Sequence

from engine.checkpoint._runs import _BYTES, FIELDS, RunRecord

__all__ = ["events_of_rows", "listed_columns", "listing_sql", "pack_events", "record_of", "unpack_events"]

#: A packed event's head: its seq and its length, 4 bytes each, big-endian.
_HEAD = struct.Struct(">II")


def pack_events(events: Sequence[tuple[int, bytes]]) -> tuple[int, int, bytes]:
    """The stored row of one write's ``events`` (in seq order): (first seq, last seq, data).

    One event is stored as it is; several are packed, each as its :data:`_HEAD` and its bytes:
    a write of many events is one row (a row costs more to insert than its bytes to copy).
    """
    if len(events) == 1:
        seq, data = events[0]
        return seq, seq, bytes(data)
    return events[0][0], events[-1][0], b"".join(_HEAD.pack(s, len(d)) + d for s, d in events)


def unpack_events(seq: int, last_seq: int, data: bytes) -> list[tuple[int, bytes]]:
    """The events of a stored row (see :func:`pack_events`)."""
    if last_seq == seq:
        return [(seq, data)]
    out, at, view = [], 0, memoryview(data)
    while at < len(data):
        s, n = _HEAD.unpack_from(data, at)
        at += _HEAD.size
        out.append((s, bytes(view[at : at + n])))
        at += n
    return out


def events_of_rows(
    fetch: Callable[[int, int], Sequence[tuple[int, int, bytes]]], after_seq: int, limit: int
) -> list[tuple[int, bytes]]:
    """Events after ``after_seq`` (at most ``limit``, in seq order) from stored rows, each seq once.

    ``fetch(start, n)``: at most ``n`` rows ``(seq, last_seq, data)`` of the run holding an event
    after ``after_seq`` whose first seq is above ``start``, in seq order. Where two rows hold
    one seq (two writers of one run: a replica taken over while still writing), the one that
    starts lower gives it.
    """
    out: list[tuple[int, bytes]] = []
    last, start = after_seq, -1
    while len(out) < limit:
        rows = fetch(start, limit)
        for seq, last_seq, data in rows:
            for s, d in unpack_events(int(seq), int(last_seq), bytes(data)):
                if s > last:
                    out.append((s, d))
                    last = s
        if len(rows) < limit:
            break
        start = int(rows[-1][0])
    return out[:limit]


def record_of(values: dict[str, Any]) -> RunRecord:
    """A record from a SQL row's values by field name (its binary columns as ``bytes``)."""
    for name in _BYTES:
        if values[name] is not None:
            values[name] = bytes(values[name])
    return RunRecord(**values)


def listed_columns(empty_bytes: str) -> str:
    """The SQL select list of a listing, as :func:`slim` (``empty_bytes``: the dialect's empty binary literal)."""
    special = {"request": f"{empty_bytes} AS request", "finished": "NULL AS finished", "outcome": "coalesce(outcome, finished) AS outcome"}
    return ", ".join(special.get(n, n) for n in FIELDS)


def listing_sql(runs: str, param: Callable[[str], str], empty_bytes: str) -> dict[tuple[bool, bool], str]:
    """The SQL of :meth:`RunStore.alist`, by (``full``, ``before`` given), for a SQL store.

    A page of a thread's runs, newest first: the index ``runs_listing`` (thread_id, started_at,
    run_id) read backwards from the top, or from the run named by ``before`` (a row value compared
    on the index: no row before it is read), at most ``limit`` rows. ``runs``: the table's name;
    ``param(name)``: the dialect's placeholder for parameter ``name``; ``empty_bytes``: its empty
    binary literal. Parameters: thread_id, before, limit (all of them: the dialect's "no limit").
    """
    out = {}
    for full in (False, True):
        head = f"SELECT {', '.join(FIELDS) if full else listed_columns(empty_bytes)} FROM {runs} WHERE thread_id = {param('thread_id')}"
        order = f"ORDER BY started_at DESC, run_id DESC LIMIT {param('limit')}"
        after = f"(SELECT started_at, run_id FROM {runs} WHERE run_id = {param('before')} AND thread_id = {param('thread_id')})"
        out[full, False] = f"{head} {order}"
        out[full, True] = f"{head} AND (started_at, run_id) < {after} {order}"
    return out
