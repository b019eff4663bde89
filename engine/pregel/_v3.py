"""``stream_events(version="v3")`` / ``astream_events(version="v3")``: a run as an :mod:`engine.stream` run stream.

The run is the graph's own ``stream(..., version="v2")`` (:mod:`._v2`), with
``subgraphs=True`` and the stream modes the run's transformers ask for (their
``required_stream_modes``); its "messages" handler forwards a chat model's
protocol events (``MESSAGES_V2`` in the run's configurable). The transformers: the four built-ins, then the graph's
(``compile(transformers=)``), then the call's; each given as a callable of
the scope, so that subgraphs get their own. The scope is the namespace the
call runs in: ``()`` at the top, a node's own namespace for a graph streamed
inside a node, so that its projections still show its own level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

from engine._internal._config import merge_configs
from engine.pregel._v2 import MESSAGES_V2

if TYPE_CHECKING:
    from engine.stream._mux import StreamMux
    from engine.stream.run_stream import AsyncGraphRunStream, GraphRunStream

__all__ = ["astream_events_v3", "stream_events_v3"]

_OWNED = ("stream_mode", "subgraphs")
_INTERRUPT = "__interrupt__"
Factory = Callable[["tuple[str, ...]"], Any]


def _refuse_owned(kwargs: Mapping[str, Any]) -> None:
    if owned := [k for k in _OWNED if k in kwargs]:
        raise TypeError(
            f"stream_events(version='v3') / astream_events(version='v3') do not accept {', '.join(owned)}; "
            "v3 owns these (stream_mode is built from the transformer mux, subgraphs is forced True so nested "
            "namespaces flow through scoped muxes)."
        )


def _normalize_stream_transformer_factories(specs: Iterable[Any] | None) -> list[Factory]:
    """Each transformer spec as a factory of a scope; a transformer already made is refused (it cannot serve a subgraph)."""
    from engine.stream._types import StreamTransformer

    factories: list[Factory] = []
    for spec in specs or ():
        if isinstance(spec, StreamTransformer):
            raise TypeError(
                "stream_events(version='v3') transformers must be scope-aware callables, got pre-built instance "
                f"{type(spec).__name__}. Pass the transformer class or a factory like "
                "`lambda scope: MyTransformer(scope, ...)`."
            )
        if not callable(spec):
            raise TypeError(f"stream_events(version='v3') transformers must be scope-aware callables, got {type(spec).__name__}.")
        factories.append(spec)
    return factories


def _scope(graph: Any, config: Mapping[str, Any] | None) -> tuple[str, ...]:
    merged = merge_configs(getattr(graph, "config", None), config)
    ns = (merged.get("configurable") or {}).get("checkpoint_ns") if merged else None
    return tuple(ns.split("|")) if ns else ()


def _mux(graph: Any, config: Mapping[str, Any] | None, transformers: Sequence[Any] | None, *, is_async: bool) -> StreamMux:
    from engine.stream._mux import StreamMux
    from engine.stream.transformers import LifecycleTransformer, MessagesTransformer, SubgraphTransformer, ValuesTransformer

    factories: list[Factory] = [
        ValuesTransformer, MessagesTransformer, LifecycleTransformer, SubgraphTransformer,
        *_normalize_stream_transformer_factories(getattr(graph, "stream_transformers", ())),
        *_normalize_stream_transformer_factories(transformers),
    ]  # fmt: skip
    return StreamMux(factories=factories, scope=_scope(graph, config), is_async=is_async)


def _modes(mux: StreamMux) -> list[str]:
    """The stream modes the run's transformers need, in a stable order."""
    modes: dict[str, None] = {}
    for t in mux._transformers:
        modes.update(dict.fromkeys(getattr(t, "required_stream_modes", ())))
    return list(modes)


def _options(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with LangGraph's v3 defaults for the options it always passes on (None: the graph's own)."""
    _refuse_owned(kwargs)
    return {"interrupt_before": None, "interrupt_after": None, "control": None, **kwargs}


def _flagged(config: Mapping[str, Any] | None) -> dict[str, Any]:
    config = dict(config or {})
    config["configurable"] = {**(config.get("configurable") or {}), MESSAGES_V2: True}
    return config


def stream_events_v3(graph: Any, input: Any, config: Mapping[str, Any] | None, transformers: Sequence[Any] | None, kwargs: dict[str, Any]) -> GraphRunStream:
    """The sync v3 run stream of ``graph`` (``kwargs``: the graph's ``stream`` options, but the modes and subgraphs)."""
    from engine.stream.run_stream import GraphRunStream

    kwargs = _options(kwargs)
    mux = _mux(graph, config, transformers, is_async=False)
    parts = graph.stream(input, _flagged(config), stream_mode=_modes(mux), subgraphs=True, version="v2", **kwargs)
    return GraphRunStream(iter(parts), mux)


async def astream_events_v3(graph: Any, input: Any, config: Mapping[str, Any] | None, transformers: Sequence[Any] | None, kwargs: dict[str, Any]) -> AsyncGraphRunStream:
    """The async v3 run stream of ``graph`` (awaited, as LangGraph's)."""
    from engine.stream.run_stream import AsyncGraphRunStream

    kwargs = _options(kwargs)
    mux = _mux(graph, config, transformers, is_async=True)
    parts = graph.astream(input, _flagged(config), stream_mode=_modes(mux), subgraphs=True, version="v2", **kwargs)
    return AsyncGraphRunStream(parts.__aiter__(), mux)
