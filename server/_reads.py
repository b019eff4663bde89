"""Reading graphs and threads: the one path the RPCs and the inspector share.

``GetState``, ``ListHistory``, ``GetGraph`` and the inspector's JSON API all
read through :class:`Reads`. It validates arguments the way the RPCs always
have (INVALID_ARGUMENT naming the field, NOT_FOUND naming the caller's own
ids, not the storage key) and returns engine values: a caller projects them
onto its wire (protobuf in :mod:`server.service`, JSON in
:mod:`server.inspector`). Nothing here knows about gRPC contexts or HTTP.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import grpc

from engine.checkpoint.base import CheckpointTuple, ThreadInfo
from engine.graph._draw import DrawableGraph
from engine.types import StateSnapshot
from server._errors import RpcError
from server._registry import GraphEntry
from server._tenants import TENANT, TENANT_NAME

__all__ = ["MAX_ID", "Reads", "bad", "ident", "key_of", "owner_of", "thread_key"]

MAX_ID = 512


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


def bad(field: str, why: str) -> RpcError:
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"{field}: {why}")


def ident(value: str, field: str) -> str:
    """``value`` when it is a usable id (graph, thread or checkpoint); else INVALID_ARGUMENT."""
    if not value:
        raise bad(field, "required")
    if len(value) > MAX_ID:
        raise bad(field, f"at most {MAX_ID} characters")
    if "\x00" in value:
        raise bad(field, "must not contain NUL")
    return value


def _cfg(key: str, checkpoint_id: str | None = None, checkpoint_ns: str = "") -> dict[str, Any]:
    configurable: dict[str, Any] = {"thread_id": key}
    if checkpoint_ns:
        configurable["checkpoint_ns"] = checkpoint_ns
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def _namespace(checkpoint_ns: str) -> str:
    """A subgraph's namespace from a request: ``node:task_id`` parts joined with "|" (INVALID_ARGUMENT otherwise)."""
    if len(checkpoint_ns) > 4 * MAX_ID:
        raise bad("checkpoint_ns", f"is longer than {4 * MAX_ID} characters")
    for part in checkpoint_ns.split("|") if checkpoint_ns else ():
        node, _, task = part.partition(":")
        if not node or (_ and not task):
            raise bad("checkpoint_ns", f"{checkpoint_ns!r} is not a subgraph namespace (node:task_id parts joined with '|')")
    return checkpoint_ns


class Reads:
    """Read-only access to the graphs a server runs and their threads."""

    def __init__(self, graphs: Mapping[str, GraphEntry], checkpointer: Any, *, max_history: int) -> None:
        self.graphs = graphs
        self.checkpointer = checkpointer
        self.max_history = max_history

    def graph(self, name: str, field: str = "graph") -> GraphEntry:
        ident(name, field)
        entry = self.graphs.get(name)
        if entry is None:
            known = ", ".join(sorted(self.graphs)) or "none"
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"unknown graph {name!r} (this server runs: {known})")
        return entry

    def entries(self) -> list[GraphEntry]:
        """Every graph, in name order."""
        return sorted(self.graphs.values(), key=lambda e: e.name)

    def drawing(self, name: str, field: str = "graph") -> tuple[GraphEntry, DrawableGraph]:
        entry = self.graph(name, field)
        return entry, entry.graph.get_graph()

    async def state(
        self, graph: str, thread_id: str, checkpoint_id: str | None = None, *, subgraphs: bool = False, checkpoint_ns: str = ""
    ) -> tuple[GraphEntry, StateSnapshot]:
        """One version (the newest when ``checkpoint_id`` is None); NOT_FOUND for an unknown thread or id.

        ``checkpoint_ns``: a subgraph's version instead; ``subgraphs``: with its subgraphs' snapshots nested.
        """
        entry = self.graph(graph)
        ident(thread_id, "thread_id")
        if checkpoint_id is not None:
            ident(checkpoint_id, "checkpoint_id")
        config = _cfg(thread_key(entry.name, thread_id), checkpoint_id, _namespace(checkpoint_ns))
        state = await entry.graph.aget_state(config, subgraphs=subgraphs)
        if state.metadata is None:
            where = f" under checkpoint_ns {checkpoint_ns!r}" if checkpoint_ns else ""
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"thread {thread_id!r} does not exist in graph {entry.name!r}{where}")
        return entry, state

    async def saved(self, graph: str, thread_id: str, checkpoint_id: str) -> CheckpointTuple:
        """A version as stored, with its pending writes; NOT_FOUND when it is not there."""
        entry = self.graph(graph)
        ident(thread_id, "thread_id")
        ident(checkpoint_id, "checkpoint_id")
        found = await entry.graph.checkpointer.aget_tuple(_cfg(thread_key(entry.name, thread_id), checkpoint_id))
        if found is None:
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"thread {thread_id!r} has no checkpoint {checkpoint_id!r}")
        return found

    async def history(
        self,
        graph: str,
        thread_id: str,
        *,
        filter: Any = None,
        before: str | None = None,
        limit: int | None = None,
        checkpoint_ns: str = "",
    ) -> list[StateSnapshot]:
        """Versions newest first, every branch; at most ``max_history`` whatever ``limit`` asks."""
        entry = self.graph(graph)
        ident(thread_id, "thread_id")
        if filter is not None:
            if not isinstance(filter, dict):
                raise bad("filter_json", "must be a JSON object")
            for k, v in filter.items():
                if isinstance(v, (dict, list)):
                    raise bad("filter_json", f"value of {k!r} must be a string, number, boolean or null")
        key = thread_key(entry.name, thread_id)
        ns = _namespace(checkpoint_ns)
        before_cfg = None
        if before is not None:
            before_cfg = _cfg(key, ident(before, "before"), ns)
            if await entry.graph.checkpointer.aget_tuple(before_cfg) is None:
                raise RpcError(grpc.StatusCode.NOT_FOUND, f"thread {thread_id!r} has no checkpoint {before!r}")
        limit = min(limit, self.max_history) if limit else self.max_history
        return [s async for s in entry.graph.aget_state_history(_cfg(key, None, ns), filter=filter, before=before_cfg, limit=limit)]

    async def threads(self, graph: str, *, limit: int | None = None) -> list[ThreadInfo]:
        """The graph's threads, most recently written first, with the caller's thread ids.

        Raises NotImplementedError when the checkpointer cannot list threads.
        """
        entry = self.graph(graph)
        prefix = thread_key(entry.name, "")
        saver = entry.graph.checkpointer
        return [
            ThreadInfo(t.thread_id[len(prefix) :], t.checkpoint_id, t.updated_at)
            async for t in saver.alist_threads(prefix=prefix, limit=limit)
        ]
