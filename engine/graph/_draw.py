"""A graph's nodes and edges, for drawing (GetGraph, the inspector, ``draw_mermaid()``).

Edges are what the builder declares, plus what LangGraph reads from
annotations: a node whose return annotation is ``Command[Literal["a", "b"]]``
may go to ``a`` and ``b`` (conditional edges), and a router annotated
``-> Literal[...]`` lists its destinations (see ``add_conditional_edges``).
They come in LangGraph's order: static edges out of START, then each
source's conditional edges, then the other static edges.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from typing import Any

from engine.graph._topology import Topology
from engine.types import END, START, Command

__all__ = ["DrawableGraph", "Edge", "draw", "literal_names", "return_annotation", "command_destinations"]


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    conditional: bool = False
    label: str | None = None

    @property
    def data(self) -> str | None:
        """LangGraph's name for the label."""
        return self.label


@dataclass(frozen=True, slots=True)
class DrawableGraph:
    nodes: tuple[str, ...]
    edges: tuple[Edge, ...]
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)

    def draw_mermaid(self) -> str:
        """The graph as a Mermaid flowchart, in the form LangGraph's ``draw_mermaid()`` writes."""
        has_in = {e.target for e in self.edges}
        has_out = {e.source for e in self.edges}
        no_in = [n for n in self.nodes if n not in has_in]
        no_out = [n for n in self.nodes if n not in has_out]
        first = no_in[0] if len(no_in) == 1 else None
        last = no_out[0] if len(no_out) == 1 else None
        lines = ["---", "config:", "  flowchart:", "    curve: linear", "---", "graph TD;"]
        for n in self.nodes:
            label = f"<p>{n}</p>" if n in (START, END) else n
            if n == first:
                lines.append(f"\t{n}([{label}]):::first")
            elif n == last:
                lines.append(f"\t{n}([{label}]):::last")
            else:
                lines.append(f"\t{n}({label})")
        for e in self.edges:
            if e.label:
                arrow = f"-. &nbsp;{e.label}&nbsp; .->" if e.conditional else f"-- &nbsp;{e.label}&nbsp; -->"
            else:
                arrow = "-.->" if e.conditional else "-->"
            lines.append(f"\t{e.source} {arrow} {e.target};")
        lines += [
            "\tclassDef default fill:#f2f0ff,line-height:1.2",
            "\tclassDef first fill-opacity:0",
            "\tclassDef last fill:#bfb6fc",
        ]
        return "\n".join(lines) + "\n"


def literal_names(annotation: Any) -> tuple[str, ...] | None:
    """The names in ``Literal["a", "b"]`` (or ``Command[Literal[...]]``), or None."""
    if typing.get_origin(annotation) is Command or (isinstance(annotation, type) and issubclass(annotation, Command)):
        args = typing.get_args(annotation)
        return literal_names(args[0]) if args else None
    if typing.get_origin(annotation) is typing.Literal:
        return tuple(str(a) for a in typing.get_args(annotation))
    if isinstance(annotation, str) and annotation:
        return (annotation,)
    return None


def return_annotation(fn: Any) -> Any:
    """``fn``'s return annotation, resolved (None if it has none or it does not resolve)."""
    try:
        return typing.get_type_hints(fn).get("return")
    except Exception:  # an annotation that does not resolve draws nothing
        return None


def command_destinations(fn: Any) -> tuple[str, ...]:
    """Where a node annotated ``-> Command[Literal[...]]`` may go (empty for any other)."""
    ret = return_annotation(fn)
    return (literal_names(ret) or ()) if typing.get_origin(ret) is Command else ()


def draw(topology: Topology) -> DrawableGraph:
    first = [Edge(s, e) for s, e in topology.edges if s == START]
    conditional: list[Edge] = []
    for source in (START, *topology.nodes):
        mine: list[Edge] = []
        for br in topology.branches.get(source, ()):
            if br.path_map is not None:
                for label, target in br.path_map.items():
                    mine.append(Edge(source, target, True, None if label == target else str(label)))
            else:
                mine += [Edge(source, t, True) for t in [*topology.nodes, END] if t != source]
        mine += [Edge(source, t, True, label) for t, label in topology.commands.get(source, ())]
        conditional += sorted(mine, key=lambda e: e.target)  # as LangGraph lists them
    rest = [Edge(s, e) for s, e in topology.edges if s != START]
    for sources, target in topology.joins:
        rest += [Edge(s, target, label="join") for s in sources]
    nodes = (START, *topology.nodes, END)
    edges = tuple(dict.fromkeys([*first, *conditional, *rest]))
    return DrawableGraph(nodes, edges, {n: dict(meta) for n, meta in topology.nodes.items()})
