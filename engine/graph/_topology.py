"""A compiled graph's shape, frozen: what its node writers route by and what drawing shows.

``StateGraph.compile()`` takes it from the builder, so that neither the
writers (:mod:`engine.graph._branch`) nor drawing (:mod:`engine.graph._draw`)
depends on the mutable builder (nor imports it: the builder imports them),
and a builder changed after ``compile()`` cannot change a graph compiled
from it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.channels.base import BaseChannel
from engine.errors import InvalidRouteError
from engine.graph._schema import SchemaInfo
from engine.types import Send

__all__ = ["Branch", "Topology"]


@dataclass(frozen=True, slots=True)
class Branch:
    """One conditional edge: its router, and the names its results map to."""

    path: Callable[..., Any]
    path_map: Mapping[Hashable, str] | None
    is_async: bool
    #: the schema the router's first parameter is annotated with (it reads that); None: its node's
    reads: SchemaInfo | None = None

    def destinations(self, result: Any, source: str) -> list[str | Send]:
        items = result if isinstance(result, (list, tuple)) else [result]
        out: list[str | Send] = []
        for r in items:
            if isinstance(r, Send):
                out.append(r)
                continue
            if self.path_map is not None:
                if r not in self.path_map:
                    raise InvalidRouteError(
                        f"conditional edge from {source!r} returned {r!r}, which is not in its path_map "
                        f"{sorted(map(str, self.path_map))}"
                    )
                r = self.path_map[r]
            out.append(r)
        return out


@dataclass(frozen=True, slots=True)
class Topology:
    """The nodes, edges and routes of a compiled graph, and its state's channels.

    The mappings are read-only views of copies taken at compile time.
    """

    nodes: Mapping[str, Mapping[str, Any]]  # node name -> its metadata, in definition order
    edges: tuple[tuple[str, str], ...]  # plain edges, in the order they were added
    joins: tuple[tuple[tuple[str, ...], str], ...]  # (sources, target): target waits for all sources
    branches: Mapping[str, tuple[Branch, ...]]  # source -> its conditional edges, in order
    channels: Mapping[str, BaseChannel]  # state key -> its channel (the reducer a write goes through)
    state: SchemaInfo  # what a router is given: the state, coerced to the schema's type
    #: node -> where its Commands may go, as (target, edge label or None): add_node(destinations=) or its annotation
    commands: Mapping[str, tuple[tuple[str, str | None], ...]] = field(default_factory=lambda: MappingProxyType({}))
    #: node -> the names of the tools it runs (a ToolNode's), which drawing lists in its metadata
    tools: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
