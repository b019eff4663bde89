"""A builder's graph checked at ``compile()``, as LangGraph's ``StateGraph.validate``: the same
checks in the same order, with the same messages, each a GraphDefinitionError (a ValueError).

Sources first (every edge's, join's and router's, and each node that names where its Commands
go), then the entry point, then targets (a router's mapped names, then every edge's, join's and
Command destination's), then the interrupt nodes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from engine.errors import GraphDefinitionError
from engine.graph._branch import branch_name
from engine.graph._topology import Branch
from engine.types import END, START

__all__ = ["validate_graph"]


def validate_graph(
    nodes: Collection[str],
    edges: Iterable[tuple[str, str]],
    joins: Sequence[tuple[tuple[str, ...], str]],
    branches: Mapping[str, Sequence[Branch]],
    destinations: Mapping[str, Sequence[tuple[str, str | None]]],
    interrupt: Sequence[str] = (),
) -> None:
    """Raise GraphDefinitionError at the first check the graph fails. ``destinations``: each node's
    Command destinations (``add_node(destinations=)``, or its return annotation's), with their labels."""
    edges = list(edges)
    sources: set[Any] = {s for s, _ in edges} | {s for srcs, _ in joins for s in srcs} | set(branches)
    sources |= {n for n, ends in destinations.items() if ends}
    for s in sources:
        if s != START and s not in nodes:
            raise GraphDefinitionError(f"Found edge starting at unknown node '{s}'")
    if START not in sources:
        raise GraphDefinitionError("Graph must have an entrypoint: add at least one edge from START to another node")
    targets: set[Any] = {e for _, e in edges} | {e for _, e in joins}
    for s, brs in branches.items():
        for br in brs:
            for dest in (br.path_map or {}).values():  # (a router with no map may go to any node)
                if dest != END and dest not in nodes:
                    raise GraphDefinitionError(f"At '{s}' node, '{branch_name(br.path)}' branch found unknown target '{dest}'")
    for ends in destinations.values():
        targets.update(target for target, _ in ends)
    for e in targets:
        if e != END and e not in nodes:
            raise GraphDefinitionError(f"Found edge ending at unknown node `{e}`")
    for name in interrupt:
        if name != "*" and name not in nodes:
            raise GraphDefinitionError(f"Interrupt node `{name}` not found")
