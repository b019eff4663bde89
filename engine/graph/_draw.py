"""A graph's nodes and edges, for drawing (GetGraph, the inspector, ``draw_mermaid()``), as LangGraph 1.2 draws them.

LangGraph does not list the edges the builder declared: it walks the graph.
It runs the supersteps on empty channels, each node's task writing what its
plain edges and join edges always write, and, the first time the node runs,
every destination its routers (a ``path_map``, or a ``-> Literal[...]``
router) and its Commands (``-> Command[Literal[...]]``,
``add_node(destinations=)``) may go to. An edge is drawn from the nodes that
wrote a channel to the node it triggered. So a node no walk reaches draws no
edge of its own, a router with no known destinations draws none, and a node
that leads nowhere gets an edge to END (``__end__`` appears only when some
edge reaches it). :func:`draw` is that walk, on the compiled graph's own
channels and planning (:mod:`engine.pregel._algo`).

``xray``: a node that is a compiled graph (not compiled with
``checkpointer=False``) is replaced by that graph's drawing, its node ids
prefixed ``node:`` (its START and END trimmed when they have one edge), the
edges into and out of the node moved to its first and last nodes; ``xray=N``
expands N levels, ``True`` all.
"""

from __future__ import annotations

import typing
import inspect
from dataclasses import dataclass, replace
from typing import Any, Mapping, NamedTuple

from engine._langchain import serializable_runnable_class
from engine.channels.after_finish import LastValueAfterFinish
from engine.checkpoint.base import empty_checkpoint
from engine.graph._mermaid import mermaid
from engine.graph._topology import Topology
from engine.pregel._algo import Task, apply_writes, restore_channels
from engine._internal._unsupported import refuse
from engine.pregel._spec import PULL
from engine.types import END, START, Command

__all__ = ["DrawableGraph", "Edge", "Node", "draw", "from_langchain", "literal_names", "return_annotation", "command_destinations"]

_LIMIT = 250  # supersteps walked, as LangGraph


@dataclass(frozen=True, slots=True)
class Node:
    """A drawn node: ``id`` (``parent:child`` inside an expanded subgraph), its ``name`` and metadata."""

    id: str
    name: str
    data: Any = None
    metadata: dict[str, Any] | None = None
    #: what LangGraph's ``to_json`` names the node's runnable (its LangChain id); None for END
    lc_id: tuple[str, ...] | None = None


class Edge(NamedTuple):
    """A drawn edge, LangChain's ``Edge`` field for field (LangGraph's ``get_graph().edges`` are
    those): equal to one with the same source, target, data (its label) and conditional."""

    source: str
    target: str
    data: str | None = None
    conditional: bool = False

    @property
    def label(self) -> str | None:
        """The edge's label (LangChain's ``data``)."""
        return self.data


@dataclass(frozen=True, slots=True)
class DrawableGraph:
    """Nodes by id (in LangGraph's order) and edges; ``draw_mermaid()`` writes it as LangGraph does."""

    nodes: dict[str, Node]
    #: a list, as LangChain's ``Graph.edges``
    edges: list[Edge]

    @property
    def metadata(self) -> dict[str, dict[str, Any]]:
        """Node id → its metadata."""
        return {k: dict(n.metadata or {}) for k, n in self.nodes.items()}

    def first_node(self) -> Node | None:
        """The one node no edge enters (None if none or several), as LangGraph's Graph."""
        return _only(self, {e.target for e in self.edges})

    def last_node(self) -> Node | None:
        """The one node no edge leaves (None if none or several)."""
        return _only(self, {e.source for e in self.edges})

    def draw_mermaid(
        self, *, with_styles: bool = True, curve_style: Any = None, node_colors: Any = None,
        wrap_label_n_words: int = 9, frontmatter_config: Any = None,
    ) -> str:  # fmt: skip
        """The graph as a Mermaid flowchart, in the form LangGraph's ``draw_mermaid()`` writes.

        ``curve_style``, ``node_colors`` and ``frontmatter_config`` are not supported yet:
        NotImplementedError unless left at their defaults."""
        style = getattr(curve_style, "value", curve_style)
        refuse("draw_mermaid", curve_style=None if style == "linear" else style, node_colors=node_colors, frontmatter_config=frontmatter_config)
        return mermaid(self, with_styles=with_styles, wrap_label_n_words=wrap_label_n_words)

    def to_json(self, *, with_schemas: bool = False) -> dict[str, list[dict[str, Any]]]:
        """The graph as LangChain's ``Graph.to_json`` gives LangGraph's: nodes (id, and what runs there) and edges."""
        nodes = []
        for node in self.nodes.values():
            item: dict[str, Any] = {"id": node.id}
            if node.lc_id is not None:
                item["type"] = "runnable"
                item["data"] = {"id": list(node.lc_id), "name": node.id}  # LangChain names a node's data by its id
            elif node.data is not None:  # a remote graph's node (its server's drawing): LangChain's "unknown"
                item["type"] = "unknown"
                item["data"] = node.id
            if node.metadata is not None:
                item["metadata"] = node.metadata
            nodes.append(item)
        edges = []
        for e in self.edges:
            edge: dict[str, Any] = {"source": e.source, "target": e.target}
            if e.data is not None:
                edge["data"] = e.data
            if e.conditional:
                edge["conditional"] = True
            edges.append(edge)
        return {"nodes": nodes, "edges": edges}


_CALLABLE = ("langgraph", "_internal", "_runnable", "RunnableCallable")


def lc_id(runs: Any) -> tuple[str, ...]:
    """The LangChain id LangGraph's drawing gives a node running ``runs``: a function's
    (RunnableCallable's), a Runnable's own, or an engine class's under LangGraph's module path."""
    if runs is None or not hasattr(runs, "invoke"):
        return _CALLABLE
    module = type(runs).__module__
    if module.startswith("engine."):
        public = [part.lstrip("_") for part in module.split(".")[1:]]
        if public[:2] == ["pregel", "pregel"] or public[:2] == ["func", "entrypoint"]:
            public = ["pregel", "main"]
        return ("langgraph", *public, type(runs).__name__)
    serializable = serializable_runnable_class()
    if serializable is not None and isinstance(runs, serializable):
        return tuple(runs.lc_id())
    return (*module.split("."), type(runs).__name__)  # as LangChain names a Runnable it cannot serialise


def _only(graph: DrawableGraph, ids: set[str], exclude: str | None = None) -> Node | None:
    found = [n for n in graph.nodes.values() if n.id != exclude and n.id not in ids]
    return found[0] if len(found) == 1 else None


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


class _Out(NamedTuple):
    """What a task wrote, as the walk sees it: the channel, whether a router or Command chose it, its label."""

    channel: str
    conditional: bool
    label: str | None


def _key(t: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple("" if v is None else v for v in t)


def _writes(topology: Topology, name: str) -> tuple[list[tuple[str, Any]], list[tuple[str, str | None]]]:
    """A node's writes in the walk: what its plain and join edges always write, and what its routers
    and Commands may write (channel or END, label)."""
    always: list[tuple[str, Any]] = [(f"branch:to:{t}", None) for s, t in topology.edges if s == name and t != END]
    always += [(f"join:{'+'.join(srcs)}:{t}", name) for srcs, t in topology.joins if name in srcs and t != END]
    may: list[tuple[str, str | None]] = []
    for br in topology.branches.get(name, ()):
        for label, target in (br.path_map or {}).items():
            may.append((END if target == END else f"branch:to:{target}", str(label)))
    for target, label in topology.commands.get(name, ()):
        may.append((END if target == END else f"branch:to:{target}", label))
    return always, may


def _walk(topology: Topology, nodes: Mapping[str, Any], specs: Mapping[str, Any], index: Mapping[str, Any]) -> tuple[set, dict, set[str]]:
    """LangGraph's drawing walk: the edges found, the last step's writers, the deferred nodes."""
    checkpoint = empty_checkpoint()
    channels = restore_channels(specs, checkpoint)
    start = Task(id="", name="__input__", path=("input",), input=None, triggers=(), node=None)  # type: ignore[arg-type]
    start.writes = [(START, {})]
    apply_writes(checkpoint, channels, [start], triggers_to_nodes=index)
    edges: set[tuple[str, str, bool, str | None]] = set()
    sources: dict[str, set[_Out]] = {}
    step_sources: dict[str, set[_Out]] = {}
    declared: dict[str, set[_Out]] = {}
    ran: set[str] = set()
    tasks = _due(checkpoint, channels, nodes, index)
    for _ in range(-1, _LIMIT):
        if not tasks:
            break
        chosen: dict[tuple[str, str], str | None] = {}
        for t in tasks:
            always, may = _writes(topology, t.name)
            t.writes = list(always)
            if t.name not in ran:  # declared destinations are sent once, the node's first time
                ran.add(t.name)
                for chan, label in may:
                    if chan == END:
                        edges.add((t.name, END, True, label))
                        continue
                    chosen[t.name, chan] = label
                    declared.setdefault(t.name, set()).add(_Out(chan, True, label))
                    t.writes.append((chan, None))
        step_sources = {}
        for t in tasks:
            outs = {_Out(c, (t.name, c) in chosen and v is None, chosen.get((t.name, c)) if v is None else None) for c, v in t.writes}
            step_sources[t.name] = outs | declared.get(t.name, set())
        sources.update(step_sources)
        by_trigger: dict[str, set[_Out]] = {}
        for src, outs in sources.items():
            for chan, cond, label in outs:
                by_trigger.setdefault(chan, set()).add(_Out(src, cond, label))
        apply_writes(checkpoint, channels, tasks, triggers_to_nodes=index)
        tasks = _due(checkpoint, channels, nodes, index)
        for t in tasks:
            added = False
            for trigger in t.triggers:
                for src, cond, label in sorted(by_trigger.get(trigger, ()), key=_key):
                    edges.add((src, t.name, cond, label))
                    if _Out(trigger, cond, label) in step_sources.get(src, set()):
                        added = True
                    else:
                        sources[src].discard(_Out(trigger, cond, label))
            if not added:  # triggered by older writes only (a join, a deferred node): from this step's tasks
                for src in step_sources:
                    edges.add((src, t.name, True, None))
    deferred = {c.split(":", 2)[-1] for c, ch in channels.items() if isinstance(ch, LastValueAfterFinish)}
    return edges, step_sources, deferred


def _due(checkpoint: Any, channels: Mapping[str, Any], nodes: Mapping[str, Any], index: Mapping[str, Any]) -> list[Task]:
    """The walk's next tasks (no input is read: drawing runs no node)."""
    versions, seen_all = checkpoint["channel_versions"], checkpoint["versions_seen"]
    out = []
    for name in sorted({n for c in checkpoint.get("updated_channels") or () for n in index.get(c, ())}):
        seen = seen_all.get(name, {})
        fired = tuple(c for c in nodes[name].triggers if versions.get(c, 0) > seen.get(c, 0) and channels[c].is_available())
        if fired:
            out.append(Task(id="", name=name, path=(PULL, name), input=None, triggers=fired, node=nodes[name]))
    return out


def draw(
    topology: Topology,
    *,
    nodes: Mapping[str, Any],
    channels: Mapping[str, Any],
    index: Mapping[str, Any],
    interrupt_before: Any = (),
    interrupt_after: Any = (),
    subgraphs: Mapping[str, DrawableGraph] | None = None,
    runs: Mapping[str, Any] | None = None,
) -> DrawableGraph:
    """The compiled graph's drawing (see the module's doc); ``subgraphs``: node → its drawing, to expand;
    ``runs``: node → what it runs (a function, a Runnable, a compiled graph), for ``to_json``."""
    found, last_step, deferred = _walk(topology, nodes, channels, index)
    drawn: dict[str, Node] = {START: Node(START, START, lc_id=lc_id(None))}
    for name, meta in topology.nodes.items():
        m = dict(meta)
        if name in deferred:
            m["defer"] = True
        before, after = name in interrupt_before, name in interrupt_after
        if before or after:
            m["__interrupt"] = "before,after" if before and after else "before" if before else "after"
        if tools := topology.tools.get(name):
            m["__tools"] = list(tools)
        run = (runs or {}).get(name)
        # as LangGraph's: a node's data is what it runs (a ToolNode, a Runnable, a graph); functions are left out
        data = None if inspect.isfunction(run) or inspect.ismethod(run) else run
        drawn[name] = Node(name, name, data, m or None, lc_id(run))
    edges: list[Edge] = []

    def add(source: str, target: str, label: str | None = None, conditional: bool = False) -> None:
        if any(e.source == source and e.target == target for e in edges):
            return
        if target == END and END not in drawn:
            drawn[END] = Node(END, END)
        edges.append(Edge(source, target, label, conditional))

    for src, dest, cond, label in sorted(found, key=_key):
        add(src, dest, label if label != dest else None, cond)
    termini = {e[1] for e in found if e[1] != END} - {e[0] for e in found}
    if termini:
        for src in sorted(termini):
            add(src, END)
    elif len(last_step) == 1 and not any(e[1] == END for e in found):
        add(next(iter(last_step)), END, conditional=True)
    graph = DrawableGraph(drawn, edges)
    for name, sub in (subgraphs or {}).items():
        graph = _expand(graph, name, sub)
    return graph


def from_langchain(graph: Any) -> DrawableGraph:
    """LangChain's drawable ``Graph`` (a ``RemoteGraph``'s drawing) as the engine's, to expand it under ``xray``."""
    nodes = {k: Node(n.id, n.name, n.data, n.metadata) for k, n in graph.nodes.items()}
    return DrawableGraph(nodes, [Edge(e.source, e.target, e.data, e.conditional) for e in graph.edges])


def _trimmed(graph: DrawableGraph) -> DrawableGraph:
    """``graph`` without its first node and its last, each removed when it has one edge (as LangGraph trims)."""
    for end in ("source", "target"):
        ids = {getattr(e, "target" if end == "source" else "source") for e in graph.edges}
        edge_node = _only(graph, ids)
        if edge_node is None:
            continue
        rest = {getattr(e, "target" if end == "source" else "source") for e in graph.edges if getattr(e, end) != edge_node.id}
        mine = [e for e in graph.edges if getattr(e, end) == edge_node.id]
        if _only(graph, rest, exclude=edge_node.id) is not None and len(set(mine)) == 1:
            nodes = {k: n for k, n in graph.nodes.items() if k != edge_node.id}
            graph = DrawableGraph(nodes, [e for e in graph.edges if edge_node.id not in (e.source, e.target)])
    return graph


def _expand(graph: DrawableGraph, name: str, sub: DrawableGraph) -> DrawableGraph:
    """``graph`` with node ``name`` replaced by ``sub``'s nodes and edges, ids prefixed ``name:``."""
    if len(sub.nodes) <= 1 or name not in graph.nodes or sub.first_node() is None or sub.last_node() is None:
        return graph
    sub = _trimmed(sub)
    nodes = {k: n for k, n in graph.nodes.items() if k != name}
    nodes.update({f"{name}:{k}": replace(n, id=f"{name}:{k}") for k, n in sub.nodes.items()})
    first, last = sub.first_node(), sub.last_node()
    if first is None or last is None:  # trimmed to nothing to enter or leave by: drawn as one node
        return graph
    first_id, last_id = f"{name}:{first.id}", f"{name}:{last.id}"
    edges = []
    for e in graph.edges:
        if e.source == name:
            e = e._replace(source=last_id)
        if e.target == name:
            e = e._replace(target=first_id)
        edges.append(e)
    edges += [e._replace(source=f"{name}:{e.source}", target=f"{name}:{e.target}") for e in sub.edges]
    return DrawableGraph(nodes, edges)
