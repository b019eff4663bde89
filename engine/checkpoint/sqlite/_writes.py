"""Writing checkpoints to SQLite: puts, a chain of puts, pending writes, deleting and pruning a thread.

Values are serialized on the caller's thread before any statement (an
unstorable value fails before the transaction, and a state is not read while
the next step changes it); each write is then one write transaction on the
saver's file. The delta cache plans each version's rows (:mod:`engine.checkpoint._sql_write`) from the thread's
last values and learns what was stored (``deltas.commit``), or forgets the
thread when a write fails.

:class:`Writes` is part of :class:`~engine.checkpoint.sqlite.SqliteSaver` by
composition: it shares the saver's file (:class:`~._file.SaverFile`), delta
cache and serializer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.checkpoint._chain import ITEMS, STORE_MIN, BlobRow, compressed
from engine.checkpoint._delta import BlobPlan, base_key
from engine.checkpoint._versions import take_checkpoint
from engine.checkpoint._helpers import dump_metadata, make_config, parse_config, parse_write_config
from engine.checkpoint._metadata import put_metadata, split_run
from engine.checkpoint._retention import Choose
from engine.checkpoint._sql_write import SqlDeltas, blob_versions, dump_sql_meta
from engine.checkpoint._ts import stored_ts
from engine.checkpoint._writes import PACK, WriteRow, at_risk, dump_writes, packed, past_stored, repeating
from engine.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata, check_chain
from engine.checkpoint.sqlite import _queries as q
from engine.checkpoint.sqlite._file import SaverFile
from engine.checkpoint.sqlite._prepared import Ending, PreparedWrite
from engine.checkpoint.sqlite._prune import prune
from engine.serde import Serializer

__all__ = ["Writes"]

#: One version ready to store: (thread_id, ns, its blobs' plan, its checkpoint row).
Prepared = tuple[str, str, BlobPlan, tuple[Any, ...]]
#: One pending write ready to store: ((thread_id, ns, checkpoint_id, task_id, task_path), its row).
KeyedWrite = tuple[tuple[str, str, str, str, str], WriteRow]


class Writes:
    """The saver's writes (``put``, ``put_many``, ``put_writes``, ``delete_thread``, ``prune_thread``)."""

    def __init__(self, file: SaverFile, deltas: SqlDeltas, serde: Callable[[], Serializer]) -> None:
        self._file = file
        self._deltas = deltas
        self._serde = serde

    def _prepare(
        self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> Prepared:
        """Serialize one version (an unstorable value fails here, before any statement)."""
        serde = self._serde()
        thread_id, ns, parent_id = parse_config(config)
        checkpoint, new_versions = take_checkpoint(checkpoint, new_versions)
        versions = checkpoint["channel_versions"]
        plan = self._deltas.plan_put(serde, thread_id, ns, checkpoint["channel_values"], new_versions, versions)
        meta_type, meta = dump_sql_meta(serde, checkpoint, blob_versions(plan, versions), plan.inline)
        md, run = split_run(put_metadata(config, metadata))  # the run has a column of its own, 16 bytes
        checkpoint_row = (
            thread_id, ns, checkpoint["id"], parent_id, stored_ts(checkpoint["id"], checkpoint["ts"]), meta_type, meta, dump_metadata(md),
            None if run is None else bytes.fromhex(run.replace("-", "")),
        )  # fmt: skip
        return thread_id, ns, plan, checkpoint_row

    async def put(
        self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> dict[str, Any]:
        prepared = thread_id, ns, plan, _ = self._prepare(config, checkpoint, metadata, new_versions)
        (inserted,) = await self._file.work(self._put, [prepared], [])
        self._deltas.commit(thread_id, ns, plan, inserted)
        return make_config(thread_id, ns, checkpoint["id"])

    async def put_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Any, ...]] = (),
    ) -> list[dict[str, Any]]:
        """Store a chain of versions of one thread, and pending writes of them, in one transaction.

        All or none: a run's writer counts the batch as saved only once it
        landed, so a refused version must not leave the ones before it stored.
        The cache assumes each plan before the next (whose deltas may build
        on it), and forgets the thread if the batch fails.
        """
        if len(puts) < 2 and not writes:  # (a chain of one: nothing to check)
            return [await self.put(*put) for put in puts]
        return await self.prepare_many(puts, writes=writes).astore()

    def prepare_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Any, ...]] = (),
    ) -> PreparedWrite:
        """:meth:`put_many` up to its transaction (engine/checkpoint/sqlite/_prepared.py): an unstorable value
        fails here; the cache assumes each plan until the write is stored (or forgets the thread)."""
        check_chain(puts)
        thread_id = parse_config(puts[0][0])[0]
        prepared: list[Prepared] = []
        try:
            for put in puts:
                version = self._prepare(*put)
                self._deltas.assume(version[0], version[1], version[2])
                prepared.append(version)
            # A step's writes go with its child version: a write that version's delta repeats names its row.
            children = {(row[0], row[1], row[3]): plan.rows for _, _, plan, row in prepared}
            rows = [
                r for config, task_writes, task_id, *path in writes
                for r in self.write_rows(config, task_writes, task_id, path[0] if path else "", children)
            ]  # fmt: skip
        except BaseException:
            self._deltas.forget_thread(thread_id)
            raise
        return PreparedWrite(self._file.work, self._put, self._deltas, prepared, rows, thread_id)

    def _put(self, versions: Sequence[Prepared], writes: Sequence[KeyedWrite], ending: Ending | None = None) -> list[list[str]]:
        """Store serialized versions, then pending writes (then ``ending``, a run's end), in one
        transaction: per version, the channels inserted."""
        out: list[list[str]] = []
        with self._file.transaction(q.BEGIN_WRITE) as cur:

            def exists(thread_id: str, key: tuple[str, str, int] | None) -> bool:
                return key is None or cur.execute(q.BLOB_EXISTS, (thread_id, *key)).fetchone() is not None

            fresh: set[tuple[str, str, str, int]] = set()  # rows inserted now, as planned
            for thread_id, ns, plan, checkpoint_row in versions:
                inserted: list[str] = []
                stored = plan.without_missing_bases(lambda r, t=thread_id, ns=ns: exists(t, base_key(ns, r)))  # type: ignore[misc]
                for planned, b in zip(plan.rows, stored):
                    f = b.ref
                    tag, data = compressed(b.type, b.data, STORE_MIN) if len(b.data) >= STORE_MIN else (b.type, b.data)
                    cur.execute(q.INSERT_BLOB, (thread_id, ns, b.channel, b.version, tag, data, b.base, b.seq,
                                                f and f.ns, f and f.channel, f and f.version, f and f.key))  # fmt: skip
                    if cur.rowcount > 0:
                        inserted.append(b.channel)
                        if b is planned:
                            fresh.add((thread_id, ns, b.channel, b.version))
                cur.execute(q.INSERT_CHECKPOINT, checkpoint_row)
                out.append(inserted)
            regular: list[tuple[Any, ...]] = []
            special: list[tuple[Any, ...]] = []
            risky: dict[tuple[str, str, str, str, str], list[WriteRow]] = {}  # by task: rows a stored pack may meet

            def settled(thread_id: str, w: WriteRow) -> WriteRow:
                """``w`` as it can be stored: whole where the row it names is not there."""
                if w.ref is not None and w.type in (ITEMS, PACK) and (thread_id, w.ref.ns, w.ref.channel, w.ref.version) not in fresh:
                    w = w.full(self._serde())  # it names a row as holding its items: only one stored now, as planned
                if w.ref is not None and not exists(thread_id, (w.ref.ns, w.ref.channel, w.ref.version)):
                    w = w.full(self._serde())  # the list it extends is gone (pruned since the cache learned it)
                return w

            for key, w in writes:
                w = settled(key[0], w)
                if at_risk(w):
                    risky.setdefault(key, []).append(w)
                else:
                    (special if w.replaces else regular).append(_write_row(key, w))
            if regular:
                cur.executemany(q.INSERT_WRITE, regular)
            for key, rows in risky.items():
                self._put_past_stored(cur, key, rows, settled)
            if special:
                cur.executemany(q.REPLACE_WRITE, special)
            if ending is not None:
                ending.value = ending.fn(cur)
        return out

    @staticmethod
    def _put_past_stored(
        cur: Any, key: tuple[str, str, str, str, str], rows: list[WriteRow], settled: Callable[[str, WriteRow], WriteRow]
    ) -> None:
        """Store a task's packs and writes past index 0 (see :func:`~engine.checkpoint._writes.at_risk`): as
        they are when the task stored nothing they meet, else each write whose index nothing stored
        holds (a task run again that writes more than its first run; LangGraph's rule)."""
        apart = [w for w in rows if w.type != PACK]
        if not apart:  # the common case, a pack: stored unless the task's index 0 is stored already
            cur.execute(q.INSERT_WRITE, _write_row(key, rows[0]))
            if cur.rowcount > 0 and len(rows) == 1:
                return
        stored = cur.execute(q.TASK_WRITES, key[:4]).fetchall()
        for w in past_stored(rows, stored, key[3]):  # a pack's rows: each settled as the pack was
            cur.execute(q.INSERT_WRITE, _write_row(key, settled(key[0], w)))

    async def put_writes(
        self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        await self._file.work(self._put, [], self.write_rows(config, writes, task_id, task_path))

    def write_rows(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str,
        children: Mapping[tuple[str, str, str | None], Sequence[BlobRow]] | None = None,
    ) -> list[KeyedWrite]:
        """A task's writes serialized: ``((thread_id, ns, checkpoint_id, task_id, task_path), row)`` each.

        ``children``: the blob rows of the versions stored with them, by (thread, ns, parent id)
        (see :func:`~engine.checkpoint._writes.repeating`)."""
        serde = self._serde()
        thread_id, ns, checkpoint_id = parse_write_config(config)
        refer = self._deltas.referrer(serde, thread_id)
        dumped = dump_writes(serde, writes, task_id, max_bytes=self._deltas.max_state_bytes, refer=refer)
        blobs = children.get((thread_id, ns, checkpoint_id)) if children else None
        rows = packed(repeating(dumped, blobs, ns) if blobs else dumped, task_id)
        return [((thread_id, ns, checkpoint_id, task_id, task_path), r) for r in rows]

    async def delete_thread(self, thread_id: str) -> None:
        await self._file.work(self._delete_thread, thread_id)
        self._deltas.forget_thread(thread_id)

    def _delete_thread(self, thread_id: str) -> None:
        with self._file.transaction(q.BEGIN_WRITE) as cur:
            for statement in q.DELETE_THREAD:
                cur.execute(statement, (thread_id,))

    async def prune_thread(self, thread_id: str, choose: Choose) -> int:
        pruned = await self._file.work(self._prune, thread_id, choose)
        self._deltas.forget_thread(thread_id)
        return pruned

    def _prune(self, thread_id: str, choose: Choose) -> int:
        with self._file.transaction(q.BEGIN_WRITE) as cur:
            return prune(cur, self._serde(), thread_id, choose)


def _write_row(key: tuple[str, str, str, str, str], w: WriteRow) -> tuple[Any, ...]:
    """The columns of ``w``, a write of the task ``key`` (thread, ns, checkpoint, task, path), as stored."""
    thread_id, ns, checkpoint_id, task_id, task_path = key
    f = w.ref
    tag, data = compressed(w.type, w.data, STORE_MIN) if len(w.data) >= STORE_MIN else (w.type, w.data)
    return (thread_id, ns, checkpoint_id, task_id, w.idx, w.channel, tag, data, task_path,
            f and f.ns, f and f.channel, f and f.version, f and f.key)  # fmt: skip
