"""A served graph's JSON schemas, as LangGraph's server lists them (``GET /assistants/{id}/schemas``).

Each is the graph's own where LangGraph's server takes the graph's own
(``get_input_jsonschema``, ``get_output_jsonschema``,
``get_context_jsonschema``); two are the server's making, made here as it
makes them (observed in langgraph-api 0.16.7 and read in its source):

* ``state_schema``: a model of the graph's output channels, each optional
  (``None`` by default), typed by what its channel takes (``Any`` where
  pydantic cannot describe that), titled ``<graph>_state`` (the graph's
  name: the registry gives one left with LangGraph's default its served name);
* ``config_schema``: the schema of the graph's ``configurable`` (its old
  ``config_schema``'s: its ``context_schema`` where it has one), without the
  thread's and checkpoint's keys, or ``{}`` for a graph without one.

A graph LangGraph runs (``runtime = "langgraph"``) is asked through
LangGraph's own compiled graph. A schema that cannot be made is ``None``.
"""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import TypeAdapter, create_model

from engine.pregel import Pregel
from server._langgraph_runtime import own_graph

__all__ = ["graph_schemas"]

#: configurable keys the server's config schema leaves out (the thread's, the checkpoint's, its own)
_NOT_CONFIGURED = ("__pregel_checkpointer", "__pregel_store", "checkpoint_id", "checkpoint_ns", "thread_id")


def graph_schemas(name: str | None, graph: Any) -> dict[str, Any]:
    """``graph``'s schemas (served as ``name``; None: a subgraph, listed without a ``graph_id`` and named by its
    own name, LangGraph's default one included) as LangGraph's server lists them (see the module)."""
    graph = own_graph(graph)

    def made(make: Any) -> Any:
        with warnings.catch_warnings():  # config_schema and get_config_jsonschema are deprecated by LangGraph, and say so
            warnings.simplefilter("ignore")
            try:
                return make()
            except Exception:  # a schema JSON Schema cannot express: none
                return None

    def own(method: str) -> Any:
        found = getattr(graph, method, None)
        return None if found is None else made(found)

    schemas = {
        "input_schema": own("get_input_jsonschema"), "output_schema": own("get_output_jsonschema"),
        "state_schema": made(lambda: _state_schema(graph)), "config_schema": made(lambda: _config_schema(graph)),
        "context_schema": own("get_context_jsonschema"),
    }  # fmt: skip
    return schemas if name is None else {"graph_id": name, **schemas}


def _state_schema(graph: Any) -> dict[str, Any]:
    keys = graph.spec.stream_keys if isinstance(graph, Pregel) else graph.stream_channels_list
    fields: dict[str, Any] = {}
    for key in [keys] if isinstance(keys, str) else keys:
        kind = graph.channels[key].UpdateType
        try:
            TypeAdapter(kind).json_schema()
        except Exception:  # pydantic cannot describe it (a typing.TypedDict on Python < 3.12...)
            kind = Any
        fields[key] = (kind, None)
    return create_model(_named(graph.name, "State"), **fields).model_json_schema()  # type: ignore[call-overload, no-any-return]


def _config_schema(graph: Any) -> dict[str, Any]:
    model = graph.config_schema()
    field = (getattr(model, "model_fields", None) or {}).get("configurable")
    if field is None:
        return {}
    schema: dict[str, Any] = TypeAdapter(field.annotation).json_schema()
    for key in _NOT_CONFIGURED:
        schema.get("properties", {}).pop(key, None)
    config_type = getattr(graph, "config_type", None)
    if getattr(config_type, "__name__", None):
        schema["title"] = config_type.__name__  # type: ignore[union-attr]
    return schema


def _named(name: str, suffix: str) -> str:
    """``name`` with ``suffix``, as LangChain's ``Runnable.get_name`` joins them: ``ChatState``, ``chat_state``."""
    return name + suffix.title() if name[:1].isupper() else f"{name}_{suffix.lower()}"
