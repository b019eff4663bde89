"""What the PostgreSQL saver's write statement takes: a batch of rows, as :data:`~._queries.PUT`'s parameters.

A batch holds checkpoint rows, their blob rows and pending writes (any may
be none). Each kind goes to PostgreSQL as one JSON text, an array of rows
(each an array, columns by position), and every row's bytes as a slice of
one bytea: a few parameters whatever the batch holds, each adapted by
psycopg at C speed (a list per column, as arrays, cost ~20 µs of Python
each). A row may extend another row of the thread (a delta's base, a ref:
see :mod:`engine.checkpoint._chain`); when the statement fails because one
of those is gone (a foreign key), the saver sends the same rows again
written whole: ``full=True``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.checkpoint._chain import ITEMS, STORE_MIN, BlobRow, compressed
from engine.checkpoint._delta import BlobPlan
from engine.checkpoint._helpers import parse_write_config
from engine.checkpoint._writes import PACK, WriteRow, at_risk, packed, past_stored, repeating
from engine.checkpoint.postgres._leases import require_storable
from engine.serde import Serializer

__all__ = ["Batch", "Put", "TaskWrites", "past_stored_writes", "store_past_stored"]

#: Tags of a write row that may name a row of its batch as holding its items (see _queries._PUT).
_REPEATS = (ITEMS, PACK)

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(frozen=True, slots=True)
class Put:
    """One version to store: its checkpoint row's columns, serialized, and its blob rows' plan."""

    checkpoint_id: str
    parent_id: str | None
    ts: str
    type: str
    checkpoint: bytes
    metadata: str  # JSON text
    versions: str  # JSON text
    plan: BlobPlan
    run_id: str | None = None  # the run that wrote it (a UUID's text), out of the metadata


@dataclass(frozen=True, slots=True)
class TaskWrites:
    """One task's pending writes, serialized."""

    keys: tuple[str, str, str, str, str]  # thread_id, ns, checkpoint_id, task_id, task_path
    rows: list[WriteRow]
    serde: Serializer
    #: the rows are what the task's stored rows leave (:func:`past_stored`): stored past its pack
    checked: bool = False

    @classmethod
    def of(
        cls, serde: Serializer, config: Mapping[str, Any], task_id: str, task_path: str, rows: Sequence[WriteRow]
    ) -> TaskWrites | None:
        """The rows to store (None: none). One statement may not update a row twice: the last special wins."""
        thread_id, ns, checkpoint_id = parse_write_config(config)
        by_idx: dict[int, WriteRow] = {}
        for r in rows:
            if r.replaces or r.idx not in by_idx:
                by_idx[r.idx] = r
        if not by_idx:
            return None
        require_storable(thread_id, ns, checkpoint_id, task_id, task_path, *(r.channel for r in by_idx.values()))
        return cls((thread_id, ns, checkpoint_id, task_id, task_path), packed(list(by_idx.values()), task_id), serde)

    @classmethod
    def with_versions(
        cls, serde: Serializer, dumped: Sequence[tuple[Mapping[str, Any], str, str, list[WriteRow]]],
        puts: Sequence[Put], thread_id: str, ns: str,
    ) -> list[TaskWrites]:
        """Tasks' serialized writes ``(config, task_id, task_path, rows)`` to store with ``puts`` (versions of
        ``thread_id`` in ``ns``): a write its version's child repeats as a delta names that row (see
        :func:`~engine.checkpoint._writes.repeating`)."""
        children = {p.parent_id: p.plan.rows for p in puts}
        out = []
        for config, task_id, task_path, rows in dumped:
            w_thread, w_ns, w_id = parse_write_config(config)
            blobs = children.get(w_id) if w_ns == ns and w_thread == thread_id else None
            tw = cls.of(serde, config, task_id, task_path, repeating(rows, blobs, ns) if blobs else rows)
            if tw is not None:
                out.append(tw)
        return out

    @property
    def thread_id(self) -> str:
        return self.keys[0]

    def rows_to_send(self, *, full: bool) -> list[WriteRow]:
        """The rows (``full``: every write whole, without refs)."""
        return [r.full(self.serde) for r in self.rows] if full else self.rows


def store_past_stored(
    cur: Any, q: Any, batch: Batch, stored: Sequence[tuple[Any, Any]], *, full: bool, fence: Callable[[], dict[str, Any]] | None
) -> bool:
    """After ``batch``'s statement (its rows ``stored``), store the writes it left out where a task's
    pack (or a write past index 0) met the task's stored rows: those :func:`past_stored_writes` names,
    in a second statement (``fence``: its parameters, when the lease must hold). False: fenced off."""
    risky = batch.risky
    if sum(len(rows) for _, rows in risky) <= next((-1 - v for c, v in stored if c is None and v < 0), 0):
        return True  # each stored: the common case
    more = past_stored_writes(cur, q.TASK_WRITES, batch.thread_id, risky)
    if not more:
        return True
    params = Batch(batch.thread_id, batch.ns, [], more).params(full=full)
    if fence is None:
        cur.execute(q.PUT, params)
        return True
    cur.execute(q.PUT_FENCED, {**params, **fence()})
    return any(c is None and v >= 0 for c, v in cur.fetchall())


def past_stored_writes(cur: Any, query: str, thread_id: str, risky: list[tuple[TaskWrites, list[WriteRow]]]) -> list[TaskWrites]:
    """Of ``risky`` (:attr:`Batch.risky`), the rows to store past what each task has stored (a task run
    again that writes more than its first run), read with ``query`` (``TASK_WRITES``) on ``cur``."""
    keys = [tw.keys for tw, _ in risky]
    cur.execute(query, {"thread_id": thread_id, "ns": [k[1] for k in keys], "ids": [k[2] for k in keys], "tasks": [k[3] for k in keys]})
    stored: dict[tuple[str, str, str], list[tuple[int, Any, Any]]] = {}
    for ns, checkpoint_id, task_id, idx, tag, data in cur.fetchall():
        stored.setdefault((ns, checkpoint_id, task_id), []).append((idx, tag, data))
    out = []
    for tw, rows in risky:
        left = past_stored(rows, stored.get(tw.keys[1:4], ()), tw.keys[3])
        if left:
            out.append(TaskWrites(tw.keys, left, tw.serde, checked=True))
    return out


class Batch:
    """The parameters of one :data:`~._queries.PUT` statement, by :meth:`params`.

    ``puts`` are versions of one thread and namespace; ``writes`` name their own.
    Two writes with the same key (checkpoint, task, index) are one row: the
    first regular write, the last special one (what storing them one by one
    would leave).
    """

    def __init__(self, thread_id: str, ns: str, puts: Sequence[Put], writes: Sequence[TaskWrites]) -> None:
        self.thread_id, self.ns = thread_id, ns
        self.puts = puts
        self.writes = writes
        #: of the writes the last :meth:`params` sent, by task, those that may meet a pack of their task stored
        #: before (:func:`~engine.checkpoint._writes.at_risk`): what the statement counts
        self.risky: list[tuple[TaskWrites, list[WriteRow]]] = []

    def blob_rows(self, *, full: bool) -> list[list[BlobRow]]:
        """Each put's blob rows (``full``: no deltas)."""
        return [p.plan.full() if full else p.plan.rows for p in self.puts]

    def params(self, *, full: bool = False) -> dict[str, Any]:
        chunks: list[bytes] = []  # every row's bytes; a row names its slice: (start, length)
        at = 1  # substring() counts from 1
        checkpoints = []
        blobs = []
        for p, rows in zip(self.puts, self.blob_rows(full=full)):
            chunks.append(p.checkpoint)
            head = _dumps([p.checkpoint_id, p.parent_id, p.ts, p.type, at, len(p.checkpoint)])
            at += len(p.checkpoint)
            checkpoints.append(f"{head[:-1]},{p.metadata},{p.versions},{_dumps(p.run_id)}]")  # metadata and versions are JSON already
            for r in rows:
                tag, data = compressed(r.type, r.data, STORE_MIN) if len(r.data) >= STORE_MIN else (r.type, r.data)
                chunks.append(data)
                f = r.ref
                if f is None:
                    blobs.append([r.channel, r.version, tag, at, len(data), r.base, r.seq, None, None, None, None])
                else:
                    blobs.append([r.channel, r.version, tag, at, len(data), r.base, r.seq, f.ns, f.channel, f.version, f.key])
                at += len(data)
        writes: dict[tuple[Any, ...], list[Any]] = {}
        self.risky = []
        for tw in self.writes:
            thread_id, ns, checkpoint_id, task_id, task_path = tw.keys
            risky: list[WriteRow] = []
            for w in tw.rows_to_send(full=full):
                key = (thread_id, ns, checkpoint_id, task_id, w.idx)
                if key in writes and not w.replaces:
                    continue
                if not tw.checked and at_risk(w):
                    risky.append(w)
                tag, data = compressed(w.type, w.data, STORE_MIN) if len(w.data) >= STORE_MIN else (w.type, w.data)
                chunks.append(data)
                f = w.ref
                row = writes[key] = [thread_id, ns, checkpoint_id, task_id, w.idx, w.channel, tag, at, len(data), task_path,
                                     *((None, None, None, None) if f is None else (f.ns, f.channel, f.version, f.key))]  # fmt: skip
                at += len(data)
                if f is not None and w.type in _REPEATS:  # and its whole form, stored if the row it names is not new:
                    whole = w.full(tw.serde)  # seldom, so not compressed (which would cost every such write a zlib call)
                    chunks.append(whole.data)
                    row += [whole.type, at, len(whole.data), None, None, None, None, None]  # 14-21: columns 6-13 of the whole form
                    at += len(whole.data)
                if tw.checked:  # 22: stored past the task's pack, if it has one
                    row += [None] * (22 - len(row)) + [1]
            if risky:
                self.risky.append((tw, risky))
        return {
            "thread_id": self.thread_id, "ns": self.ns, "bytes": b"".join(chunks),
            "checkpoints": f"[{','.join(checkpoints)}]", "blobs": _dumps(blobs), "writes": _dumps(list(writes.values())),
        }  # fmt: skip
