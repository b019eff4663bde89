"""What LangGraph's calls return, projected from a run's events: ``stream``'s chunks, ``invoke``'s value.

``Pregel.aevents`` yields the run's :mod:`engine.events`; a
:class:`~engine.pregel._stream.Projector` per namespace turns them into the
chunks of LangGraph's stream modes. ``print_mode`` (and ``debug=True``,
"updates" and "values") prints chunks to stdout as they come, as LangGraph's.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import TYPE_CHECKING, Any, AsyncGenerator, AsyncIterator, Mapping, Sequence, cast

from engine.errors import GraphInterrupt
from engine.events import Event, RunFinished
from engine._internal._config import merge_configs
from engine.pregel._nested import current_host
from engine.pregel._state_api import subgraph_at
from engine.pregel._stream import Projector, kinds_for, print_chunk
from engine.pregel._v2 import Parts, graph_output, own_config

if TYPE_CHECKING:
    from engine.pregel._graph_face import CompiledGraph

__all__ = ["invoke_value", "stream_chunks"]


def printed_modes(graph: CompiledGraph, print_mode: str | Sequence[str], debug: bool | None) -> list[str]:
    """The modes a call prints: ``print_mode``'s, or with ``debug`` "updates" and "values" (LangGraph's)."""
    if debug or (debug is None and graph.debug):
        return ["updates", "values"]
    return [print_mode] if isinstance(print_mode, str) else list(print_mode)


def node_metadata(graph: CompiledGraph, ns: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """The nodes' own metadata (``add_node(metadata=)``) of the graph running at namespace ``ns``
    (:func:`~engine.pregel._state_api.subgraph_at`); {} where the namespace names no declared subgraph."""
    found = subgraph_at(graph, "|".join(ns))
    return {} if found is None else {name: spec.metadata for name, spec in found.nodes.items() if spec.metadata}


async def stream_chunks(
    graph: CompiledGraph,
    input: Any,
    config: Mapping[str, Any] | None,
    *,
    stream_mode: str | Sequence[str] | None,
    print_mode: str | Sequence[str],
    debug: bool | None,
    subgraphs: bool,
    inline_sync: bool,
    run_options: dict[str, Any],
) -> AsyncIterator[Any]:
    """LangGraph's ``stream``: each chunk as ``payload``, ``(mode, payload)`` for several modes, with its namespace
    first under ``subgraphs``; with ``version="v2"``, as a part dict (:mod:`._v2`)."""
    version = run_options.pop("version", "v1")
    if version not in ("v1", "v2"):
        run_options["version"] = version  # refused by the run's options
    config = own_config(config, version)
    merged = merge_configs(graph.config, config)  # what the chunks show; the run folds the graph's in itself
    parts = Parts(graph) if version == "v2" else None  # LangGraph's typed parts (:mod:`._v2`)
    stream_mode = graph.stream_mode if stream_mode is None else stream_mode
    streamed = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)
    printed = printed_modes(graph, print_mode, debug)
    modes = [*streamed, *(m for m in printed if m not in streamed)]
    single = isinstance(stream_mode, str)
    # the run's events are an async generator (its loop's), closed here when the caller stops early
    events = cast(AsyncGenerator[Event, None], graph.aevents(input, config, kinds=kinds_for(modes), subgraphs=subgraphs, _inline_sync=inline_sync, **run_options))
    checkpointer = _keeps_state(graph)
    root = isinstance(graph.output_keys, str)
    own = node_metadata(graph, ())
    projectors: dict[tuple[str, ...], Projector] = {(): Projector(modes, merged, checkpointer=checkpointer, root=root, node_metadata=own)}
    # A caller that breaks out of its loop closes the run there, which stores what it did
    # (with durability="exit", its newest version), as LangGraph's does on leaving its loop.
    async with aclosing(events):
        async for ev in events:
            projector = projectors.get(ev.ns)
            if projector is None:  # a subgraph's first event (asked for with subgraphs=True only)
                own = node_metadata(graph, ev.ns)
                projector = projectors[ev.ns] = Projector(modes, merged, checkpointer=checkpointer, node_metadata=own)
            for mode, payload in projector.project(ev):
                if mode in printed:
                    print_chunk(mode, payload, ev.ns if subgraphs else ())
                    if mode not in streamed:
                        continue
                if parts is not None:
                    yield parts(ev.ns, mode, payload)
                elif subgraphs:  # as LangGraph: each chunk under its namespace
                    yield (ev.ns, payload) if single else (ev.ns, mode, payload)
                else:
                    yield payload if single else (mode, payload)
            if isinstance(ev, RunFinished) and ev.exception is not None:
                raise ev.exception


async def invoke_value(graph: CompiledGraph, input: Any, config: Mapping[str, Any] | None, inline: bool, kwargs: dict[str, Any]) -> Any:
    """LangGraph's ``invoke``: the run's last values (with ``__interrupt__`` at an interrupt); for a
    ``stream_mode`` other than "values", the list of its chunks."""
    if kwargs.get("version") == "v2" and kwargs.get("stream_mode", "values") == "values":
        del kwargs["version"]
        value = await invoke_value(graph, input, config, inline, kwargs)
        return graph_output(graph, value, tuple(value.get("__interrupt__", ())) if isinstance(value, dict) else ())
    stream_mode = kwargs.pop("stream_mode", "values")
    keys = kwargs.get("output_keys")
    if keys is None and graph.output_keys != graph.spec.stream_keys:
        # As LangGraph's invoke: what it streams (its values and updates chunks, a subgraph node's under its
        # parent's stream, what it prints) is its output schema's keys, where stream() shows every key.
        kwargs["output_keys"] = keys = graph.output_keys
    if stream_mode != "values":  # as LangGraph: then the list of chunks
        return [chunk async for chunk in graph.astream(input, config, stream_mode=stream_mode, _inline_sync=inline, **kwargs)]
    kwargs.pop("subgraphs", None)  # LangGraph's invoke returns the same with or without
    root = isinstance(graph.output_keys if keys is None else keys, str)
    printed = printed_modes(graph, kwargs.pop("print_mode", ()), kwargs.pop("debug", None))
    # As LangGraph's invoke(debug=True): the printed modes' chunks are printed as they come.
    projector = Projector(
        printed, merge_configs(graph.config, config), checkpointer=_keeps_state(graph), root=root,
        node_metadata=node_metadata(graph, ()),
    ) if printed else None
    final: RunFinished | None = None
    async for ev in graph.aevents(input, config, kinds=kinds_for(printed) if printed else frozenset(), _inline_sync=inline, **kwargs):
        if projector is not None and not ev.ns:
            for mode, payload in projector.project(ev):
                print_chunk(mode, payload, ())
        final = ev  # type: ignore[assignment]
    assert final is not None
    if final.exception is not None:
        raise final.exception
    if final.reason == "INTERRUPT" and current_host(config) is not None:
        raise GraphInterrupt(final.interrupts)  # a subgraph's (a breakpoint's: none): its parent's task stops with them
    if root:  # an entrypoint, a low-level graph's one output channel: its value itself
        if not final.interrupts:
            return final.values
        # As LangGraph: at an interrupt, the value it returned last (if a dict) and the questions.
        last = final.values if isinstance(final.values, dict) else {}
        return {**last, "__interrupt__": list(final.interrupts)}
    if not final.shown:  # as LangGraph's: no values chunk in the run (nothing written to the output keys)
        return {"__interrupt__": list(final.interrupts)} if final.interrupts else None
    out: dict[str, Any] = dict(final.values or {})
    if final.interrupts:
        out["__interrupt__"] = list(final.interrupts)
    return out


def _keeps_state(graph: CompiledGraph) -> bool:
    """Whether a run of ``graph`` saves versions (the checkpoints stream has chunks): not without a saver,
    nor with ``checkpointer=False``."""
    return graph.checkpointer is not None and graph.checkpointer is not False
