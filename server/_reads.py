"""Reading graphs and threads: the one path the RPCs and the inspector share.

``GetState``, ``ListHistory``, ``GetGraph`` and the inspector's JSON API all
read through :class:`Reads`. It takes arguments already checked
(:mod:`server._requests`) and returns engine values, raising engine errors
(:class:`~engine.errors.NotFoundError` naming the caller's own ids, never the
storage key) that the one status table maps, for gRPC and HTTP alike. A
caller projects the values onto its wire (protobuf in :mod:`server.service`,
JSON in :mod:`server.inspector`). Nothing here knows about gRPC or HTTP.

Storage keys: a thread's key in the checkpointer names its graph, and its
tenant when tenants are configured (:func:`thread_key`). A graph never sees
it: each graph's checkpointer is the server's seen through
:func:`scope_threads` (an :class:`engine.host.ScopedSaver`), so the graph, its
events and spans, and every read carry the caller's thread id, while leases,
run records and messages name the storage key.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from engine.checkpoint.base import BaseCheckpointSaver, CheckpointTuple, ThreadInfo, empty_checkpoint
from engine.errors import InvalidUpdateError, NotFoundError
from engine.host import RUN_KEY, ScopedSaver
from engine.pregel import Pregel
from engine.types import StateSnapshot
from server._registry import GraphEntry
from server._requests import config
from server._tenants import TENANT, TENANT_NAME

log = logging.getLogger("graphwire.server")

__all__ = ["Reads", "key_of", "newest_state", "owner_of", "scope_threads", "thread_key"]


def thread_key(graph: str, thread_id: str) -> str:
    """The checkpointer's thread id: threads are scoped to their graph, and to
    the calling tenant when tenants are configured (see :mod:`server._tenants`)."""
    return key_of(TENANT.get(), graph, thread_id)


def key_of(tenant: str | None, graph: str, thread_id: str) -> str:
    """The checkpointer's thread id of ``tenant``'s thread (None: no tenant)."""
    return f"{graph}:{thread_id}" if tenant is None else f"{tenant}/{graph}:{thread_id}"


def owner_of(key: str, graph: str) -> tuple[str | None, str] | None:
    """(tenant, thread id) of a checkpointer thread id of ``graph``; None for another graph's.

    Unambiguous: tenant names (``TENANT_NAME``) hold no ``/`` or ``:``.
    """
    untenanted = key_of(None, graph, "")
    if key.startswith(untenanted):
        return None, key[len(untenanted) :]
    tenant, slash, _ = key.partition("/")
    if slash and TENANT_NAME.match(tenant) and key.startswith(prefix := key_of(tenant, graph, "")):
        return tenant, key[len(prefix) :]
    return None


async def newest_state(graph: Any, thread_id: str, *, run_ids: bool = False) -> StateSnapshot:
    """The thread's newest version as ``get_state`` shows it (live: its step's finished tasks' writes
    applied), or as recorded when those writes conflict: LangGraph's get_state raises the step's
    InvalidUpdateError then (GetState does too), where the server's own reads (a thread's record, a
    turn's checks, a run's recovery) need the version. ``graph``: either runtime's."""
    try:
        return await graph.aget_state(config(thread_id), run_ids=run_ids)
    except InvalidUpdateError:
        async for recorded in graph.aget_state_history(config(thread_id), limit=1, run_ids=run_ids):  # the newest, one read
            return recorded
        raise


def scope_threads(graphs: Mapping[str, GraphEntry], saver: Any) -> None:
    """Give each graph ``saver`` seen through its storage keys: the graph calls a thread by its caller's id."""
    for entry in graphs.values():
        entry.graph.checkpointer = _scoped(saver, entry.name)


def _scoped(saver: Any, graph: str) -> ScopedSaver:
    def name(key: str) -> str | None:
        found = owner_of(key, graph)
        return found[1] if found is not None and found[0] == TENANT.get() else None

    return ScopedSaver(saver, lambda thread_id: thread_key(graph, thread_id), name)


class Reads:
    """Read-only access to the graphs a server runs and their threads."""

    def __init__(self, graphs: Mapping[str, GraphEntry], checkpointer: BaseCheckpointSaver, *, max_history: int) -> None:
        self.graphs = graphs
        self.checkpointer = checkpointer
        self.max_history = max_history

    def graph(self, name: str) -> GraphEntry:
        entry = self.graphs.get(name)
        if entry is None:
            known = ", ".join(sorted(self.graphs)) or "none"
            raise NotFoundError(f"unknown graph {name!r} (this server runs: {known})")
        return entry

    def entries(self) -> list[GraphEntry]:
        """Every graph, in name order."""
        return sorted(self.graphs.values(), key=lambda e: e.name)

    async def state(
        self, graph: str, thread_id: str, checkpoint_id: str | None = None, *, subgraphs: bool = False, checkpoint_ns: str = ""
    ) -> tuple[GraphEntry, StateSnapshot]:
        """One version (the newest when ``checkpoint_id`` is None); NotFoundError for an unknown thread or id.

        ``checkpoint_ns``: a subgraph's version instead; ``subgraphs``: with its subgraphs' snapshots nested.
        """
        entry = self.graph(graph)
        cfg = config(thread_id, checkpoint_id, checkpoint_ns=checkpoint_ns)
        state = await entry.graph.aget_state(cfg, subgraphs=subgraphs, run_ids=True)
        if state.metadata is None:  # the engine reads an unknown thread or version as empty, as LangGraph
            where = f" under checkpoint_ns {checkpoint_ns!r}" if checkpoint_ns else ""
            if checkpoint_id:
                raise NotFoundError(f"thread {thread_id!r} has no checkpoint {checkpoint_id!r}{where}")
            raise NotFoundError(f"thread {thread_id!r} does not exist in graph {entry.name!r}{where}")
        return entry, state

    def empty_values(self, graph: str) -> Any:
        """The values of a new thread's first version (its input's, the input not yet applied): each output
        channel's empty value, as LangGraph streams that version (``{"messages": []}``)."""
        served = self.graph(graph).graph
        try:
            if not isinstance(served, Pregel):  # LangGraph's (server._langgraph_runtime.LangGraphGraph)
                return served.empty_values()
            none = CheckpointTuple(config("", None), empty_checkpoint(), {"source": "input", "step": -1, "parents": {}}, None, [])
            return served.snapshot(none).values
        except Exception:  # noqa: BLE001 - a channel that cannot be read empty: shown as none, the run goes on
            log.exception("graph %r: its empty channels could not be read; shown as {}", graph)
            return {}

    async def saved(self, graph: str, thread_id: str, checkpoint_id: str) -> CheckpointTuple:
        """A version as stored, with its pending writes; NotFoundError when it is not there."""
        entry = self.graph(graph)
        found = await entry.graph.checkpointer.aget_tuple(config(thread_id, checkpoint_id))
        if found is None:
            raise NotFoundError(f"thread {thread_id!r} has no checkpoint {checkpoint_id!r}")
        return found

    async def history(
        self,
        graph: str,
        thread_id: str,
        *,
        filter: dict[str, Any] | None = None,
        before: str | None = None,
        limit: int | None = None,
        checkpoint_ns: str = "",
    ) -> list[StateSnapshot]:
        """Versions newest first, every branch; at most ``max_history`` whatever ``limit`` asks."""
        entry = self.graph(graph)
        before_cfg = None
        if before is not None:
            before_cfg = config(thread_id, before, checkpoint_ns=checkpoint_ns)
            if await entry.graph.checkpointer.aget_tuple(before_cfg) is None:
                raise NotFoundError(f"thread {thread_id!r} has no checkpoint {before!r}")
        limit = min(limit, self.max_history) if limit else self.max_history
        cfg = config(thread_id, checkpoint_ns=checkpoint_ns)
        if filter and "run_id" in filter:  # the run that wrote a version is recorded beside its metadata (RUN_KEY)
            filter = {**{k: v for k, v in filter.items() if k != "run_id"}, RUN_KEY: filter["run_id"]}
        found = [s async for s in entry.graph.aget_state_history(cfg, filter=filter, before=before_cfg, limit=limit, run_ids=True)]
        if checkpoint_ns and not found and not filter and before is None:
            # a namespace with no versions is none of the thread's subgraphs (the engine reads any namespace)
            raise NotFoundError(f"thread {thread_id!r} has no versions under checkpoint_ns {checkpoint_ns!r}")
        return found

    async def threads(self, graph: str, *, limit: int | None = None) -> list[ThreadInfo]:
        """The graph's threads, most recently written first, with the caller's thread ids.

        Raises NotImplementedError when the checkpointer cannot list threads.
        """
        entry = self.graph(graph)
        return [t async for t in entry.graph.checkpointer.alist_threads(limit=limit)]  # its scope: the caller's ids
