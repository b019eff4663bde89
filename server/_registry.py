"""The graphs a server runs, loaded from ``"package.module:attribute"`` specs.

An attribute may be a ``StateGraph`` builder (compiled here with the server's
checkpointer), an already compiled graph (given the server's checkpointer),
or a zero-argument function returning either.

Spec modules are imported with the current directory on the import path,
after everything installed (so a file there never shadows an installed
module), as ``python -m`` would find them. That is how the demo,
``examples.reminders``, loads: ``examples/`` is not installed (no wheel
carries it), so ``graphwire serve`` serves it from a checkout's root, whether
the server was installed from a wheel or editable.
"""

from __future__ import annotations

import copy
import importlib
import os
import re
import sys
from dataclasses import dataclass
from typing import Any, Mapping

from engine.graph import StateGraph
from engine.pregel import Pregel

__all__ = ["GraphEntry", "load_graphs", "GRAPH_NAME"]

GRAPH_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


@dataclass(slots=True)
class GraphEntry:
    name: str
    spec: str
    graph: Pregel
    description: str


def _resolve(spec: str) -> Any:
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"graph spec {spec!r} must look like 'package.module:attribute'")
    here = os.getcwd()
    if here not in sys.path:
        sys.path.append(here)
    try:
        obj: Any = importlib.import_module(module)
    except ImportError as e:
        hint = ""
        if module.partition(".")[0] == "examples":
            hint = " (the examples are not installed: run graphwire serve from the repository's root)"
        raise ValueError(f"graph spec {spec!r}: cannot import {module!r}: {e}{hint}") from e
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"graph spec {spec!r}: {module!r} has no attribute {attr!r}") from None
    return obj


def load_graphs(specs: Mapping[str, str], checkpointer: Any) -> dict[str, GraphEntry]:
    out: dict[str, GraphEntry] = {}
    for name, spec in specs.items():
        if not GRAPH_NAME.match(name):
            raise ValueError(f"graph name {name!r}: use letters, digits, '_', '.', '-' (at most 128)")
        obj = _resolve(spec)
        if callable(obj) and not isinstance(obj, (StateGraph, Pregel)):
            obj = obj()
        if isinstance(obj, StateGraph):
            graph = obj.compile(checkpointer=checkpointer, name=name)
        elif isinstance(obj, Pregel):
            graph = copy.copy(obj)
            graph.checkpointer = checkpointer
            graph.name = name
        else:
            raise ValueError(f"graph spec {spec!r} is a {type(obj).__name__}, not a StateGraph or compiled graph")
        doc = (getattr(obj, "__doc__", None) or "") if not isinstance(obj, (StateGraph, Pregel)) else ""
        module_doc = (importlib.import_module(spec.partition(":")[0]).__doc__ or "").strip()
        out[name] = GraphEntry(name, spec, graph, (doc or module_doc).split("\n\n")[0].strip())
    return out
