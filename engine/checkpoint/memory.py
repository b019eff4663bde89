"""A saver that keeps checkpoints in process memory, for tests and experiments.

It stores what the SQL savers store, decided the same way: one serialized
blob per changed ``(channel, version)`` (a full value, or for a growing list
a delta, chosen by :mod:`engine.checkpoint._delta`; a dict repeating a list
the thread stored, a ref to it), the checkpoint's meta serialized, its
metadata as JSON text (refused where the SQL savers refuse it), serialized
pending writes; and decodes on every read. That buys the point of an
in-memory saver in tests: state that production could not store, or could
not read back unchanged, fails here too. It leaves out what only costs disk:
small values inline in the checkpoint's row, several writes packed in one
row.

Its write path is its own (:mod:`engine.checkpoint._memory_write`): the same
rows, made without the shared planner's plan objects (a LangGraph program
calls ``put`` once a step, and on a step of a few small values that wrapping
was most of the put), small scalars' bytes from a memo, the meta packed by
msgpack alone. A saver with ``max_state_bytes`` goes through the planner,
which measures every put.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from engine._internal._sync import run_inline
from engine.checkpoint._sync_twins import inside
from engine.checkpoint._chain import ChainReader, Known, Ref
from engine.checkpoint._delta import _WRITE_SIZE, DEFAULT_CACHE_THREADS, DEFAULT_FANOUT, base_key
from engine.checkpoint._inline import blob_versions, values_of
from engine.checkpoint._retention import Choose, blobs_to_keep
from engine.checkpoint._made import MadeCheckpoint
from engine.checkpoint._versions import INT_ONLY, take_checkpoint
from engine.checkpoint._helpers import (
    check_list_args,
    dump_meta,
    dump_metadata,
    load_checkpoint,
    load_meta,
    load_metadata,
    make_config,
    metadata_matches,
    parse_config,
    parse_write_config,
    reading,
    thread_text,
)
from engine.checkpoint._memory_write import NO_DELTAS, MemoryDeltas, ScalarMemo, dump_plain_meta, full_value, plain_writes, plan_put
from engine.checkpoint._metadata import put_metadata
from engine.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    Lease,
    PendingWrite,
    ThreadInfo,
    get_checkpoint_id,
)
from engine.checkpoint._persistent import PersistentDict
from engine.checkpoint._writes import dump_writes
from engine.serde import Serializer

__all__ = ["InMemorySaver", "MemorySaver", "PersistentDict"]


# Stored rows are plain tuples of strings, bytes and ints: the garbage collector
# stops tracking such a tuple once it has seen it (not a named tuple's, nor a
# slotted dataclass's instance: those are walked by every full collection, which
# cost chain100 ~10 % a step with many threads stored, measured).
#: a checkpoint: (parent id, ts, meta as (type, bytes), metadata as JSON)
_Row = tuple[str | None, str, tuple[str, bytes], str]
#: a blob: (type, data, base, seq, ref); base None: a full value, else data holds the items
#: appended to base's value; ref: a delta on another namespace's or channel's row
#: (see engine.checkpoint._chain.Ref), or None
_Blob = tuple[str, bytes, int | None, int, Ref | None]
#: a pending write: (channel, type, data, task path, ref: the stored list its value extends, or None)
_Write = tuple[str, str, bytes, str, Ref | None]


def _write_order(item: tuple[tuple[str, int], tuple[Any, ...]]) -> tuple[Any, ...]:
    (task_id, idx), row = item
    return (row[3], task_id, idx)


def _base_of(key: tuple[str, str, int], blob: _Blob) -> tuple[str, str, int] | None:
    """The key of the row ``blob`` (stored at ``key``) extends, or None for a full value."""
    _, _, base, _, ref = blob
    if ref is not None:
        return (ref.ns, ref.channel, ref.version)
    return None if base is None else (key[0], key[1], base)


@dataclass(slots=True)
class _Thread:
    """Everything stored for one thread; deleting the thread drops this object."""

    checkpoints: dict[str, dict[str, _Row]] = field(default_factory=dict)  # ns -> id -> row
    latest: dict[str, str] = field(default_factory=dict)  # ns -> newest id
    blobs: dict[tuple[str, str, int], _Blob] = field(default_factory=dict)  # (ns, ch, ver)
    writes: dict[tuple[str, str], dict[tuple[str, int], _Write]] = field(default_factory=dict)


class InMemorySaver(BaseCheckpointSaver):
    """Checkpoints in a dict, serialized as the SQL savers store them (see the module docstring).

    Safe to share between threads (the sync face may run on a worker thread):
    every multi-step change happens under one lock, after all serialization
    has succeeded, so a put is stored whole or not at all.

    Args:
        serde: the serializer of state values.
        delta_fanout: ``K`` of :mod:`engine.checkpoint._delta` (None: no deltas).
        delta_cache_threads: how many threads' last values the delta cache keeps.
        max_state_bytes: refuse, with :class:`~engine.serde.StateTooLargeError`,
            a version whose state would take more bytes than this, and a
            pending write larger than it (None: no limit). See "State size
            limit" in :mod:`engine.checkpoint._delta`.
    """

    def __init__(
        self,
        *,
        serde: Serializer | None = None,
        factory: Callable[..., Any] = defaultdict,
        delta_fanout: int | None = DEFAULT_FANOUT,
        delta_cache_threads: int = DEFAULT_CACHE_THREADS,
        max_state_bytes: int | None = None,
    ) -> None:
        super().__init__(serde=serde)
        #: closes what the saver holds (a PersistentDict writes itself to its file), as LangGraph's does
        self.stack = ExitStack()
        self._threads: dict[str, _Thread] = {} if factory is defaultdict else factory()
        if hasattr(self._threads, "__exit__"):
            self.stack.enter_context(self._threads)  # type: ignore[arg-type]
        self._lock = threading.Lock()
        self._deltas = MemoryDeltas(
            fanout=delta_fanout, max_threads=delta_cache_threads, max_state_bytes=max_state_bytes, inline=False,
            lock=self._lock,
        )  # its rows cost no disk: no inline values (as no packed writes); its lock is the saver's (see _put)
        self._scalars = ScalarMemo()

    async def aclose(self) -> None:
        self.stack.close()

    def __enter__(self) -> InMemorySaver:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stack.close()

    # -- the sync face: nothing here waits, so a call runs inline, with no event loop (LangGraph
    # calls put and put_writes from the workers of a thread pool it makes per invoke). A subclass's
    # own coroutine may wait: it goes through the base's sync face.
    def get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        if type(self).aget_tuple is not InMemorySaver.aget_tuple and not inside(self, "get_tuple"):
            return super().get_tuple(config)
        return run_inline(InMemorySaver.aget_tuple(self, config))

    def get(self, config: Mapping[str, Any]) -> Checkpoint | None:  # as LangGraph's: the tuple's checkpoint
        if type(self).aget is not BaseCheckpointSaver.aget:
            return super().get(config)
        found = self.get_tuple(config)
        return None if found is None else found.checkpoint

    # put and put_writes are _put and _put_writes themselves (below): LangGraph's loop calls them on
    # every step, and a wrapper's frame and test cost a thousandth of its step. A subclass with its
    # own aput or aput_writes gets these instead, when it is defined (__init_subclass__).
    def _put_by_aput(
        self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> dict[str, Any]:
        if inside(self, "put"):  # a subclass's own put calling super().put: the work is ours
            return self._put(config, checkpoint, metadata, new_versions)
        return super().put(config, checkpoint, metadata, new_versions)  # (InMemorySaver's next class: the sync face)

    def _put_writes_by_aput(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        if inside(self, "put_writes"):
            return self._put_writes(config, writes, task_id, task_path)
        return super().put_writes(config, writes, task_id, task_path)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's own ``aput`` (``aput_writes``) may wait: its ``put`` (``put_writes``), unless
        it has its own, goes through the base's sync face to that coroutine, as for any saver."""
        super().__init_subclass__(**kwargs)
        for sync, amethod, by_aput in (("put", "aput", InMemorySaver._put_by_aput), ("put_writes", "aput_writes", InMemorySaver._put_writes_by_aput)):
            if getattr(cls, sync) is getattr(InMemorySaver, sync) and getattr(cls, amethod) is not getattr(InMemorySaver, amethod):
                setattr(cls, sync, by_aput)

    # -- reads ---------------------------------------------------------------
    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        thread_id, ns, checkpoint_id = parse_config(config)
        thread = self._threads.get(thread_id)
        if thread is None:
            return None
        with self._lock:
            rows = thread.checkpoints.get(ns)
            if not rows:
                return None
            if checkpoint_id is None:
                checkpoint_id = thread.latest[ns]
            row = rows.get(checkpoint_id)
        if row is None:
            return None
        reader = ChainReader(self.serde)
        metas: list[dict[str, Any]] = []
        found = self._tuple(thread, thread_id, ns, checkpoint_id, row, reader, metas)
        if found is None:
            return None  # deleted (pruned) since it was found
        self._deltas.learn(thread_id, ns, reader, metas[0])
        return found

    async def alist(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        wanted = check_list_args(filter, limit)
        if wanted is None:
            return
        conf = (config or {}).get("configurable") or {}
        only_thread = conf.get("thread_id")
        only_ns = conf.get("checkpoint_ns")  # absent: every namespace
        only_id = conf.get("checkpoint_id") or None  # "": none, as LangGraph's
        before_id = get_checkpoint_id(before) if before else None
        with self._lock:
            if only_thread is None:
                threads = list(self._threads.items())
            else:
                one = self._threads.get(str(only_thread))
                threads = [(str(only_thread), one)] if one is not None else []
            found = [
                (cid, thread_id, ns, row, thread)
                for thread_id, thread in threads
                for ns, rows in thread.checkpoints.items()
                if only_ns is None or ns == only_ns
                for cid, row in rows.items()
                if (only_id is None or cid == only_id) and (before_id is None or cid < before_id)
            ]
        found.sort(key=lambda f: (f[0], f[1], f[2]), reverse=True)
        count = 0
        readers: dict[str, ChainReader] = {}  # decoded rows, shared by the whole listing (per thread)
        for cid, thread_id, ns, row, thread in found:
            if limit is not None and count >= limit:
                return
            if wanted:
                with reading(thread_id, cid):
                    if not metadata_matches(load_metadata(row[3], keep_run=True), wanted):
                        continue
            count += 1
            reader = readers.setdefault(thread_id, ChainReader(self.serde))
            found_tuple = self._tuple(thread, thread_id, ns, cid, row, reader)
            if found_tuple is not None:  # else pruned since the listing began: gone
                yield found_tuple

    def _tuple(
        self, thread: _Thread, thread_id: str, ns: str, checkpoint_id: str, row: _Row, reader: ChainReader,
        metas: list[dict[str, Any]] | None = None,
    ) -> CheckpointTuple | None:  # fmt: skip
        with reading(thread_id, checkpoint_id):
            return self._decode(thread, thread_id, ns, checkpoint_id, row, reader, metas)

    def _decode(
        self, thread: _Thread, thread_id: str, ns: str, checkpoint_id: str, row: _Row, reader: ChainReader,
        metas: list[dict[str, Any]] | None,
    ) -> CheckpointTuple | None:  # fmt: skip
        """The checkpoint ``row`` rebuilt (its meta appended to ``metas``); None when it no longer exists."""
        parent_id, ts, stored_meta, metadata = row
        meta = load_meta(self.serde, checkpoint_id, stored_meta)
        if metas is not None:
            metas.append(meta)
        with self._lock:
            if checkpoint_id not in thread.checkpoints.get(ns, {}):
                return None
            # As LangGraph's contract: by (task_path, task_id, idx), the order a step applies them in.
            writes = sorted(thread.writes.get((ns, checkpoint_id), {}).items(), key=_write_order)
            wanted = [(ns, ch, v) for ch, v in blob_versions(meta).items()]
            wanted += [(ref.ns, ref.channel, ref.version) for _, (*_, ref) in writes if ref is not None]
            for key in wanted:
                k: tuple[str, str, int] | None = key
                while k is not None and not reader.has(k[1], k[2], k[0]):
                    blob = thread.blobs.get(k)
                    if blob is None:
                        break
                    tag, data, base, seq, ref = blob
                    reader.add(k[1], k[2], tag, data, base, seq, ns=k[0],
                               ref_ns=ref and ref.ns, ref_channel=ref and ref.channel,
                               ref_version=ref and ref.version, ref_key=ref and ref.key)  # fmt: skip
                    k = _base_of(k, blob)
        checkpoint = load_checkpoint(checkpoint_id, ts, meta, values_of(reader, meta, ns))
        return CheckpointTuple(
            config=make_config(thread_id, ns, checkpoint_id),
            checkpoint=checkpoint,
            metadata=load_metadata(metadata, keep_run=self.keeps_run_ids),
            parent_config=make_config(thread_id, ns, parent_id) if parent_id else None,
            pending_writes=[
                PendingWrite(task_id, channel, reader.resolve(tag, data, _ref_columns(ref)))
                for (task_id, _), (channel, tag, data, _path, ref) in writes
            ],
        )

    # -- writes --------------------------------------------------------------
    async def aput(
        self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> dict[str, Any]:
        return self._put(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        self._put_writes(config, writes, task_id, task_path)

    def _put(
        self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> dict[str, Any]:
        conf = config.get("configurable") or {}  # (parse_config's reading, without its call: every put's)
        thread_id, ns, parent_id = conf.get("thread_id"), conf.get("checkpoint_ns") or "", conf.get("checkpoint_id") or None
        if type(thread_id) is not str:
            thread_id = thread_text(thread_id)
        # Serialize everything before touching storage: a failure stores nothing.
        deltas, serde = self._deltas, self.serde
        scalars = self._scalars
        planned = None
        if (
            deltas.max_state_bytes is None
            and (type(checkpoint) is MadeCheckpoint or INT_ONLY.issuperset(map(type, checkpoint["channel_versions"].values())))
            and not checkpoint.get("pending_sends")
        ):  # (all_int's test of the versions, without its call)
            # plan_put checks new_versions' types as it goes (None at one that is not an int)
            planned = plan_put(deltas, scalars.table(serde), serde, thread_id, ns, checkpoint["channel_values"], new_versions, scalars.plain)
        if planned is None:  # versions to take (LangGraph's strings), Sends to keep, or every put measured
            checkpoint, new_versions = take_checkpoint(checkpoint, new_versions)
            if deltas.max_state_bytes is not None:  # the shared planner's
                return self._put_planned(config, checkpoint, metadata, new_versions, thread_id, ns, parent_id)
            planned = plan_put(deltas, scalars.table(serde), serde, thread_id, ns, checkpoint["channel_values"], new_versions, scalars.plain)
            assert planned is not None  # (take_checkpoint's versions are ints)
        values = checkpoint["channel_values"]
        meta = dump_plain_meta(serde, checkpoint, checkpoint["channel_versions"])
        row: _Row = (parent_id, checkpoint["ts"], meta, dump_metadata(put_metadata(config, metadata)))
        checkpoint_id = checkpoint["id"]
        learned: dict[str, Known | None] = {}
        size = delta_rows = 0
        lock = self._lock  # (acquire and release: half what `with` costs a call, on every put)
        lock.acquire()
        try:
            thread = self._threads.get(thread_id)
            if thread is None:
                thread = self._threads[thread_id] = _Thread()
            blobs = thread.blobs
            for channel, version, blob, known in planned:
                key = (ns, channel, version)
                if key in blobs:  # stored once: an existing (channel, version) is the same value
                    if known is None:
                        learned[channel] = None
                    continue
                if blob[2] is not None or blob[4] is not None:  # a delta: written full if its base is gone
                    ref = blob[4]
                    base = (ns, channel, blob[2]) if ref is None else (ref.ns, ref.channel, ref.version)
                    if base in blobs:
                        delta_rows += 1
                    else:  # pruned since the cache learned it
                        blob, known = full_value(serde, ns, channel, version, values[channel])
                blobs[key] = blob
                size += len(blob[1])
                learned[channel] = known
            rows = thread.checkpoints.get(ns)
            if rows is None:
                rows = thread.checkpoints[ns] = {}
            rows[checkpoint_id] = row
            if checkpoint_id > thread.latest.get(ns, ""):
                thread.latest[ns] = checkpoint_id
            deltas.learn_put(thread_id, ns, learned)  # (under the lock it shares: one lock a put)
        finally:
            lock.release()
        _WRITE_SIZE.record(size, NO_DELTAS if not delta_rows else {"graphwire.delta_rows": delta_rows})  # (as engine.checkpoint._delta.record_size)
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}

    def _put_planned(
        self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions,
        thread_id: str, ns: str, parent_id: str | None,
    ) -> dict[str, Any]:  # fmt: skip
        """:meth:`_put` through the shared planner (:meth:`DeltaCache.plan`)."""
        values, versions = checkpoint["channel_values"], checkpoint["channel_versions"]
        plan = self._deltas.plan(self.serde, thread_id, ns, values, new_versions, versions)
        meta = dump_meta(self.serde, checkpoint, versions=plan.blob_versions(versions), inline=plan.inline)
        row: _Row = (parent_id, checkpoint["ts"], meta, dump_metadata(put_metadata(config, metadata)))
        checkpoint_id = checkpoint["id"]
        inserted: list[str] = []
        with self._lock:
            thread = self._threads.setdefault(thread_id, _Thread())
            # A delta whose base is gone (pruned since the cache learned it) is written full.
            for b in plan.without_missing_bases(lambda r: base_key(ns, r) in thread.blobs):
                key = (ns, b.channel, b.version)
                if key not in thread.blobs:  # stored once: an existing (channel, version) is the same value
                    thread.blobs[key] = (b.type, b.data, b.base, b.seq, b.ref)
                    inserted.append(b.channel)
            thread.checkpoints.setdefault(ns, {})[checkpoint_id] = row
            if checkpoint_id > thread.latest.get(ns, ""):
                thread.latest[ns] = checkpoint_id
        self._deltas.commit(thread_id, ns, plan, inserted)
        return make_config(thread_id, ns, checkpoint_id)

    def _put_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        thread_id, ns, checkpoint_id = parse_write_config(config)
        serde = self.serde
        scalars = self._scalars
        plain = plain_writes(scalars.table(serde), serde, writes, task_id, task_path, scalars.plain) if self._deltas.max_state_bytes is None else None
        if plain is None:  # a write that may be a ref (or is an error, or is refused: raised here, named)
            refer = self._deltas.referrer(self.serde, thread_id)
            rows = dump_writes(self.serde, writes, task_id, max_bytes=self._deltas.max_state_bytes, refer=refer)
        lock = self._lock  # (as in _put)
        lock.acquire()
        try:
            thread = self._threads.get(thread_id)
            if thread is None:
                thread = self._threads[thread_id] = _Thread()
            stored = thread.writes.get((ns, checkpoint_id))
            if plain is not None:
                if stored is None:  # the step's first task to write: its rows, as they are
                    thread.writes[(ns, checkpoint_id)] = plain
                    return
                for key, row in plain.items():
                    if key[1] < 0 or key not in stored:  # a special channel's row replaces a stored one
                        stored[key] = row
                return
            if stored is None:
                stored = thread.writes[(ns, checkpoint_id)] = {}
            for r in rows:
                if r.ref is not None and (r.ref.ns, r.ref.channel, r.ref.version) not in thread.blobs:
                    r = r.full(self.serde)  # the row it names is gone (pruned since the cache learned it)
                key = (task_id, r.idx)
                if r.replaces or key not in stored:
                    stored[key] = (r.channel, r.type, r.data, task_path, r.ref)
        finally:
            lock.release()

    put = _put  # (see _put_by_aput)
    put_writes = _put_writes

    async def adelete_thread(self, thread_id: str, *, lease: Lease | None = None) -> None:  # no leases: ignored
        with self._lock:
            self._threads.pop(str(thread_id), None)
        self._deltas.forget_thread(str(thread_id))  # (its lock is this one: taken again, after)

    async def _aprune_thread(self, thread_id: str, choose: Choose) -> int:
        with self._lock:
            thread = self._threads.get(thread_id)
            if thread is None:
                return 0
            rows = [(ns, cid, row[1]) for ns, by_id in thread.checkpoints.items() for cid, row in by_id.items()]
            kept, deleted = choose(rows)
            if not deleted:
                return 0
            referenced: list[tuple[str, str, int]] = []
            for ns, cid in kept:
                with reading(thread_id, cid):
                    meta = load_meta(self.serde, cid, thread.checkpoints[ns][cid][2])
                referenced.extend((ns, ch, v) for ch, v in blob_versions(meta).items())
                for *_, ref in thread.writes.get((ns, cid), {}).values():
                    if ref is not None:
                        referenced.append((ref.ns, ref.channel, ref.version))
            keep = blobs_to_keep(referenced, {key: _base_of(key, blob) for key, blob in thread.blobs.items()})
            for ns, cid in deleted:
                del thread.checkpoints[ns][cid]
                thread.writes.pop((ns, cid), None)
            for ns in {ns for ns, _ in deleted}:  # the newest version left heads its namespace (none left: none)
                thread.latest.pop(ns, None)
                if thread.checkpoints[ns]:
                    thread.latest[ns] = max(thread.checkpoints[ns])
            thread.blobs = {key: blob for key, blob in thread.blobs.items() if key in keep}
        self._deltas.forget_thread(thread_id)  # (after: its lock is this one; a put between writes full values)
        return len(deleted)

    async def alist_threads(self, *, prefix: str = "", limit: int | None = None) -> AsyncIterator[ThreadInfo]:
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        with self._lock:
            found = [
                (cid, thread_id, thread.checkpoints[""][cid][1])
                for thread_id, thread in self._threads.items()
                if thread_id.startswith(prefix) and (cid := thread.latest.get("")) is not None
            ]
        found.sort(key=lambda f: f[1])
        found.sort(key=lambda f: f[0], reverse=True)  # newest first; stable, so ties stay in thread-id order
        for cid, thread_id, ts in found[:limit]:
            yield ThreadInfo(thread_id, cid, ts)


def _ref_columns(ref: Ref | None) -> tuple[str, str, int, str | None] | None:
    return None if ref is None else (ref.ns, ref.channel, ref.version, ref.key)


MemorySaver = InMemorySaver
