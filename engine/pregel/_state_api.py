"""Reading and updating a thread's state: ``get_state``, ``get_state_history``, ``update_state``.

A part of :class:`~engine.pregel.Pregel` (the mixin :class:`StateAPI`); the
running half is in ``_pregel``. A config whose ``checkpoint_ns`` names a
subgraph's namespace (``node:task_id``, nested with ``|``) reads or updates
that subgraph's versions, as the subgraph's own graph sees them, on this
graph's saver: the namespace says which node's graph it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator, Mapping, Sequence

from engine._internal._ids import checkpoint_id as new_checkpoint_id
from engine._internal._ids import now_iso
from engine._internal._ids import task_id as make_task_id
from engine._internal._sync import iter_sync, run_sync
from engine._internal._unsupported import WHERE_IT_DIFFERS, refuse
from engine.channels.base import BaseChannel
from engine.checkpoint.base import LEASE_KEY, Checkpoint, CheckpointTuple, Lease, copy_checkpoint, empty_checkpoint, run_lease
from engine.errors import InvalidUpdateError, NotFoundError
from engine.pregel._algo import Task, apply_null_writes, apply_writes, prepare_next_tasks, restore_channels
from engine.pregel._graph_run import merge_configs
from engine.pregel._io import configurable_metadata
from engine.pregel._snapshot import build_snapshot
from engine.pregel._spec import NO_WRITES, PULL, NodeSpec
from engine.pregel._status import null_writes, read_statuses
from engine.types import END, START, StateSnapshot

if TYPE_CHECKING:
    from engine.pregel._spec import GraphSpec

__all__ = ["StateAPI"]


class StateAPI:
    """``get_state``, ``get_state_history``, ``update_state`` of a compiled graph."""

    checkpointer: Any
    config: dict[str, Any] | None
    spec: GraphSpec
    channels: dict[str, BaseChannel]
    nodes: dict[str, NodeSpec]
    name: str

    def _saver(self) -> Any:
        if self.checkpointer is None or isinstance(self.checkpointer, bool):
            raise ValueError("no checkpointer set: compile(checkpointer=...) to read or update state")
        return self.checkpointer

    def _graph_at(self, ns: str) -> "StateAPI":
        """The graph whose versions are stored under ``ns``: this one at "", else the subgraph it names."""
        graph: StateAPI = self
        for part in ns.split("|") if ns else ():
            node = graph.nodes.get(part.split(":", 1)[0])
            if node is None or node.subgraph is None:
                raise NotFoundError(f"checkpoint_ns {ns!r}: graph {graph.name!r} has no subgraph node {part.split(':', 1)[0]!r}")
            graph = node.subgraph
        return graph

    def get_subgraphs(self, *, namespace: str | None = None, recurse: bool = False) -> Iterator[tuple[str, Any]]:
        """The subgraphs of this graph, as ``(namespace, graph)``, as LangGraph's.

        A subgraph is a compiled graph added as a node, unless it was compiled
        with ``checkpointer=False``. ``namespace``: only the one at that path
        (``parent|child``, no task ids; a nested one needs ``recurse``);
        ``recurse``: their subgraphs too, ``node|child``.
        """
        for name, node in self.nodes.items():
            if namespace is not None and namespace != name and not namespace.startswith(name + "|"):
                continue
            graph = node.subgraph
            if graph is None or graph.checkpointer is False:
                continue
            if name == namespace:
                yield name, graph
                return
            if namespace is None:
                yield name, graph
            if recurse:
                inner = None if namespace is None else namespace[len(name) + 1 :]
                yield from ((f"{name}|{n}", s) for n, s in graph.get_subgraphs(namespace=inner, recurse=True))

    async def aget_subgraphs(self, *, namespace: str | None = None, recurse: bool = False) -> AsyncIterator[tuple[str, Any]]:
        for pair in self.get_subgraphs(namespace=namespace, recurse=recurse):
            yield pair

    def snapshot(self, saved: CheckpointTuple, *, live: bool = False) -> StateSnapshot:
        """The StateSnapshot of a stored checkpoint (pure: no I/O); see :mod:`._snapshot`."""
        return build_snapshot(self.spec, saved, live=live)

    async def aget_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        """The newest version of the thread (or the one ``config`` names).

        ``subgraphs``: each task of a subgraph node whose namespace holds a
        version gets that subgraph's snapshot as its ``state`` (nested, as
        LangGraph); otherwise a subgraph task's ``state`` is the config that
        names its namespace.
        """
        config = merge_configs(self.config, config)
        ns = (config.get("configurable") or {}).get("checkpoint_ns") or ""
        return await self._graph_at(ns)._read_state(self._saver(), config, subgraphs)

    async def _read_state(self, saver: Any, config: Mapping[str, Any], subgraphs: bool) -> StateSnapshot:
        saved = await saver.aget_tuple(config)
        if saved is None:
            if (config.get("configurable") or {}).get("checkpoint_id"):
                raise NotFoundError(f"no checkpoint {config['configurable']['checkpoint_id']!r}")
            return StateSnapshot({}, (), dict(config), None, None, None, (), ())
        # Without a checkpoint id it is the live view: what the step so far did.
        snap = self.snapshot(saved, live=not (config.get("configurable") or {}).get("checkpoint_id"))
        if not subgraphs or not any(t.state for t in snap.tasks):
            return snap
        tasks = []
        for t in snap.tasks:
            if t.state:
                sub = self.nodes[t.name].subgraph
                own = sub.checkpointer if sub.checkpointer not in (None, True, False) else saver
                inner = await sub._read_state(own, t.state, True)
                if inner.config is not t.state and inner.metadata is not None:
                    t = t._replace(state=inner)
            tasks.append(t)
        return snap._replace(tasks=tuple(tasks))

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        return run_sync(self.aget_state(config, subgraphs=subgraphs))

    async def aget_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[StateSnapshot]:
        """The thread's versions, newest first; with a ``checkpoint_id``, only that one.

        As LangGraph: older versions are reached with ``before=``, and a
        config without a thread id raises KeyError (listing every thread's
        versions is the saver's ``alist(None)``, never a graph's history).
        The versions are the root graph's, or a subgraph's when the config
        names its ``checkpoint_ns``.
        """
        config = merge_configs(self.config, config)
        configurable = config.get("configurable") or {}
        if configurable.get("thread_id") is None:
            raise KeyError("get_state_history needs config['configurable']['thread_id']")
        ns = configurable.get("checkpoint_ns") or ""
        graph = self._graph_at(ns)
        configurable = {**configurable, "checkpoint_ns": ns}
        async for saved in self._saver().alist({"configurable": configurable}, filter=filter, before=before, limit=limit):
            yield graph.snapshot(saved)

    def get_state_history(self, config: Mapping[str, Any], **kwargs: Any) -> Iterator[StateSnapshot]:
        return iter_sync(self.aget_state_history(config, **kwargs))

    async def aupdate_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
        *,
        lease: Lease | None = None,
    ) -> dict[str, Any]:
        """Write an "update" version: ``values`` as if node ``as_node`` returned them.

        Reducers apply; the edges out of ``as_node`` decide what runs next.
        ``values=None`` with ``as_node=END`` ends the step due instead (it
        cancels a pending interrupt): see :func:`_end_step`. The new version's parent is the checkpoint ``config`` names (or the
        newest), so updating an older version starts a branch. A config
        naming a subgraph's ``checkpoint_ns`` updates that subgraph's state
        (``as_node`` then names one of its nodes). ``task_id``
        (LangGraph: the id of the task the update is written as) is not
        supported yet: NotImplementedError unless None. ``lease``: as for
        :meth:`aevents`.
        """
        refuse("update_state", task_id=task_id)
        config = merge_configs(self.config, config)
        ns = (config.get("configurable") or {}).get("checkpoint_ns") or ""
        return await self._graph_at(ns)._update(self._saver(), config, values, as_node, lease)

    async def _update(self, saver: Any, config: dict[str, Any], values: Any, as_node: str | None, lease: Lease | None) -> dict[str, Any]:
        configurable = dict(config.get("configurable") or {})
        lease = run_lease(saver, configurable.get("thread_id"), configurable, lease)
        saved = await saver.aget_tuple(config)
        if saved is None and configurable.get("checkpoint_id"):
            raise NotFoundError(f"no checkpoint {configurable['checkpoint_id']!r}")
        ck = copy_checkpoint(saved.checkpoint) if saved else empty_checkpoint()
        step = int(saved.metadata.get("step", -1)) if saved else -1
        channels = restore_channels(self.channels, ck)
        if as_node == END and values is None:
            changed, task = (_end_step(self, saved, ck, channels, step) if saved else set()), None
        else:
            changed, task = await self._update_as(as_node, values, config, ck, channels, step)
        # As LangGraph: an update's version names no updated channels, so the run that continues
        # from it plans every node (a join the update did not write to is still due).
        ck["updated_channels"] = None
        ck["id"] = new_checkpoint_id()
        ck["ts"] = now_iso()
        ns = configurable.get("checkpoint_ns") or ""
        parent = {"configurable": {**configurable, "checkpoint_ns": ns, "checkpoint_id": saved.checkpoint["id"]}} if saved else {
            "configurable": {k: v for k, v in configurable.items() if k != "checkpoint_id"}
        }
        if lease is not None:
            parent["configurable"][LEASE_KEY] = lease  # the saver's side: the write carries its fencing token
        parents = dict(saved.metadata.get("parents") or {}) if saved else {}
        user = config.get("metadata") or {}
        metadata = {**user, **configurable_metadata(configurable, user), "source": "update", "step": step + 1, "parents": parents}
        new_versions = {c: ck["channel_versions"][c] for c in changed}
        if task is not None and saved is not None and task.path == (PULL, task.name):
            # As LangGraph: the update is the result of the node's task due at the updated
            # version (history shows it there), stored as that task's writes.
            await saver.aput_writes(parent, task.writes or [(NO_WRITES, None)], task.id)
        return await saver.aput(parent, ck, metadata, new_versions)

    async def _update_as(
        self, as_node: str | None, values: Any, config: Mapping[str, Any], ck: Checkpoint, channels: Mapping[str, BaseChannel], step: int
    ) -> tuple[set[str], Task]:
        """Apply ``values`` to ``ck`` as if ``as_node`` returned them; the channels changed, and the
        task it was applied as (the node's task due at ``ck``, if one is: LangGraph reuses its id)."""
        if as_node is None:
            as_node = _last_writer(ck, self.nodes)
        if not isinstance(as_node, str) or as_node not in self.nodes:
            raise InvalidUpdateError(f"as_node {as_node!r} is not a node of graph {self.name!r}")
        node = self.nodes[as_node]
        due = next((t for t in prepare_next_tasks(ck, channels, self.nodes, step + 1) if t.path == (PULL, as_node)), None)
        task = Task(
            id=due.id if due is not None else make_task_id(ck["id"], step + 1, "update", as_node),
            name=as_node,
            path=due.path if due is not None else ("update",),
            input=None,
            triggers=tuple(c for c in node.triggers if c in ck["channel_versions"]),
            node=node,
            state=ck["channel_values"],
        )
        writes = node.writer(values, ck["channel_values"], dict(config))
        if hasattr(writes, "__await__"):
            writes = await writes
        task.writes = writes
        try:
            return apply_writes(ck, channels, [task])[1], task
        except InvalidUpdateError:
            raise
        except Exception as e:  # a reducer refusing the values: the caller's input is wrong
            raise InvalidUpdateError(f"update_state: the state's reducers rejected {values!r:.200}: {type(e).__name__}: {e}") from e

    def update_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
        *,
        lease: Lease | None = None,
    ) -> dict[str, Any]:
        return run_sync(self.aupdate_state(config, values, as_node, task_id, lease=lease))

    async def abulk_update_state(self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]) -> dict[str, Any]:
        """Apply ``supersteps`` (each a sequence of :class:`~engine.types.StateUpdate`) one
        version each, in order, the first on the version ``config`` names; the last one's config.

        A superstep of one update is :meth:`aupdate_state`'s version (LangGraph's
        ``update_state`` is this with one). Several updates in one superstep (one
        version written as by several nodes) are not supported yet: NotImplementedError.
        """
        if not supersteps:
            raise ValueError("No supersteps provided")
        if any(len(u) == 0 for u in supersteps):
            raise ValueError("No updates provided")
        if any(len(u) > 1 for u in supersteps):
            raise NotImplementedError(f"bulk_update_state: several updates in one superstep; see {WHERE_IT_DIFFERS}")
        out: dict[str, Any] = dict(config)
        for (update,) in supersteps:
            values, as_node, task_id = (tuple(update) + (None, None))[:3]
            out = await self.aupdate_state(out, values, as_node, task_id)
        return out

    def bulk_update_state(self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]) -> dict[str, Any]:
        return run_sync(self.abulk_update_state(config, supersteps))

    async def adelete_thread(self, thread_id: str) -> None:
        await self._saver().adelete_thread(thread_id)


def _end_step(graph: StateAPI, saved: CheckpointTuple, ck: Checkpoint, channels: Mapping[str, BaseChannel], step: int) -> set[str]:
    """``update_state(config, None, as_node=END)``: the step due at ``saved`` ends here.

    As LangGraph: its input writes and the writes of its finished tasks are
    applied, and every task due is marked as run, so the new version has no
    next node and no pending interrupt. Returns the channels changed.
    """
    planned = prepare_next_tasks(ck, channels, graph.nodes, step + 1)
    changed: set[str] = set()
    if nulls := null_writes(saved.pending_writes):
        changed |= apply_null_writes(ck, channels, nulls)
    statuses = read_statuses(saved.pending_writes)
    for t in planned:
        st = statuses.get(t.id)
        t.writes = st.writes if st is not None and st.finished else []
    return changed | apply_writes(ck, channels, planned)[1]


def _last_writer(ck: Checkpoint, nodes: Mapping[str, NodeSpec]) -> str:
    """The node that ran last, for update_state without ``as_node``."""
    best: list[tuple[int, str]] = []
    for name, seen in ck["versions_seen"].items():
        if name in nodes and name != START and seen:
            best.append((max(seen.values()), name))
    if not best:
        return START
    best.sort(reverse=True)
    if len(best) > 1 and best[0][0] == best[1][0]:
        raise InvalidUpdateError(
            f"ambiguous update: nodes {best[0][1]!r} and {best[1][1]!r} ran last together; pass as_node="
        )
    return best[0][1]
