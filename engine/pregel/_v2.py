"""``stream(..., version="v2")`` and ``invoke(..., version="v2")``: LangGraph's typed outputs.

A v2 stream yields each chunk as a part, ``{"type": mode, "ns": namespace,
"data": chunk}``, whatever the modes and ``subgraphs`` (the namespace is
``()`` for the graph's own chunks). A "values" part has its interrupts apart
(``"interrupts"``, a tuple, empty but for the chunk of an interrupt) and no
``__interrupt__`` key; with a Pydantic or dataclass state, its data is an
instance of the output schema, and so are the values of "checkpoints" and
"debug" checkpoint payloads (the state schema's; not a version's whose
``next`` is ``__start__``, whose channels may be unset). A v2 ``invoke``
returns a :class:`~engine.types.GraphOutput` (for "values"; the list of parts
otherwise).

The graph's own chunks are coerced only: a subgraph's state is of another
schema. The v3 stream (:mod:`._v3`) is read from a v2 stream, which is also
the only one whose "messages" handler forwards a chat model's protocol events
(``MESSAGES_V2`` in the configurable; a v1 stream made inside such a run
turns it off, so that it keeps the chunks of the v1 shape).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from engine.types import GraphOutput

__all__ = ["MESSAGES_V2", "Parts", "graph_output", "own_config"]

#: the configurable key that makes a run's "messages" handler forward a chat model's protocol events
MESSAGES_V2 = "__pregel_stream_messages_v2"
_INTERRUPT = "__interrupt__"
_START = "__start__"
Mapper = Callable[[dict[str, Any]], Any]


def _mapper(info: Any) -> Mapper | None:
    """``schema(**values)`` for a Pydantic or dataclass schema (None for a dict or a root state)."""
    if info is None or getattr(info, "kind", None) not in ("pydantic", "dataclass"):
        return None
    schema = info.schema
    return lambda values: schema(**values)


def _mappers(graph: Any) -> tuple[Mapper | None, Mapper | None]:
    builder = getattr(graph, "builder", None)
    if builder is None or isinstance(getattr(graph, "output_keys", None), str):
        return None, None
    return _mapper(getattr(builder, "output", None)), _mapper(getattr(builder, "state", None))


def own_config(config: Mapping[str, Any] | None, version: str) -> Mapping[str, Any] | None:
    """``config`` for a stream of ``version``: a v1 stream does not take a v3 run's "messages" protocol events."""
    conf = (config or {}).get("configurable") or {}
    if version == "v2" or not conf.get(MESSAGES_V2):
        return config
    # False, not absent: a graph run inside a node takes its host's configurable under its caller's
    return {**(config or {}), "configurable": {**conf, MESSAGES_V2: False}}


class Parts:
    """Makes a graph's ``(namespace, mode, chunk)`` a v2 part."""

    def __init__(self, graph: Any) -> None:
        self.output, self.state = _mappers(graph)

    def __call__(self, ns: tuple[str, ...], mode: str, payload: Any) -> dict[str, Any]:
        if mode == "values":
            interrupts: tuple[Any, ...] = ()
            if isinstance(payload, dict):
                if _INTERRUPT in payload:
                    interrupts = tuple(payload[_INTERRUPT])
                    payload = {k: v for k, v in payload.items() if k != _INTERRUPT}
                if self.output is not None and not ns:
                    payload = self.output(payload)
            return {"type": mode, "ns": ns, "data": payload, "interrupts": interrupts}
        if mode in ("checkpoints", "debug") and self.state is not None and not ns:
            payload = self._coerce_checkpoint(payload)
        return {"type": mode, "ns": ns, "data": payload}

    def _coerce_checkpoint(self, payload: Any) -> Any:
        assert self.state is not None
        inner = payload.get("payload") if isinstance(payload, dict) and payload.get("type") == "checkpoint" else payload
        if isinstance(inner, dict) and isinstance(inner.get("values"), dict) and _START not in inner.get("next", ()):
            inner["values"] = self.state(inner["values"])
        return payload


def graph_output(graph: Any, values: Any, interrupts: tuple[Any, ...]) -> GraphOutput[Any]:
    """A v2 ``invoke``'s value: the output (an instance of a Pydantic or dataclass output schema) and the interrupts."""
    mapper = _mappers(graph)[0]
    if isinstance(values, dict):
        values = {k: v for k, v in values.items() if k != _INTERRUPT}
        if mapper is not None:
            values = mapper(values)
    return GraphOutput(value=values, interrupts=tuple(interrupts))
