"""A StateGraph's node policies beyond a node's own function: error handlers, timeouts, and defaults.

As LangGraph 1.2's: ``add_node(..., error_handler=fn)`` adds ``fn`` as a node
of its own, ``__error_handler__<node>``, reading the node's input schema; it
runs when the node fails past its retries (:mod:`engine.pregel._handlers`).
``set_node_defaults(...)`` gives every node that sets none of its own a
retry policy and a timeout (error handlers included), a cache policy and an
error handler (``__default_error_handler__``; regular nodes only: a handler
never handles a handler's failure); applied at ``compile()``, so it may come
before or after the nodes. ``timeout`` (a :class:`~engine.types.TimeoutPolicy`,
or seconds) is checked as it is given, and a sync node with one is refused
at ``compile()``: a sync function cannot be stopped (:mod:`engine.pregel._timeout`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from engine.errors import GraphDefinitionError
from engine.graph._nodes import node_call
from engine.pregel._timeout import runs_sync, sync_timeout_refused
from engine.types import RetryPolicy, TimeoutPolicy

__all__ = ["NodeDefaults", "DEFAULT_HANDLER", "add_error_handler", "effective_nodes", "link_handlers", "set_defaults"]

DEFAULT_HANDLER = "__default_error_handler__"


@dataclass(slots=True)
class NodeDefaults:
    """What ``set_node_defaults`` set (None: not set)."""

    retry_policy: tuple[RetryPolicy, ...] | None = None
    cache_policy: Any = None
    error_handler: Any = None
    timeout: TimeoutPolicy | None = None


def set_defaults(d: NodeDefaults, *, retry_policy: Any, cache_policy: Any, error_handler: Any, timeout: Any) -> None:
    """Record ``set_node_defaults``'s arguments on ``d``; one left None keeps what an earlier call set."""
    if retry_policy is not None:
        d.retry_policy = tuple(retry_policy) if isinstance(retry_policy, (list, tuple)) else (retry_policy,)
    if cache_policy is not None:
        d.cache_policy = cache_policy
    if error_handler is not None:
        d.error_handler = error_handler
    if timeout is not None:
        d.timeout = TimeoutPolicy.coerce(timeout)


def add_error_handler(nodes: dict[str, Any], node: str, handler: Any, input_schema: Any, make: Callable[..., Any]) -> str:
    """Add ``handler`` as node ``__error_handler__<node>`` (``make`` builds the builder's node); its name."""
    name = f"__error_handler__{node}"
    if name in nodes:
        raise GraphDefinitionError(f"Auto-generated error handler node `{name}` already exists.")
    nodes[name] = make(name, handler, node_call(name, handler), input_schema=input_schema, is_error_handler=True)
    return name


def effective_nodes(nodes: Mapping[str, Any], d: NodeDefaults, make: Callable[..., Any]) -> dict[str, Any]:
    """The nodes ``compile()`` builds: copies with the defaults applied where a node set none (the
    default error handler added as a node), a sync node with a timeout refused."""
    out = dict(nodes)
    if d.error_handler is not None:
        if DEFAULT_HANDLER in out:
            raise GraphDefinitionError(f"Auto-generated default error handler node `{DEFAULT_HANDLER}` already exists.")
        out[DEFAULT_HANDLER] = make(DEFAULT_HANDLER, d.error_handler, node_call(DEFAULT_HANDLER, d.error_handler), is_error_handler=True)
    for name, n in out.items():
        changes: dict[str, Any] = {}
        if d.retry_policy is not None and not n.retry_policy:
            changes["retry_policy"] = d.retry_policy
        if d.timeout is not None and n.timeout is None:
            changes["timeout"] = d.timeout
        if not n.is_error_handler:
            if d.cache_policy is not None and n.cache_policy is None:
                changes["cache_policy"] = d.cache_policy
            if d.error_handler is not None and n.error_handler is None:
                changes["error_handler"] = DEFAULT_HANDLER
        if changes:
            out[name] = n = dataclasses.replace(n, **changes)
        if n.timeout is not None and (not n.call.is_async or runs_sync(n.fn)):
            raise sync_timeout_refused(name)
    return out


def link_handlers(specs: Mapping[str, Any], nodes: Mapping[str, Any]) -> None:
    """Give each compiled node with an error handler the handler's compiled node."""
    for name, n in nodes.items():
        if n.error_handler is not None:
            spec, handler = specs[name], specs[n.error_handler]
            spec.error_handler = handler
            if spec.async_twin is not None:
                spec.async_twin.error_handler = handler.async_twin or handler
