"""The graphs a server runs, loaded from their specs (see :mod:`server._specs`).

A spec names a ``StateGraph`` builder (compiled here with the server's
checkpointer), an already compiled graph (given the server's checkpointer),
or a zero-argument function returning either.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any, Mapping

from engine.graph import StateGraph
from engine.pregel import Pregel
from server._specs import resolve_spec, spec_module

__all__ = ["GraphEntry", "load_graphs", "GRAPH_NAME"]

GRAPH_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


@dataclass(slots=True)
class GraphEntry:
    name: str
    spec: str
    graph: Pregel
    description: str


def load_graphs(specs: Mapping[str, str], checkpointer: Any, *, base_dir: str | None = None) -> dict[str, GraphEntry]:
    """Import and compile each graph; ``base_dir`` (the config file's directory) anchors the specs."""
    out: dict[str, GraphEntry] = {}
    for name, spec in specs.items():
        if not GRAPH_NAME.match(name):
            raise ValueError(f"graph name {name!r}: use letters, digits, '_', '.', '-' (at most 128)")
        obj = resolve_spec(spec, name=name, base_dir=base_dir)
        if callable(obj) and not isinstance(obj, (StateGraph, Pregel)):
            obj = obj()
        if isinstance(obj, StateGraph):
            graph = obj.compile(checkpointer=checkpointer, name=name)
        elif isinstance(obj, Pregel):
            graph = copy.copy(obj)
            graph.checkpointer = checkpointer
            graph.name = name
        else:
            raise ValueError(
                f"graph {name!r}: spec {spec!r} names a {type(obj).__name__}, not a StateGraph builder, a "
                "compiled graph, or a function returning one"
            )
        doc = (getattr(obj, "__doc__", None) or "") if not isinstance(obj, (StateGraph, Pregel)) else ""
        module_doc = (spec_module(spec, name=name, base_dir=base_dir).__doc__ or "").strip()
        out[name] = GraphEntry(name, spec, graph, (doc or module_doc).split("\n\n")[0].strip())
    return out
