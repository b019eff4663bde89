"""Reading and updating a thread's state: ``get_state``, ``get_state_history``, ``update_state``.

:class:`StateAPI` is an object over one compiled graph, made by
:class:`~engine.pregel.Pregel`'s state methods on each call (a graph copied
by ``with_config`` reads with its own defaults); the running half is
:mod:`._launch`. A config whose ``checkpoint_ns`` names a
subgraph's namespace (``node:task_id``, nested with ``|``) reads or updates
that subgraph's versions, as the subgraph's own graph sees them, on this
graph's saver: the namespace says which node's graph it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator, Mapping, Sequence

from engine.checkpoint.base import Lease
from engine._internal._config import merge_configs
from engine.pregel._delta import hydrate
from engine.pregel._savers import root_saver
from engine.pregel._updates import apply_updates
from engine.types import StateSnapshot

if TYPE_CHECKING:
    from engine.pregel._graph_face import CompiledGraph

__all__ = ["StateAPI", "subgraph_at"]


def subgraph_at(graph: CompiledGraph, ns: str) -> CompiledGraph | None:
    """The graph running at namespace ``ns`` (``node:task_id`` parts joined by ``|``) under ``graph``:
    ``graph`` itself at "", the declared subgraph each part names below; None where one names none."""
    for part in ns.split("|") if ns else ():
        node = graph.nodes.get(part.split(":", 1)[0])
        if node is None or node.subgraph is None:
            return None
        graph = node.subgraph
    return graph


class StateAPI:
    """``get_state``, ``get_state_history``, ``update_state`` of one compiled graph."""

    __slots__ = ("graph",)

    def __init__(self, graph: CompiledGraph) -> None:
        self.graph = graph

    def _saver(self, config: Mapping[str, Any]) -> Any:
        """The saver the call reads or writes: ``config``'s or the compiled one's, as a run's
        (:func:`~engine.pregel._savers.root_saver`: ``checkpointer=True`` refused as a root's)."""
        saver = root_saver(self.graph, config)
        if saver is None:
            raise ValueError("No checkpointer set: compile(checkpointer=...) to read or update state")
        return saver

    def _graph_at(self, ns: str, *, for_update: bool = False) -> CompiledGraph:
        """The graph whose versions are stored under ``ns``: this one at "", else the subgraph it names.

        As LangGraph's: a namespace that names no subgraph this graph declares (a graph a
        node's function invokes, a tool's) is read with this graph's channels, and an update
        there raises ValueError, as this graph's nodes would write the wrong state into it.
        """
        found = subgraph_at(self.graph, ns)
        if found is not None:
            return found
        if for_update:
            raise ValueError(f"Subgraph {'|'.join(p.split(':', 1)[0] for p in ns.split('|'))} not found")
        return self.graph

    def get_subgraphs(self, *, namespace: str | None = None, recurse: bool = False) -> Iterator[tuple[str, Any]]:
        """The subgraphs of this graph, as ``(namespace, graph)``, as LangGraph's.

        A subgraph is a compiled graph added as a node, unless it was compiled
        with ``checkpointer=False``. ``namespace``: only the one at that path
        (``parent|child``, no task ids; a nested one needs ``recurse``);
        ``recurse``: their subgraphs too, ``node|child``.
        """
        for name, node in self.graph.nodes.items():
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

    async def aget_state(self, config: Mapping[str, Any], *, subgraphs: bool = False, run_ids: bool = False) -> StateSnapshot:
        """The newest version of the thread (or the one ``config`` names).

        ``subgraphs``: each task of a subgraph node whose namespace holds a
        version gets that subgraph's snapshot as its ``state`` (nested, as
        LangGraph); otherwise a subgraph task's ``state`` is the config that
        names its namespace. ``run_ids`` (a host's view): the metadata names the run that wrote the version
        (where the saver keeps it: ``keeps_run_ids``, a host's saver).
        """
        config = merge_configs(self.graph.config, config)
        ns = (config.get("configurable") or {}).get("checkpoint_ns") or ""
        saver = self._saver(config)
        return await StateAPI(self._graph_at(ns))._read_state(saver, config, subgraphs, run_ids)

    async def _read_state(self, saver: Any, config: Mapping[str, Any], subgraphs: bool, run_ids: bool = False) -> StateSnapshot:
        saved = await saver.aget_tuple(config)
        if saved is None:  # as LangGraph: an unknown thread, or a version it does not have, reads as empty
            return StateSnapshot({}, (), dict(config), None, None, None, (), ())
        saved = await hydrate(saver, saved, self.graph.spec.channels)
        # Without a checkpoint id it is the live view: what the step so far did.
        snap = self.graph.snapshot(saved, live=not (config.get("configurable") or {}).get("checkpoint_id"), run_ids=run_ids)
        if not subgraphs or not any(t.state for t in snap.tasks):
            return snap
        tasks = []
        for t in snap.tasks:
            if t.state:
                sub = self.graph.nodes[t.name].subgraph
                own = sub.checkpointer if sub.checkpointer not in (None, True, False) else saver
                inner = await StateAPI(sub)._read_state(own, t.state, True, run_ids)
                if inner.config is not t.state and inner.metadata is not None:
                    t = t._replace(state=inner)
            tasks.append(t)
        return snap._replace(tasks=tuple(tasks))

    async def aget_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
        run_ids: bool = False,
    ) -> AsyncIterator[StateSnapshot]:
        """The thread's versions, newest first; with a ``checkpoint_id``, only that one.

        As LangGraph: older versions are reached with ``before=``, and a
        config without a thread id raises KeyError (listing every thread's
        versions is the saver's ``alist(None)``, never a graph's history).
        The versions are the root graph's, or a subgraph's when the config
        names its ``checkpoint_ns``.
        """
        config = merge_configs(self.graph.config, config)
        configurable = config.get("configurable") or {}
        if configurable.get("thread_id") is None:
            raise KeyError("get_state_history needs config['configurable']['thread_id']")
        ns = configurable.get("checkpoint_ns") or ""
        graph = self._graph_at(ns)
        configurable = {**configurable, "checkpoint_ns": ns}
        saver = self._saver(config)
        async for saved in saver.alist({"configurable": configurable}, filter=filter, before=before, limit=limit):
            yield graph.snapshot(await hydrate(saver, saved, graph.spec.channels), run_ids=run_ids)

    async def aupdate_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
        *,
        lease: Lease | None = None,
    ) -> dict[str, Any]:
        """Write an "update" version: ``values`` as if node ``as_node`` returned them (:mod:`._updates`).

        Reducers apply; the edges out of ``as_node`` decide what runs next.
        ``as_node`` may also be LangGraph's ``"__input__"`` (the values are the
        graph's input), ``"__copy__"`` (the version copied as a fork) or ``END``
        with ``values=None`` (the step due ends, cancelling a pending
        interrupt). The new version's parent is the checkpoint ``config``
        names (or the newest), so updating an older version starts a branch.
        A config naming a subgraph's ``checkpoint_ns`` updates that subgraph's
        state (``as_node`` then names one of its nodes). ``task_id``: the id
        of the task the update is written as (default: the id of ``as_node``'s
        task due). ``lease``: as for :meth:`aevents`.
        """
        config = merge_configs(self.graph.config, config)
        ns = (config.get("configurable") or {}).get("checkpoint_ns") or ""
        saver = self._saver(config)  # (no saver is said before a namespace it cannot read)
        return await apply_updates(self._graph_at(ns, for_update=True), saver, config, [(values, as_node, task_id)], lease)

    async def abulk_update_state(self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]) -> dict[str, Any]:
        """Apply ``supersteps`` (each a sequence of :class:`~engine.types.StateUpdate`) one
        version each, in order, the first on the version ``config`` names; the last one's config.

        A superstep of several updates is one version written as by several
        nodes at once (:mod:`._updates`), as LangGraph's.
        """
        if not supersteps:
            raise ValueError("No supersteps provided")
        if any(len(u) == 0 for u in supersteps):
            raise ValueError("No updates provided")
        config = merge_configs(self.graph.config, config)
        ns = (config.get("configurable") or {}).get("checkpoint_ns") or ""
        saver = self._saver(config)
        graph = self._graph_at(ns, for_update=True)
        out: dict[str, Any] = dict(config)
        for superstep in supersteps:
            updates = [tuple((tuple(u) + (None, None))[:3]) for u in superstep]
            out = await apply_updates(graph, saver, {**config, **out}, updates, None)
        return out

    async def adelete_thread(self, thread_id: str) -> None:
        await self._saver({}).adelete_thread(thread_id)
