"""Node writers: a node's return value → channel writes.

A writer turns what a node returned (a dict of updates, a state object, a
``Command``, or None) into writes for the step: state keys, the trigger
channels of the nodes its edges lead to, its share of join barriers, and
``Send`` packets. Conditional edges are evaluated here, on the state as the
task saw it with the task's own update applied (so a router sees what its
node just wrote, but not what sibling tasks wrote in the same step).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
from typing import Any, Callable, Sequence

from engine._internal._task import CURRENT
from engine.channels import BinaryOperatorAggregate
from engine.channels.binop import fold
from engine.channels.base import MISSING
from engine.errors import ErrorCode, InvalidUpdateError, ParentCommand, create_error_message
from engine.graph._nodes import is_runnable
from engine.graph._schema import SchemaInfo
from engine.graph._topology import Branch, Topology
from engine.pregel._spec import TASKS, WRITTEN_BEFORE
from engine.types import END, Command, Send

__all__ = ["branch_name", "make_writer", "fresh_state", "route_writes"]

log = logging.getLogger(__name__)


def fresh_state(graph: Topology, state: dict[str, Any], update: dict[str, Any] | Sequence[tuple[str, Any]] | None) -> dict[str, Any]:
    """``state`` with one task's ``update`` (a dict, or its writes in order) applied through the keys' reducers."""
    values = {k: state[k] for k in graph.channels if k in state}
    if len(values) < len(graph.channels):  # rare past a thread's first step: keys never written
        for k, ch in graph.channels.items():
            if k not in values and isinstance(ch, BinaryOperatorAggregate) and (empty := ch.from_checkpoint(MISSING).value) is not MISSING:
                values[k] = empty  # as LangGraph: a reducer key never written reads as its empty value
    for k, v in (update.items() if isinstance(update, dict) else update or ()):
        ch = graph.channels[k]
        if isinstance(ch, BinaryOperatorAggregate):
            cur = values.get(k, MISSING)
            if cur is MISSING:
                cur = ch.from_checkpoint(MISSING).value
            values[k] = v if cur is MISSING else fold(ch.operator, cur, v)
        else:
            values[k] = v
    return values


def _update_dict(info: SchemaInfo, value: Any, keys: Any) -> dict[str, Any]:
    if value is None:
        return {}
    upd = info.to_update(value)
    if upd is None:  # as LangGraph's, for an input and a node's return alike (a task's note names the node)
        raise InvalidUpdateError(create_error_message(message=f"Expected dict, got {value}", error_code=ErrorCode.INVALID_GRAPH_NODE_RETURN_VALUE))
    # Keys outside the schema are ignored, as LangGraph does.
    return {k: v for k, v in upd.items() if k in keys}


def _commands(name: str, info: SchemaInfo, items: Sequence[Any], keys: Any) -> tuple[list[tuple[str, Any]], list[Any]]:
    """The state writes and destinations of a node's Commands (and plain updates among them), in order."""
    writes: list[tuple[str, Any]] = []
    goto: list[Any] = []
    for item in items:
        if not isinstance(item, Command):
            writes += _update_dict(info, item, keys).items()
            continue
        if item.graph == Command.PARENT:
            raise ParentCommand(dataclasses.replace(item, graph=None))  # for the graph this one runs in
        upd = item.update
        if type(upd) in (list, tuple) and all(type(t) is tuple and len(t) == 2 and isinstance(t[0], str) for t in upd):
            writes += [(k, v) for k, v in upd if k in keys]  # (key, value) pairs: each a write of its own
        else:
            writes += _update_dict(info, upd, keys).items()
        goto += [item.goto] if isinstance(item.goto, (str, Send)) else list(item.goto or ())
    return writes, goto


def route_writes(graph: Topology, source: str, dests: Any) -> list[tuple[str, Any]]:
    """The writes that take ``source``'s edges to ``dests`` (names, END, Sends; one or a list).

    As LangGraph: a destination that names no node (a router's answer
    without a path_map, a goto, a Send) leads nowhere, with a warning.
    """
    if isinstance(dests, (str, Send)):
        dests = [dests]
    writes: list[tuple[str, Any]] = []
    for d in dests or ():
        if isinstance(d, Send):
            if d.node in graph.nodes:
                writes.append((TASKS, d))
            else:
                log.warning("node %r sent to unknown node %r; ignoring it", source, d.node)
        elif d == END:
            continue
        elif isinstance(d, str) and d in graph.nodes:
            writes.append((f"branch:to:{d}", None))
        else:
            log.warning("node %r routed to unknown node %r; ignoring it", source, d)
    return writes


def written_before(e: Exception, writes: list[tuple[str, Any]]) -> Exception:
    """``e``, carrying the writes its node made before the router raised.

    As LangGraph (a node is a sequence of writers, its branches last), a
    router that raises leaves the node's update and edge writes made: the
    task fails with the router's error, and its version records both.
    """
    setattr(e, WRITTEN_BEFORE, list(writes))
    return e


def _run_name(fn: Any) -> str | None:
    """A router's run name, as LangGraph's: its function's name (none for a lambda)."""
    name = getattr(fn, "__name__", None)
    return None if name == "<lambda>" else name


def branch_name(path: Any) -> str:
    """A router's name among its source's, as LangGraph's builder keys it: the Runnable's name,
    its function's, or "condition" (a lambda)."""
    name = path.get_name() if is_runnable(path) else _run_name(path)
    return name or "condition"


def _takes_config(fn: Any) -> bool:
    """Whether router ``fn`` takes the node's config, as LangGraph gives it: a ``config``
    parameter, untyped or typed ``RunnableConfig`` (``Optional`` too)."""
    try:
        param = inspect.signature(fn).parameters.get("config")
    except (TypeError, ValueError):
        return False
    if param is None or param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
        return False
    a = param.annotation
    return a is param.empty or "RunnableConfig" in (a if isinstance(a, str) else f"{getattr(a, '__name__', '')} {a!r}")


def make_writer(
    graph: Topology,
    name: str,
    info: SchemaInfo,
    joins: Sequence[str],
    *,
    is_input: bool = False,
    reads: SchemaInfo | None = None,
) -> Callable[[Any, dict[str, Any], dict[str, Any]], Any]:
    """The writer of node ``name``; its routers read ``reads`` (the node's input schema), or their own."""
    targets = [e for s, e in graph.edges if s == name and e != END]
    branches = graph.branches.get(name, ())
    keys = info.keys if is_input else frozenset(graph.channels)  # a set: looked up per key written
    async_branches = any(b.is_async for b in branches)

    def static(result: Any) -> tuple[dict[str, Any] | list[tuple[str, Any]], list[tuple[str, Any]], Sequence[Any]]:
        goto: Any = ()
        update: dict[str, Any] | list[tuple[str, Any]]
        if isinstance(result, Command) or (
            type(result) in (list, tuple) and result and any(isinstance(i, Command) for i in result)
        ):
            # As LangGraph: a Command, or a list of Commands and updates, each applied in order
            # (several writes to one key in one task, as a reducer folds them; routers see them all).
            update, goto = _commands(name, info, (result,) if isinstance(result, Command) else result, keys)
            writes = list(update)
        else:
            update = _update_dict(info, result, keys)
            writes = list(update.items())
        writes += [(f"branch:to:{t}", None) for t in targets]
        writes += [(j, name) for j in joins]
        if isinstance(goto, (str, Send)):
            goto = [goto]
        return update, writes, goto

    def route(writes: list[tuple[str, Any]], dests: Sequence[Any]) -> None:
        writes += route_writes(graph, name, dests)

    def router_input(br: Branch, state: dict[str, Any], update: dict[str, Any] | list[tuple[str, Any]], result: Any) -> Any:
        arg = (br.reads or reads or graph.state).coerce(fresh_state(graph, state, update))
        if br.reads is None and isinstance(arg, dict) and isinstance(result, dict):
            # as LangGraph: a router of its node's schema also sees the other keys the node returned
            arg = {**result, **arg}
        return arg

    # As LangGraph (a node is a sequence: its function, its update, one write per edge, then
    # its branches), a router's run for the caller's callbacks is the node run's step number:
    first = 3 + len(targets) + len(joins)
    router_names = [_run_name(br.path) for br in branches]
    with_config = [_takes_config(br.path) for br in branches]

    def call(k: int, br: Branch, arg: Any, config: dict[str, Any]) -> Any:
        ctx = CURRENT.get()
        lc = ctx.lc if ctx is not None else None
        path = functools.partial(br.path, config=config) if with_config[k] else br.path  # as LangGraph: the node's config
        return path(arg) if lc is None else lc.route(path, arg, router_names[k], first + k)

    if not async_branches:

        def writer(result: Any, state: dict[str, Any], config: dict[str, Any]) -> list[tuple[str, Any]]:
            update, writes, goto = static(result)
            route(writes, goto)
            try:
                for k, br in enumerate(branches):
                    route(writes, br.destinations(call(k, br, router_input(br, state, update, result), config), name))
            except Exception as e:
                raise written_before(e, writes) from None
            return writes

        return writer

    async def awriter(result: Any, state: dict[str, Any], config: dict[str, Any]) -> list[tuple[str, Any]]:
        update, writes, goto = static(result)
        route(writes, goto)
        try:
            for k, br in enumerate(branches):
                r = call(k, br, router_input(br, state, update, result), config)
                if br.is_async:
                    r = await r
                route(writes, br.destinations(r, name))
        except Exception as e:
            raise written_before(e, writes) from None
        return writes

    return awriter
