"""The checkpointer contract every saver implements.

A saver stores, per thread, a tree of checkpoints (versions of the graph's
state) and, per checkpoint, the *pending writes* of tasks that finished (or
interrupted) in the step that checkpoint starts. It is written once, async:
subclasses implement the ``a``-prefixed coroutines and inherit a sync face
(``put``, ``get_tuple``...) derived by :mod:`engine._internal._sync`.

Config shape (LangGraph's)::

    {"configurable": {"thread_id": "t1", "checkpoint_ns": "", "checkpoint_id": "..."}}

``checkpoint_id`` is optional on reads (absent = the thread's newest version).
Checkpoint ids are time-ordered strings: sorting ids sorts versions by creation.

Channel versions are integers that only grow. ``put`` receives
``new_versions``: the channels whose value changed in this checkpoint. A saver
must store the value of an unchanged channel only once (by ``(channel,
version)``), so storage per version does not grow with the thread's length.
That requires versions to be unique *per branch*: two checkpoints forked from
one parent may both change a channel, to different values, and must not give
it the same version. So versions are a step counter above random low bits
(:func:`engine._internal._ids.next_version`); a plain ``+ 1`` would make the second
branch read the first one's value. Values are handed to the saver as Python objects; it serializes them
through its ``serde`` (see :mod:`engine.serde`).

Leases (one run per thread across processes): a saver whose
``supports_leases`` is true (PostgreSQL) has a lease store (``saver.leases``,
a :class:`~engine.checkpoint._lease.LeaseStore`) that keeps, per thread, a
lease row (owner, epoch, expiry, the head version its holder last wrote, and
its holder's session). A host takes it with ``saver.leases.aacquire_lease`` before a run,
renews it while the run lasts, releases it after, and passes the
:class:`Lease` to the engine as an argument of its own (``aevents(...,
lease=)``, ``aupdate_state(..., lease=)``), never inside a config: a config
is copied and rebuilt too often for a token riding in it to be sure to
arrive. The loop puts it on every write's config (``LEASE_KEY``, the saver's
side of the contract), and the saver commits a write only while that lease
still holds (a fencing token), else raises
:class:`~engine.errors.LeaseLostError`. A host that leases sets the lease store's
``requires_lease`` (the saver's follows it): a run without a lease, or a write without one, then
raises instead of writing unfenced. Savers without leases (memory, SQLite:
one process owns the data) ignore the key; there one run per thread is the
host's process-local business.
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Collection
from datetime import timedelta
from typing import Any, AsyncIterator, Iterator, Mapping, Sequence

from engine._internal._ids import version_bits
from engine._internal._sync import iter_sync, run_sync
from engine.checkpoint._langgraph import (
    LangGraphSlot,
    V,  # noqa: F401  (LangGraph's name of the versions' type variable, here as there)
    adopt_langgraph_base,
    allow_named,
    copy_thread,
    delta_channel_history,
    langgraph_entries,
)
from engine.checkpoint._shapes import (  # noqa: F401  (LangGraph's helpers for its savers, at its path)
    ERROR, EXCLUDED_METADATA_KEYS, INTERRUPT, LATEST_VERSION, RESUME, SCHEDULED, WRITES_IDX_MAP, ChannelVersions, Checkpoint,
    CheckpointMetadata, CheckpointTuple, DeltaChannelHistory, PendingWrite, ThreadInfo, copy_checkpoint, create_checkpoint,
    empty_checkpoint, get_checkpoint_metadata, get_serializable_checkpoint_metadata, writes_sort_key,
)  # fmt: skip
from engine.checkpoint._lease import LEASE_KEY, Lease, LeaseHolder, LeaseStore, MessageBus, run_lease
from engine.checkpoint._retention import Choose, only, prune_rule
from engine.checkpoint._runs import RunStore
from engine.checkpoint._sync_twins import install_twins, missing
from engine.checkpoint.serde.base import SerializerProtocol
from engine.errors import EmptyChannelError  # noqa: F401  (LangGraph's base has it)
from engine.serde import Serializer

__all__ = [
    "Checkpoint", "CheckpointMetadata", "CheckpointTuple", "PendingWrite", "BaseCheckpointSaver", "ChannelVersions",
    "empty_checkpoint", "create_checkpoint", "copy_checkpoint",
    "ERROR", "EXCLUDED_METADATA_KEYS", "INTERRUPT", "RESUME", "SCHEDULED", "WRITES_IDX_MAP",
    "LEASE_KEY", "Lease", "LeaseHolder", "LeaseStore", "MessageBus", "SerializerProtocol", "ThreadInfo", "run_lease",
    "RUN_KEY", "EmptyChannelError",
]  # fmt: skip

#: Where a version records the run that wrote it, stored with its metadata: a host (the server) groups
#: versions by run and continues a run from its own. A saver's reads leave it out (LangGraph's metadata
#: has no such key) unless the saver ``keeps_run_ids`` (a host's saver: ``engine.host.ScopedSaver`` sets it).
RUN_KEY = "__graphwire_run_id__"



def get_checkpoint_id(config: Mapping[str, Any]) -> str | None:
    checkpoint_id: str | None = config.get("configurable", {}).get("checkpoint_id")
    return checkpoint_id


def check_chain(puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]]) -> None:
    """Raise ValueError unless ``puts`` (``aput_many``'s) are one chain: one thread and
    namespace, each put's parent (its config's checkpoint id) the checkpoint before it."""
    for (prev_cfg, prev_cp, _, _), (cfg, _, _, _) in zip(puts, puts[1:]):
        prev, this = prev_cfg.get("configurable") or {}, cfg.get("configurable") or {}
        same_place = (this.get("thread_id"), this.get("checkpoint_ns", "")) == (
            prev.get("thread_id"),
            prev.get("checkpoint_ns", ""),
        )
        if not same_place or this.get("checkpoint_id") != prev_cp["id"]:
            raise ValueError("aput_many takes one chain: one thread, each put's parent the checkpoint put before it")


class BaseCheckpointSaver(LangGraphSlot):
    """The async contract; the sync methods are derived, never overridden.

    It is LangGraph's ``BaseCheckpointSaver`` too: it has every method of
    LangGraph's (``copy_thread``, ``delete_for_runs``, ``prune`` by
    strategy, ``get_delta_channel_history``, ``with_allowlist``...), its
    unimplemented ones raise NotImplementedError as LangGraph's do (a
    subclass may implement only what it needs), and once LangGraph itself is
    imported, a saver built is an instance of LangGraph's class as well
    (:mod:`engine.checkpoint._langgraph`), so real LangGraph runs on it.

    Implementations must:

    * make ``aput`` atomic: a version is stored whole or not at all;
    * make ``aput_many`` store the same rows as ``aput`` of each put in turn
      (an override that stores them in one transaction stores all or none);
    * make ``aput_writes`` idempotent per ``(task_id, index)``: writing the same
      task's writes twice keeps one copy (special channels in
      :data:`WRITES_IDX_MAP` are replaced); return pending writes ordered by
      ``(task_id, index)``;
    * store a channel's value once per ``(thread, namespace, channel,
      version)``: only channels in ``new_versions`` are written;
    * refuse, at put time, a channel version that is not an int (``ValueError``);
    * return ``alist`` newest first, filtering ``metadata`` by exact equality
      of each key in ``filter``, JSON types and all (``False`` never matches
      a stored 0; a missing key never matches), ``before``
      exclusive, at most ``limit``. A ``config`` of ``None`` lists every
      thread; a config without ``checkpoint_ns`` lists every namespace;
    * store metadata as JSON data (tuples come back as lists) and refuse, at
      put time, what JSON cannot hold;
    * serialize values at put time, so an unstorable value fails the put
      (with :class:`~engine.errors.SerializationError`) and stores nothing;
    * never construct objects other than those the serde allows when reading;
    * with ``supports_leases``: commit a write whose config carries a
      :class:`Lease` (``LEASE_KEY``) only if, in the same transaction, that
      lease is still the thread's, live, and (for ``aput`` of the root
      namespace) the new version's parent is the head the lease last wrote
      (any parent while it has written none); then make the new version the
      head. Otherwise raise :class:`~engine.errors.LeaseLostError` and store
      nothing. With ``requires_lease`` too, refuse (ValueError) a checkpoint
      write whose config carries no lease.
    """

    serde: Serializer
    #: Whether this saver enforces one run per thread across processes with
    #: leases: then ``leases`` is its :class:`~engine.checkpoint._lease.LeaseStore`.
    #: False: ``LEASE_KEY`` in a write's config (and a delete's ``lease``) is ignored.
    supports_leases: bool = False
    #: The optional parts (:mod:`engine.checkpoint._lease`): objects of their
    #: own, sharing the saver's connections; None where the saver has none.
    leases: LeaseStore | None = None
    messages: MessageBus | None = None
    #: The host's run records, kept in the saver's database (:mod:`engine.checkpoint._runs`);
    #: None where the saver has no tables for them (a host keeps them in memory then).
    runs: RunStore | None = None
    #: True once a host leases this saver's threads (it sets its lease store's
    #: ``requires_lease``): then every run must be given its lease
    #: (:func:`run_lease`) and every checkpoint write must carry it; one
    #: without raises rather than write unfenced. Only with ``supports_leases``.
    requires_lease: bool = False
    #: Whether reads return the run that wrote each version in its metadata (:data:`RUN_KEY`): a
    #: host's view. False (a LangGraph program's): the metadata as LangGraph's, without it; a
    #: ``filter`` on RUN_KEY matches either way.
    keeps_run_ids: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        install_twins(cls)  # its own sync methods, where it has no async twin, are what the engine calls

    def __init__(self, *, serde: Serializer | None = None) -> None:
        adopt_langgraph_base(BaseCheckpointSaver)
        self.serde = serde or Serializer()

    @property  # type: ignore[no-redef]
    def serde(self) -> Serializer:
        """The serializer of values; one set here also stores LangGraph's own types once LangGraph is imported."""
        return self._serde

    @serde.setter
    def serde(self, value: Serializer) -> None:
        if hasattr(value, "allow_entries"):
            value.allow_entries(*langgraph_entries())
        self._serde = value

    # -- the contract ----------------------------------------------------
    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        """The named checkpoint, or the thread's newest when none is named."""
        raise NotImplementedError(missing(self, "aget_tuple"))

    def alist(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """The thread's checkpoints, newest first."""
        raise NotImplementedError(missing(self, "alist"))

    async def aput(
        self,
        config: Mapping[str, Any],
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> dict[str, Any]:
        """Store a checkpoint whose parent is ``config``'s checkpoint id (if any).

        Returns the config naming the stored checkpoint.
        """
        raise NotImplementedError(missing(self, "aput"))

    async def aput_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Any, ...]] = (),
    ) -> list[dict[str, Any]]:
        """Store several checkpoints of one thread, in order, each the parent of the next,
        and pending writes of them (or of the first one's parent).

        ``puts`` holds ``aput``'s arguments: a run's versions that queued up
        while its previous write was in flight (``durability="async"``).
        ``writes`` holds ``aput_writes``' arguments ``(config, writes,
        task_id)`` (or ``(config, writes, task_id, task_path)``): what the tasks of each step wrote, stored on the version
        the step started from (a write may name a version of the same call).
        Returns ``aput``'s return values, in order. This default calls, for
        each put, ``aput_writes`` for the writes of its parent, then ``aput``
        (as LangGraph stores a step's writes before the version after it: a
        version is never stored without the writes its delta channels read),
        then ``aput_writes`` for the rest; so a failure can leave the first few
        stored (each whole: a prefix of the chain, never a gap). A saver whose commit waits for a
        disk flush overrides it to store the lot in one transaction, all or
        none: one flush instead of one per version.

        Raises:
            ValueError: the puts are not one chain of one thread and namespace
                (nothing is stored).
        """
        check_chain(puts)
        rest = list(writes)
        out = []
        for put in puts:
            parent = put[0].get("configurable", {}).get("checkpoint_id")
            mine: list[tuple[Any, ...]] = []
            if parent:
                later: list[tuple[Any, ...]] = []
                for w in rest:
                    (mine if w[0].get("configurable", {}).get("checkpoint_id") == parent else later).append(w)
                rest = later
            for config, task_writes, task_id, *path in mine:
                await self.aput_writes(config, task_writes, task_id, *path)
            out.append(await self.aput(*put))
        for config, task_writes, task_id, *path in rest:
            await self.aput_writes(config, task_writes, task_id, *path)
        return out

    async def aput_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store pending writes of a task against ``config``'s checkpoint."""
        raise NotImplementedError(missing(self, "aput_writes"))

    async def adelete_thread(self, thread_id: str, *, lease: Lease | None = None) -> None:
        """Delete every checkpoint and write of a thread.

        ``lease``: the thread's lease the deleting host holds; with
        ``supports_leases`` the delete commits only while it holds (else
        :class:`~engine.errors.LeaseLostError`, nothing deleted), as a fenced
        write does. Savers without leases ignore it.
        """
        raise NotImplementedError(missing(self, "adelete_thread"))

    async def aprune(
        self,
        thread_ids: str | Sequence[str],
        *,
        strategy: str | None = None,
        keep_last: int | None = None,
        older_than: timedelta | None = None,
    ) -> int:
        """Delete old checkpoints of a thread (or of each of ``thread_ids``), their writes, and the values only they used.

        Per namespace, keeps the newest ``keep_last`` checkpoints and those
        younger than ``older_than`` (with both, a checkpoint goes only when
        both rules let it go), and always the newest one: pruning removes
        history, not the thread. Kept checkpoints read back exactly as
        before, delta chains included, and so does a checkpoint another
        writer stores while this runs. LangGraph's way is accepted too:
        ``strategy="keep_latest"`` (the default without a rule: ``keep_last=1``)
        or ``strategy="delete"`` (:meth:`adelete_thread` of each).
        Returns how many checkpoints were deleted (``"delete"``: 0, uncounted).

        Raises:
            ValueError: an unknown strategy, a strategy with a rule, ``keep_last < 1``, or a negative ``older_than``.
        """
        threads = [thread_ids] if isinstance(thread_ids, str) else [str(t) for t in thread_ids]
        choose = prune_rule(strategy, keep_last, older_than)
        if choose is None:  # strategy="delete"
            for thread_id in threads:
                await self.adelete_thread(thread_id)
            return 0
        return sum([await self._aprune_thread(thread_id, choose) for thread_id in threads])

    async def _aprune_thread(self, thread_id: str, choose: Choose) -> int:
        """Delete the checkpoints of ``thread_id`` that ``choose`` lets go, with their writes and
        the values only they used (a saver's one primitive under :meth:`aprune` and
        :meth:`adelete_for_runs`). ``choose`` splits rows ``(ns, id, ts)`` into ``(kept, deleted)``."""
        raise NotImplementedError(missing(self, "aprune"))

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete every checkpoint whose metadata ``run_id`` is one of ``run_ids`` (LangGraph's), with its
        writes; values other checkpoints read stay (their children keep naming them as parents)."""
        doomed: dict[str, set[tuple[str, str]]] = {}
        for run_id in {str(r) for r in run_ids}:
            async for t in self.alist(None, filter={"run_id": run_id}):
                conf = t.config["configurable"]
                doomed.setdefault(conf["thread_id"], set()).add((conf.get("checkpoint_ns", ""), conf["checkpoint_id"]))
        for thread_id, gone in doomed.items():
            await self._aprune_thread(thread_id, functools.partial(only, gone))

    async def adelete_run_versions(self, thread_id: str, run_id: str) -> int:
        """Delete the versions of ``thread_id`` that run ``run_id`` wrote (:data:`RUN_KEY`), every namespace,
        with their writes and the values only they used (a host rolling a cancelled run back); how many."""
        gone: set[tuple[str, str]] = set()
        async for t in self.alist({"configurable": {"thread_id": thread_id}}, filter={RUN_KEY: run_id}):
            conf = t.config["configurable"]
            gone.add((conf.get("checkpoint_ns", ""), conf["checkpoint_id"]))
        if not gone:
            return 0
        return await self._aprune_thread(thread_id, functools.partial(only, gone))

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy every checkpoint and pending write of one thread to another (LangGraph's; see
        :func:`engine.checkpoint._langgraph.copy_thread`)."""
        await copy_thread(self, str(source_thread_id), str(target_thread_id))

    async def aget_delta_channel_history(self, *, config: Mapping[str, Any], channels: Sequence[str]) -> Mapping[str, Any]:
        """LangGraph's walk of ``channels``' writes up the parent chain (:func:`~engine.checkpoint._langgraph.delta_channel_history`)."""
        return await delta_channel_history(self, config, channels)

    @property
    def config_specs(self) -> list[Any]:
        """LangGraph's configurable fields of a saver: none."""
        return []

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> BaseCheckpointSaver:
        """Allow the classes named ``(module, name)`` on this saver's serializer, and return it.

        What LangGraph's strict mode calls with the state schema's classes.
        Only classes of modules already imported are found (stored bytes
        never name a module to import); the serializer is this saver's own,
        not a clone's (the classes a schema names are allowed by the engine
        anyway).
        """
        allow_named(self.serde, extra_allowlist)
        return self

    def alist_threads(self, *, prefix: str = "", limit: int | None = None) -> AsyncIterator[ThreadInfo]:
        """The threads whose id starts with ``prefix``, most recently written first.

        Not part of the abstract contract: a saver that cannot list its
        threads inherits this default, which raises :class:`NotImplementedError`
        (a caller such as the inspector then asks for a thread id instead).
        Order: newest checkpoint id first (ids are time-ordered), then thread
        id; ``limit`` caps the count (``None``: all, ``0``: none).

        Raises:
            NotImplementedError: this saver does not list threads.
            ValueError: a negative ``limit``.
        """
        raise NotImplementedError(
            f"{type(self).__name__} cannot list threads: it does not implement "
            "BaseCheckpointSaver.alist_threads (open a thread by its id instead)"
        )

    def get_next_version(self, current: int | None, channel: object = None) -> int:
        """The version after ``current`` (see :func:`engine._internal._ids.next_version`)."""
        return ((((current or 0) >> 32) + 1) << 32) | version_bits(32)  # (next_version's, without its call: LangGraph's loop asks per channel written)

    async def aclose(self) -> None:
        """Release resources (connections, files)."""

    async def aget(self, config: Mapping[str, Any]) -> Checkpoint | None:
        """The checkpoint :meth:`aget_tuple` finds, alone (None if there is none)."""
        found = await self.aget_tuple(config)
        return None if found is None else found.checkpoint

    # -- the sync face, derived ------------------------------------------
    def get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        return run_sync(self.aget_tuple(config))

    def get(self, config: Mapping[str, Any]) -> Checkpoint | None:
        return run_sync(self.aget(config))

    def list(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        return iter_sync(self.alist(config, filter=filter, before=before, limit=limit))

    def put(
        self,
        config: Mapping[str, Any],
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> dict[str, Any]:
        return run_sync(self.aput(config, checkpoint, metadata, new_versions))

    def put_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Mapping[str, Any], Sequence[tuple[str, Any]], str]] = (),
    ) -> builtins.list[dict[str, Any]]:  # the method list above hides the type
        return run_sync(self.aput_many(puts, writes=writes))

    def put_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        return run_sync(self.aput_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str, *, lease: Lease | None = None) -> None:
        return run_sync(self.adelete_thread(thread_id) if lease is None else self.adelete_thread(thread_id, lease=lease))

    def prune(
        self,
        thread_ids: str | Sequence[str],
        *,
        strategy: str | None = None,
        keep_last: int | None = None,
        older_than: timedelta | None = None,
    ) -> int:
        return run_sync(self.aprune(thread_ids, strategy=strategy, keep_last=keep_last, older_than=older_than))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        return run_sync(self.adelete_for_runs(run_ids))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        return run_sync(self.acopy_thread(source_thread_id, target_thread_id))

    def get_delta_channel_history(self, *, config: Mapping[str, Any], channels: Sequence[str]) -> Mapping[str, Any]:
        return run_sync(self.aget_delta_channel_history(config=config, channels=channels))

    def list_threads(self, *, prefix: str = "", limit: int | None = None) -> Iterator[ThreadInfo]:
        return iter_sync(self.alist_threads(prefix=prefix, limit=limit))

    def close(self) -> None:
        return run_sync(self.aclose())
