"""A graph's nodes and edges, for drawing (GetGraph, the inspector)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.graph._topology import Topology
from engine.types import END, START

__all__ = ["DrawableGraph", "Edge", "draw"]


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    conditional: bool = False
    label: str | None = None


@dataclass(frozen=True, slots=True)
class DrawableGraph:
    nodes: tuple[str, ...]
    edges: tuple[Edge, ...]
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)


def draw(topology: Topology) -> DrawableGraph:
    edges: list[Edge] = [Edge(s, e) for s, e in topology.edges]
    for sources, target in topology.joins:
        edges += [Edge(s, target, label="join") for s in sources]
    for source, branches in topology.branches.items():
        for br in branches:
            if br.path_map is not None:
                for label, target in br.path_map.items():
                    edges.append(Edge(source, target, True, None if label == target else str(label)))
            else:
                for target in [*topology.nodes, END]:
                    if target != source:
                        edges.append(Edge(source, target, True))
    nodes = (START, *topology.nodes, END)
    return DrawableGraph(nodes, tuple(edges), {n: dict(meta) for n, meta in topology.nodes.items()})
