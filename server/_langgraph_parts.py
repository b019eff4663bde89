"""Parts of :mod:`server._langgraph_runtime`: the node cache as LangGraph's loop uses it, and a LangGraph graph's drawing."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from engine.cache.base import BaseCache, FullKey, Namespace

__all__ = ["Drawn", "Edge", "TaskWritesCache", "drawn_from_builder"]


class TaskWritesCache(BaseCache[Any]):
    """The server's node cache as LangGraph's loop uses it: a task's writes, which LangGraph keeps in a
    deque the server's serializer does not store, are stored as a list (a hit extends the task's writes with it)."""

    def __init__(self, cache: BaseCache[Any]) -> None:
        super().__init__(serde=cache.serde)
        self.cache = cache

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        return await self.cache.aget(keys)

    async def aset(self, pairs: Mapping[FullKey, tuple[Any, int | None]]) -> None:
        await self.cache.aset({k: (list(v) if isinstance(v, deque) else v, ttl) for k, (v, ttl) in pairs.items()})

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        await self.cache.aclear(namespaces)


class Edge:
    """A drawn edge as the server reads one (LangChain's ``data`` is its label)."""

    __slots__ = ("source", "target", "label", "conditional")

    def __init__(self, source: str, target: str, label: Any, conditional: bool) -> None:
        self.source, self.target, self.conditional = source, target, conditional
        self.label = None if label is None else str(label)


class Drawn:
    """LangChain's drawing of a LangGraph graph, as the engine's ``DrawableGraph`` is read."""

    def __init__(self, nodes: dict[str, Any], edges: list[Edge]) -> None:
        self.nodes, self.edges = nodes, edges

    @property
    def metadata(self) -> dict[str, dict[str, Any]]:
        return {k: dict(getattr(n, "metadata", None) or {}) for k, n in self.nodes.items()}


def drawn_from_builder(graph: Any) -> Drawn:
    """A LangGraph graph drawn from its builder, running none of its code: its nodes, its edges, and its
    routers' edges to the targets their path maps name (a node with no edge out goes to END)."""
    builder = getattr(graph, "builder", None)
    names = [n for n in getattr(builder, "nodes", graph.nodes) if n not in ("__start__", "__end__")]
    edges = [Edge(a, b, None, False) for a, b in sorted(getattr(builder, "edges", ()))]
    for source, branches in (getattr(builder, "branches", None) or {}).items():
        for branch in branches.values():
            edges += [Edge(source, target, label, True) for label, target in (getattr(branch, "ends", None) or {}).items()]
    ends = {e.source for e in edges}
    edges += [Edge(n, "__end__", None, False) for n in names if n not in ends]
    return Drawn({n: None for n in ("__start__", *names, "__end__")}, edges)
