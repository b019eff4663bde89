"""The graphs a server runs, loaded from their specs (see :mod:`server._specs`).

A spec names a ``StateGraph`` builder (compiled here with the server's
checkpointer), an already compiled graph (given the server's checkpointer),
or a function returning either, as langgraph.json's graph factories are: it
takes no arguments or a config, and may be async. A factory is called once,
at start: LangGraph's server calls it per run with the run's config, which
graphwire does not (the graph served is one graph).

A graph runs on graphwire's engine, or on LangGraph itself (``runtimes``: a
graph named ``"langgraph"`` there, or one a module built with LangGraph's own
classes while the import swap is off): then its builder is compiled by
LangGraph, with the server's saver, and served through
:class:`server._langgraph_runtime.LangGraphGraph`, the seam the engine's graphs
are driven by.
"""

from __future__ import annotations

import copy
import inspect
import logging
import re
from dataclasses import dataclass
from typing import Any, Mapping

from engine.checkpoint.base import BaseCheckpointSaver
from engine import swap
from engine.errors import GraphDefinitionError
from engine.graph import StateGraph
from engine.pregel import Pregel
from server._langgraph_runtime import LangGraphGraph, built_with_langgraph, load_langgraph, own_graph
from server._specs import SpecError, raised_at, resolve_spec, spec_module

__all__ = ["GraphEntry", "load_graphs", "GRAPH_NAME"]

log = logging.getLogger("graphwire.server")
GRAPH_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
#: The name LangGraph gives a graph compiled without one: the server names such a graph by the name it serves it under
DEFAULT_GRAPH_NAME = "LangGraph"


@dataclass(slots=True)
class GraphEntry:
    name: str
    spec: str
    #: the engine's compiled graph, or LangGraph's behind the same seam (:class:`LangGraphGraph`)
    graph: Pregel
    description: str
    runtime: str = "engine"

    @property
    def own_name(self) -> str:
        """The graph's own name (``compile(name=...)``), or the served name for one left unnamed:
        its runs' and schemas' name, and its default assistant's, as LangGraph's server names them."""
        return str(own_graph(self.graph).name)


async def load_graphs(
    specs: Mapping[str, str],
    checkpointer: BaseCheckpointSaver | None,
    *,
    base_dir: str | None = None,
    descriptions: Mapping[str, str] | None = None,
    runtimes: Mapping[str, str] | None = None,
) -> dict[str, GraphEntry]:
    """Import and compile each graph; ``base_dir`` (the config file's directory) anchors the specs.

    ``descriptions``: a graph's description as its configuration gives it
    (langgraph.json's dict form), instead of its docstring. ``runtimes``: the
    graphs LangGraph itself runs (``"langgraph"``); the others run on the engine.
    """
    out: dict[str, GraphEntry] = {}
    for name, spec in specs.items():
        if not GRAPH_NAME.match(name):
            raise ValueError(f"graph name {name!r}: use letters, digits, '_', '.', '-' (at most 128)")
        obj = resolve_spec(spec, name=name, base_dir=base_dir)
        made, what = obj, f"spec {spec!r} names"
        if callable(obj) and not isinstance(obj, (StateGraph, Pregel)) and not built_with_langgraph(obj):
            made, what = await _call_factory(obj, name, spec)
        on_langgraph = (runtimes or {}).get(name) == "langgraph" or (built_with_langgraph(made) and not swap.installed())
        graph = _on_langgraph(made, checkpointer, name, spec, what) if on_langgraph else _compiled(made, checkpointer, name, spec, what)
        doc = (getattr(obj, "__doc__", None) or "") if not isinstance(obj, (StateGraph, Pregel)) and not built_with_langgraph(obj) else ""
        module_doc = (spec_module(spec, name=name, base_dir=base_dir).__doc__ or "").strip()
        description = (descriptions or {}).get(name) or (doc or module_doc).split("\n\n")[0].strip()
        out[name] = GraphEntry(name, spec, graph, description, "langgraph" if on_langgraph else "engine")
        if on_langgraph:
            log.info("graph %r runs on LangGraph itself (%s)", name, "runtimes" if (runtimes or {}).get(name) else "built with its classes, the import swap off")
    return out


#: What a factory taking a config gets: the run's config is not known at start (see docs/configuration.md, "A LangGraph project").
FACTORY_CONFIG: dict[str, Any] = {"configurable": {}}


async def _call_factory(factory: Any, name: str, spec: str) -> tuple[Any, str]:
    """What a function a spec names returns (called with no arguments or a config, awaited if async),
    and how to name it in a message."""
    wants_config = _check_arguments(factory, name, spec)
    call = f"{getattr(factory, '__name__', spec.partition(':')[2])}({'config' if wants_config else ''})"
    if wants_config:  # said, because a factory that reads the run's config gets none here
        log.info("graph %r: %s is called once, at start, with config %s (LangGraph's server calls it per run)", name, call, FACTORY_CONFIG)
    try:
        made = factory(dict(FACTORY_CONFIG)) if wants_config else factory()
        if inspect.isawaitable(made):
            made = await made
    except Exception as e:  # the author's code: say which graph and where, not a traceback
        raise SpecError(f"graph {name!r}: {call} (spec {spec!r}) raised {type(e).__name__}: {e}{raised_at(e)}") from e
    if hasattr(made, "__enter__") or hasattr(made, "__aenter__"):
        raise SpecError(
            f"graph {name!r}: {call} (spec {spec!r}) returned a context manager; graphwire does not enter one: "
            "return the graph (or its builder) itself"
        )
    return made, f"{call} (spec {spec!r}) returned"


def _compiled(obj: Any, checkpointer: Any, name: str, spec: str, what: str) -> Pregel:
    """The graph to serve: a builder compiled with the server's checkpointer, or a compiled graph given it.

    ``what``: how a message names where ``obj`` came from (``spec '...' names``, ``make() ... returned``).
    """
    if isinstance(obj, StateGraph):
        try:
            return obj.compile(checkpointer=checkpointer, name=name)
        except (GraphDefinitionError, NotImplementedError) as e:
            raise SpecError(f"graph {name!r} (spec {spec!r}) does not compile: {e}") from e
    if isinstance(obj, Pregel):
        graph = copy.copy(obj)
        graph.checkpointer = checkpointer
        if graph.name == DEFAULT_GRAPH_NAME:  # a graph its author named keeps its name (its runs, schemas, assistant)
            graph.name = name
        return graph
    if built_with_langgraph(obj):
        kind = f"{type(obj).__module__}.{type(obj).__qualname__}"
        raise SpecError(
            f"graph {name!r}: {what} a graph built with LangGraph itself ({kind}) while the import swap is on; "
            f'serve it on LangGraph ([runtimes] {name} = "langgraph"), or with graphwire\'s engine by letting the swap '
            "give its module the engine (LangGraph imported before the server started keeps it from doing so)"
        )
    raise SpecError(
        f"graph {name!r}: {what} a {type(obj).__name__}, not a StateGraph builder, a compiled graph, "
        "or a function returning one"
    )


def _on_langgraph(obj: Any, checkpointer: Any, name: str, spec: str, what: str) -> Pregel:
    """A graph LangGraph itself runs: its builder compiled by LangGraph (a compiled graph copied), with the
    server's saver, behind the server's seam."""
    if not built_with_langgraph(obj):
        raise SpecError(
            f"graph {name!r} runs on LangGraph itself (runtimes), but {what} a {type(obj).__module__}.{type(obj).__qualname__}: "
            "build it with LangGraph's classes (with the import swap off, `langgraph` imports get LangGraph itself)"
        )
    try:
        load_langgraph(checkpointer)  # the saver one of LangGraph's checkpointers (said at start when named)
    except ValueError as e:
        raise SpecError(f"graph {name!r}: {e}") from None
    try:
        if hasattr(obj, "compile") and not hasattr(obj, "astream"):
            compiled = obj.compile(checkpointer=checkpointer, name=name)
        else:
            compiled = copy.copy(obj)
            compiled.checkpointer = checkpointer
            if compiled.name == DEFAULT_GRAPH_NAME:
                compiled.name = name
    except Exception as e:  # LangGraph's own refusal of the graph: the author's to fix
        raise SpecError(f"graph {name!r} (spec {spec!r}) does not compile on LangGraph: {type(e).__name__}: {e}") from e
    served: Any = LangGraphGraph(compiled, name)
    return served  # typed as the engine's graph: the server drives both through the same calls


def _check_arguments(factory: Any, name: str, spec: str) -> bool:
    """Whether a function a spec names takes a config (LangGraph's graph factories do) or nothing.

    One required parameter gets the config; none, no arguments; more cannot be called.
    """
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a builtin or C callable: calling it will tell
        return False
    required = [
        p.name for p in signature.parameters.values()
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]  # fmt: skip
    if len(required) > 1 or (required and signature.parameters[required[0]].kind is inspect.Parameter.KEYWORD_ONLY):
        raise SpecError(
            f"graph {name!r}: spec {spec!r} names a function that needs {', '.join(required)}; graphwire calls it "
            "with a config (one parameter) or with no arguments: give the others defaults, or name the graph "
            "(the builder or the compiled graph) instead"
        )
    return bool(required)
