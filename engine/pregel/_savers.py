"""Which saver a root run or a state read uses, and the classes it is allowed to store.

A compiled graph's own (``compile(checkpointer=)``, or one a host sets on it later) unless the
call's config passes one (``configurable["__pregel_checkpointer"]``, LangGraph's
``CONFIG_KEY_CHECKPOINTER``); ``checkpointer=False`` keeps no state whatever the config says, and
``True`` (a subgraph's "my parent's saver") is refused at the root. A saver a graph is given
either way may store the classes its schemas name, as ``compile()`` allows them on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.pregel._local import CONFIG_KEY_CHECKPOINTER

__all__ = ["allow_stored", "root_saver"]


def allow_stored(schemas: Sequence[Any], saver: Any) -> None:
    """Allow on ``saver`` the classes a compiled graph's schemas name, as ``compile()`` allows them on its own:
    a saver a host sets on the compiled graph (graphwire's server serving a module's ``graph =
    builder.compile()``) may store them too."""
    if schemas and saver is not None and not isinstance(saver, bool):
        from engine.graph._allowlist import allow_schema_types  # (engine.graph imports engine.pregel)

        allow_schema_types(saver, schemas)


def root_saver(graph: Any, config: Mapping[str, Any]) -> Any:
    """A root run's (or state read's) saver, as LangGraph resolves it: none for ``checkpointer=False`` (a
    graph compiled to keep no state, trustcall's run on its own); then one the call's config passes
    (``configurable["__pregel_checkpointer"]``, how LangGraph's own server gives a graph compiled
    without one its saver), allowed the classes the graph's schemas name; ``True`` (a subgraph's "my
    parent's") refused at the root; else the compiled graph's."""
    saver = graph.checkpointer
    if saver is False:
        return None
    conf = config.get("configurable") or {}
    if CONFIG_KEY_CHECKPOINTER in conf:
        saver = conf[CONFIG_KEY_CHECKPOINTER]
        allow_stored(getattr(graph, "stored_schemas", ()), saver)
        return saver
    if saver is True:
        raise RuntimeError("checkpointer=True cannot be used for root graphs.")
    return saver
