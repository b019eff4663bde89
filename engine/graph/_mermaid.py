"""A drawn graph as Mermaid flowchart text, in the form LangGraph 1.2's ``draw_mermaid()`` writes.

That is langchain_core's writer with its defaults (linear curves, styles on,
edge labels wrapped every 9 words): the pseudo-nodes' names in ``<p>``, the
one node no edge enters marked ``first`` and the one no edge leaves marked
``last``, a node's metadata under its name, ids made Mermaid-safe (every
character but ``[A-Za-z0-9_-]`` as a backslash and its hex code point), and
the nodes of a subgraph drawn with ``xray`` (ids ``parent:child``) grouped in
a ``subgraph parent`` block with the edges between them.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from typing import Any, Protocol


# What this module reads of a drawing (engine.graph._draw's DrawableGraph, Node and Edge, which
# import this module): described here, so the two stay apart.
class Node(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def metadata(self) -> dict[str, Any] | None: ...


class Edge(Protocol):
    @property
    def source(self) -> str: ...
    @property
    def target(self) -> str: ...
    @property
    def conditional(self) -> bool: ...
    @property
    def data(self) -> str | None: ...


class DrawableGraph(Protocol):
    @property
    def nodes(self) -> Mapping[str, Node]: ...
    @property
    def edges(self) -> Iterable[Edge]: ...
    def first_node(self) -> Node | None: ...
    def last_node(self) -> Node | None: ...

__all__ = ["mermaid"]

_SAFE = frozenset(string.ascii_letters + string.digits + "_-")
_MARKDOWN = tuple("*_`")
_ESCAPES = {"[": "#91;", "]": "#93;", "(": "#40;", ")": "#41;", "{": "#123;", "}": "#125;", '"': "#quot;", "<": "#60;", ">": "#62;", "|": "#124;"}
_STYLES = (
    "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
    "\tclassDef first fill-opacity:0\n"
    "\tclassDef last fill:#bfb6fc\n"
)


def _safe_id(label: str) -> str:
    return "".join(ch if ch in _SAFE else "\\" + format(ord(ch), "x") for ch in label)


def _escape(text: str) -> str:
    text = text.replace("#", "#35;")
    for char, entity in _ESCAPES.items():
        text = text.replace(char, entity)
    return text


def _meta_value(value: Any) -> str | None:
    scalar = (str, int, float, bool)
    if isinstance(value, scalar):
        return str(value)
    if isinstance(value, (list, tuple, set)) and all(isinstance(v, scalar) for v in value):
        items = [str(v) for v in value]
        return ", ".join(sorted(items) if isinstance(value, set) else items)
    return None


def _edge_line(e: Edge, wrap: int) -> str:
    if e.data is not None:
        words = str(e.data).split()
        text = "&nbsp<br>&nbsp".join(" ".join(words[i : i + wrap]) for i in range(0, len(words), wrap)) if len(words) > wrap else e.data
        arrow = f" -. &nbsp;{text}&nbsp; .-> " if e.conditional else f" -- &nbsp;{text}&nbsp; --> "
    else:
        arrow = " -.-> " if e.conditional else " --> "
    return f"\t{_safe_id(e.source)}{arrow}{_safe_id(e.target)};\n"


def mermaid(graph: DrawableGraph, *, with_styles: bool = True, wrap_label_n_words: int = 9) -> str:
    """``graph`` as Mermaid text (see the module's doc). ``with_styles=False``: as LangGraph's, no
    front matter, no node lines and no class definitions, only the edges (and subgraph blocks)."""
    first, last = graph.first_node(), graph.last_node()
    formats = {"": "{0}({1})"}
    if first is not None:
        formats[first.id] = "{0}([{1}]):::first"
    if last is not None:
        formats[last.id] = "{0}([{1}]):::last"

    def node_line(key: str, node: Node) -> str:
        name = node.name.split(":")[-1]
        label = f"<p>{name}</p>" if name.startswith(_MARKDOWN) and name.endswith(_MARKDOWN) else name
        lines = [_escape(f"{k} = {shown}") for k, v in (node.metadata or {}).items() if (shown := _meta_value(v)) is not None]
        if lines:
            label = f"{label}<hr/><small><em>" + "\n".join(lines) + "</em></small>"
        return "\t" + formats.get(key, formats[""]).format(_safe_id(key), label) + "\n"

    grouped: dict[str, dict[str, Node]] = {}
    out = ["---\nconfig:\n  flowchart:\n    curve: linear\n---\ngraph TD;\n" if with_styles else "graph TD;\n"]
    for key, node in graph.nodes.items():
        if ":" in key:
            grouped.setdefault(key.rsplit(":", 1)[0], {})[key] = node
        elif with_styles:
            out.append(node_line(key, node))
    by_prefix: dict[str, list[Edge]] = {}
    for e in graph.edges:
        common = ":".join(s for s, t in zip(e.source.split(":"), e.target.split(":")) if s == t)
        by_prefix.setdefault(common, []).append(e)
    seen: set[str] = set()

    def block(edges: list[Edge], prefix: str) -> None:
        self_loop = len(edges) == 1 and edges[0].source == edges[0].target
        if prefix and not self_loop:
            name = prefix.rsplit(":", 1)[-1]
            if name in seen:
                raise ValueError(
                    f"Found duplicate subgraph '{name}' -- this likely means that you're reusing a subgraph node "
                    "with the same name. Please adjust your graph to have subgraph nodes with unique names."
                )
            seen.add(name)
            out.append(f"\tsubgraph {name}\n")
            if with_styles:
                out.extend(node_line(k, n) for k, n in grouped.get(prefix, {}).items())
        out.extend(_edge_line(e, wrap_label_n_words) for e in edges)
        for nested, inner in by_prefix.items():
            if nested.startswith(prefix + ":") and nested != prefix and ":" not in nested[len(prefix) + 1 :]:
                block(inner, nested)
        if prefix and not self_loop:
            out.append("\tend\n")

    block(by_prefix.get("", []), "")
    for prefix, edges in by_prefix.items():
        if prefix and ":" not in prefix:
            block(edges, prefix)
            seen.add(prefix)
    for prefix, nodes in grouped.items():  # subgraphs with no edge inside
        if with_styles and ":" not in prefix and prefix not in seen:
            out += [f"\tsubgraph {prefix}\n", *(node_line(k, n) for k, n in nodes.items()), "\tend\n"]
            seen.add(prefix)
    if with_styles:
        out.append(_STYLES)
    return "".join(out)
