"""A checkpointer seen through a scope: the thread ids its callers use are stored under keys of the scope's making.

How a host keeps the threads of different graphs (and tenants) apart in one
database while each graph sees the thread id its caller sent: the graph is
compiled with ``ScopedSaver(saver, key, name)``; every config it hands the
saver has its ``thread_id`` turned into ``key(thread_id)`` (the storage key),
and every config, tuple or thread the saver returns has it turned back with
``name(storage_key)``. A node reading ``config["configurable"]["thread_id"]``,
the run's events and its spans all carry the caller's id, as they would with
the saver alone; the rows carry the storage key, as before.

What is not a checkpoint call passes through unchanged and keeps storage keys:
leases (a :class:`~engine.checkpoint._lease.Lease` names the storage key, and
:meth:`ScopedSaver.stored_thread` says which key a run's thread id is stored under), the
message bus, run records. A listing of every thread (``alist(None)``,
``alist_threads``) shows only the scope's threads. The scope does not own the
saver: closing it closes nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from typing import Any, AsyncIterator, Mapping, Sequence

from engine.checkpoint._lease import Lease, LeaseStore, MessageBus
from engine.checkpoint._retention import Choose
from engine.checkpoint._runs import RunStore
from engine.checkpoint._shapes import ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple, ThreadInfo
from engine.checkpoint.base import BaseCheckpointSaver
from engine.serde import Serializer

__all__ = ["ScopedSaver"]


class ScopedSaver(BaseCheckpointSaver):
    """``saver`` with each thread id ``t`` stored as ``key(t)``; ``name`` is its inverse (None: a key outside the scope).

    ``key`` must keep prefixes (``key(p + s) == key(p) + s``) for
    :meth:`alist_threads` to find a prefix's threads.
    """

    def __init__(self, saver: BaseCheckpointSaver, key: Callable[[str], str], name: Callable[[str], str | None]) -> None:
        if isinstance(saver, ScopedSaver):
            raise ValueError("a ScopedSaver wraps the saver itself, not another scope")
        self.saver = saver
        self.key = key
        self.name = name
        super().__init__(serde=saver.serde)
        # what is not a checkpoint call: the saver's own, under storage keys
        self.supports_leases = saver.supports_leases
        self.leases: LeaseStore | None = saver.leases
        self.messages: MessageBus | None = saver.messages
        self.runs: RunStore | None = saver.runs
        # a host reads which run wrote each version (RUN_KEY); a LangGraph program's reads do not
        saver.keeps_run_ids = True
        self.keeps_run_ids = True

    # -- what passes through --------------------------------------------------
    @property  # type: ignore[override]
    def serde(self) -> Serializer:
        return self.saver.serde

    @serde.setter
    def serde(self, value: Serializer) -> None:
        self.saver.serde = value

    @property
    def requires_lease(self) -> bool:  # type: ignore[override]  # the saver's, which its lease store sets
        return self.saver.requires_lease

    def stored_thread(self, thread_id: str) -> str:
        """The id the saver stores thread ``thread_id`` under (its lease names it)."""
        return self.key(str(thread_id))

    @property
    def config_specs(self) -> list[Any]:
        return self.saver.config_specs

    def get_next_version(self, current: int | None, channel: object = None) -> int:
        return self.saver.get_next_version(current, channel)

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> BaseCheckpointSaver:
        self.saver.with_allowlist(extra_allowlist)
        return self

    async def aclose(self) -> None:
        """Nothing: the saver is its owner's to close."""

    # -- the mapping ----------------------------------------------------------
    def _in(self, config: Mapping[str, Any]) -> dict[str, Any]:
        conf = config.get("configurable") or {}
        thread = conf.get("thread_id")
        if thread is None:
            return dict(config)
        return {**config, "configurable": {**conf, "thread_id": self.key(str(thread))}}

    def _out(self, config: Mapping[str, Any] | None) -> Any:
        if config is None:
            return None
        conf = config.get("configurable") or {}
        key = conf.get("thread_id")
        thread = self.name(str(key)) if key is not None else None
        if thread is None:
            return config
        return {**config, "configurable": {**conf, "thread_id": thread}}

    def _tuple(self, found: CheckpointTuple) -> CheckpointTuple:
        return found._replace(config=self._out(found.config), parent_config=self._out(found.parent_config))

    def _inside(self, found: CheckpointTuple) -> bool:
        key = (found.config.get("configurable") or {}).get("thread_id")
        return key is not None and self.name(str(key)) is not None

    # -- the contract, mapped -------------------------------------------------
    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        found = await self.saver.aget_tuple(self._in(config))
        return None if found is None else self._tuple(found)

    async def alist(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        before_in = None if before is None else self._in(before)
        if config is not None:
            async for found in self.saver.alist(self._in(config), filter=filter, before=before_in, limit=limit):
                yield self._tuple(found)
            return
        left = limit
        async for found in self.saver.alist(None, filter=filter, before=before_in):  # every thread: the scope's only
            if left is not None and left <= 0:
                return
            if self._inside(found):
                yield self._tuple(found)
                left = None if left is None else left - 1

    async def aput(
        self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> dict[str, Any]:
        stored: dict[str, Any] = self._out(await self.saver.aput(self._in(config), checkpoint, metadata, new_versions))
        return stored

    async def aput_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Any, ...]] = (),
    ) -> list[dict[str, Any]]:
        # Each write is aput_writes' arguments: (config, writes, task_id), and its task_path when given.
        stored = await self.saver.aput_many(
            [(self._in(c), cp, md, nv) for c, cp, md, nv in puts], writes=[(self._in(w[0]), *w[1:]) for w in writes]
        )
        return [self._out(c) for c in stored]

    def prepare_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Any, ...]] = (),
    ) -> Any:
        """The saver's ``prepare_many`` under storage keys (engine/pregel/_landing.py); None if it has none."""
        prepare = getattr(self.saver, "prepare_many", None)
        if prepare is None:
            return None
        return prepare([(self._in(c), cp, md, nv) for c, cp, md, nv in puts], writes=[(self._in(w[0]), *w[1:]) for w in writes])

    async def aput_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        await self.saver.aput_writes(self._in(config), writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str, *, lease: Lease | None = None) -> None:
        key = self.key(str(thread_id))
        await (self.saver.adelete_thread(key) if lease is None else self.saver.adelete_thread(key, lease=lease))

    async def _aprune_thread(self, thread_id: str, choose: Choose) -> int:
        # the base's aprune and adelete_for_runs (over this scope's alist) prune through here
        return await self.saver._aprune_thread(self.key(thread_id), choose)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await self.saver.acopy_thread(self.key(str(source_thread_id)), self.key(str(target_thread_id)))

    async def aget_delta_channel_history(self, *, config: Mapping[str, Any], channels: Sequence[str]) -> Mapping[str, Any]:
        return await self.saver.aget_delta_channel_history(config=self._in(config), channels=channels)

    async def alist_threads(self, *, prefix: str = "", limit: int | None = None) -> AsyncIterator[ThreadInfo]:
        async for t in self.saver.alist_threads(prefix=self.key(prefix), limit=limit):
            thread = self.name(t.thread_id)
            if thread is not None:
                yield dataclasses.replace(t, thread_id=thread)
