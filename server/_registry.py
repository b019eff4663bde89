"""The graphs a server runs, loaded from their specs (see :mod:`server._specs`).

A spec names a ``StateGraph`` builder (compiled here with the server's
checkpointer), an already compiled graph (given the server's checkpointer),
or a zero-argument function returning either.
"""

from __future__ import annotations

import copy
import inspect
import re
from dataclasses import dataclass
from typing import Any, Mapping

from engine.errors import GraphDefinitionError
from engine.graph import StateGraph
from engine.pregel import Pregel
from server._specs import SpecError, raised_at, resolve_spec, spec_module

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
            _check_no_arguments(obj, name, spec)
            try:
                obj = obj()
            except Exception as e:  # the author's code: say which graph and where, not a traceback
                call = f"{getattr(obj, '__name__', spec.partition(':')[2])}()"
                raise SpecError(f"graph {name!r}: {call} (spec {spec!r}) raised {type(e).__name__}: {e}{raised_at(e)}") from e
        if isinstance(obj, StateGraph):
            try:
                graph = obj.compile(checkpointer=checkpointer, name=name)
            except (GraphDefinitionError, NotImplementedError) as e:
                raise SpecError(f"graph {name!r} (spec {spec!r}) does not compile: {e}") from e
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


def _check_no_arguments(factory: Any, name: str, spec: str) -> None:
    """A spec naming a function: graphwire calls it with no arguments, so it must take none."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a builtin or C callable: calling it will tell
        return
    required = [
        p.name for p in signature.parameters.values()
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]  # fmt: skip
    if required:
        raise SpecError(
            f"graph {name!r}: spec {spec!r} names a function that needs {', '.join(required)}; graphwire calls it "
            "with no arguments: give them defaults, or name the graph (the builder or the compiled graph) instead"
        )
