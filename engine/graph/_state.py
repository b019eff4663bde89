"""StateGraph: the builder a graph author uses, as in LangGraph.

``compile()`` turns the builder into a :class:`~engine.pregel.Pregel`: one
channel per state key, one trigger channel per node (``branch:to:<node>``),
one barrier channel per join edge, and for every node a *writer* that turns
its return value into channel writes (state updates, the edges it takes,
Sends).
"""

from __future__ import annotations

import inspect
import logging
import types
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Hashable, Mapping, Sequence

from engine._internal._deprecated import renamed
from engine.channels import BinaryOperatorAggregate, DeltaChannel, EphemeralValue, NamedBarrierValue, Topic
from engine.channels.after_finish import LastValueAfterFinish, NamedBarrierValueAfterFinish
from engine.channels.base import MISSING, BaseChannel
from engine.errors import GraphDefinitionError
from engine.graph._allowlist import agent_response_schemas, allow_schema_types
from engine.graph._branch import make_writer
from engine.graph._compiled import CompiledStateGraph
from engine.graph._draw import command_destinations, literal_names, return_annotation
from engine.graph._validate import validate_graph
from engine.graph._builder_views import BuilderViews
from engine.graph._nodes import (
    NodeCall, async_call, called_subgraph, is_runnable, named_node, node_call, router_function, subgraph_call,
)
from engine.graph._policies import NodeDefaults, add_error_handler, effective_nodes, link_handlers, set_defaults
from engine.graph._schema import ROOT, SchemaInfo, annotated_schema, read_schema
from engine.graph._topology import Branch, Topology
from engine.managed import with_managed
from engine.pregel import Pregel
from engine.pregel._cache import call_namespace
from engine.pregel._spec import TASKS, NodeSpec
from engine.types import END, START, RetryPolicy, Send, TimeoutPolicy, ensure_valid_checkpointer
from engine.warnings import LangGraphDeprecatedSinceV10

__all__ = ["StateGraph", "CompiledStateGraph"]

log = logging.getLogger(__name__)

_LATE = "Adding {} to a graph that has already been compiled. This will not be reflected in the compiled graph."


@dataclass(slots=True)
class _Node:
    name: str
    fn: Callable[..., Any]
    call: NodeCall
    retry_policy: tuple[RetryPolicy, ...] = ()
    input_schema: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)
    # runs only when nothing else is left to run (its triggers are after-finish channels)
    defer: bool = False
    cache_policy: Any = None
    # add_node(destinations=): where its Commands go, for drawing only (as LangGraph)
    destinations: Any = None
    # add_node(error_handler=, timeout=) (engine.graph._policies): its handler's node; is it one
    error_handler: str | None = None
    is_error_handler: bool = False
    timeout: TimeoutPolicy | None = None
    # what an async run calls instead of ``call`` (a RunnableCallable's async face), or None: ``call`` in both
    async_call: NodeCall | None = None

    @property
    def runnable(self) -> Any:
        """What the node runs, as LangGraph's node spec gives it: a Runnable as it is, a function
        as its callable (``.func`` the function, ``.invoke`` / ``.ainvoke`` calling it with the state)."""
        return self.fn if is_runnable(self.fn) or hasattr(self.fn, "invoke") else _Callable(self.fn, self.name)


class _Callable:
    """A node's function seen as LangGraph's RunnableCallable (``func``, ``name``, ``invoke``)."""

    def __init__(self, func: Callable[..., Any], name: str) -> None:
        self.func = func
        self.name = name

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        return self.func(input)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        out = self.func(input)
        return await out if inspect.isawaitable(out) else out


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


class StateGraph(BuilderViews):
    """A graph whose nodes read and update a shared state (``StateGraph[State, Context, Input, Output]``
    subscripts as LangGraph's generic class does, for type checkers).

    Args:
        state_schema: TypedDict, dataclass or Pydantic model of the state.
        context_schema: the type of a call's ``context=`` (dataclass, TypedDict
            or Pydantic model), which nodes read as ``runtime.context``.
        input_schema: keys accepted as input (default: the state's).
        output_schema: keys returned (default: the state's).
        input, output: LangGraph's older names of ``input_schema`` and ``output_schema``.
    """

    def __init__(
        self,
        state_schema: Any,
        context_schema: Any = None,
        *,
        input_schema: Any = None,
        output_schema: Any = None,
        input: Any = None,
        output: Any = None,
        config_schema: Any = None,
    ) -> None:
        # LangGraph's older names, taken with its warnings
        if input is not None:
            renamed("input", "input_schema")
        if output is not None:
            renamed("output", "output_schema")
        if config_schema is not None:
            renamed("config_schema", "context_schema", since=LangGraphDeprecatedSinceV10)
            context_schema = context_schema if context_schema is not None else config_schema
        #: what a call's ``context=`` is coerced into (a dataclass, TypedDict or Pydantic model)
        self.context_schema = context_schema
        self.state = read_schema(state_schema)
        self.input = read_schema(input_schema or input) if (input_schema or input) else self.state
        self.output = read_schema(output_schema or output) if (output_schema or output) else self.state
        self.channels: dict[str, BaseChannel] = {}
        for info in (self.state, self.input, self.output):
            for k, ch in info.channels.items():
                self.channels.setdefault(k, ch)
        self.nodes: dict[str, _Node] = {}
        self.edges: set[tuple[str, str]] = set()
        self.edge_order: list[tuple[str, str]] = []
        self.joins: list[tuple[tuple[str, ...], str]] = []
        self.branches: dict[str, list[Branch]] = {}
        self.compiled = False
        self.node_defaults = NodeDefaults()

    @property
    def state_schema(self) -> Any:
        """The state schema the builder was made with (LangGraph's attribute)."""
        return self.state.schema

    @property
    def managed(self) -> dict[str, Any]:
        """The state's managed keys (``RemainingSteps``, ``IsLastStep``: filled in per step, never stored), as LangGraph's."""
        return {k: m for info in (self.state, self.input, self.output) for k, m in info.managed.items()}

    def __class_getitem__(cls, params: Any) -> Any:
        return types.GenericAlias(cls, params)

    # -- nodes ---------------------------------------------------------------
    def add_node(
        self,
        node: str | Callable[..., Any],
        action: Any = None,  # a function, a Runnable or a compiled graph
        *,
        defer: bool = False,
        metadata: dict[str, Any] | None = None,
        input_schema: Any = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        cache_policy: Any = None,
        error_handler: Any = None,
        destinations: Any = None,
        timeout: Any = None,
        trace_policy: Any = None,
        input: Any = None,
        retry: RetryPolicy | Sequence[RetryPolicy] | None = None,
    ) -> "StateGraph":
        """Add a node: a function of the state (or of ``input_schema``) returning an update.

        As LangGraph 1.2's; ``input`` and ``retry`` are its older names of
        ``input_schema`` and ``retry_policy``. ``defer=True``: the node runs
        only once nothing else is left to run (the fan-in of branches of
        different lengths runs once). ``cache_policy`` (a
        :class:`~engine.types.CachePolicy`): with ``compile(cache=...)``, a task
        whose input was seen within the ttl gets the cached writes instead of
        running. ``trace_policy`` (a :class:`~engine.types.TracePolicy`):
        what the node's run records of its input and output in the caller's
        callbacks. ``error_handler``, ``timeout``: :mod:`engine.graph._policies`. A
        compiled graph as the node is a subgraph (:mod:`engine.pregel._nested`).
        """
        timeout = TimeoutPolicy.coerce(timeout)
        if input is not None:
            renamed("input", "input_schema")
        if retry is not None:
            renamed("retry", "retry_policy")
        input_schema = input_schema if input_schema is not None else input
        node, action = named_node(node, action)
        if self.compiled:
            log.warning(_LATE.format("a node"))  # compile() froze its own copy (as LangGraph warns)
        if node in self.nodes:
            raise GraphDefinitionError(f"Node `{node}` already present.")
        policy = retry_policy or retry
        policies = tuple(policy) if isinstance(policy, (list, tuple)) else ((policy,) if policy else ())
        if input_schema is None:  # as LangGraph: the first parameter's annotation, adding its keys (private state)
            input_schema = annotated_schema(action)
        if input_schema is not None:
            self._add_schema(input_schema)
        call = subgraph_call(action, trace_policy) if isinstance(action, Pregel) else node_call(node, action, trace_policy)
        handler = None if error_handler is None else add_error_handler(self.nodes, node, error_handler, input_schema, _Node)
        self.nodes[node] = _Node(
            node, action, call, policies, input_schema, dict(metadata or {}), defer=bool(defer),
            cache_policy=cache_policy, destinations=destinations, error_handler=handler, timeout=timeout,
            async_call=None if isinstance(action, Pregel) else async_call(node, action, trace_policy),
        )
        return self

    def set_node_defaults(self, *, retry_policy: Any = None, cache_policy: Any = None, error_handler: Any = None,
                          timeout: Any = None) -> "StateGraph":
        """Policies for the nodes that set none of their own, as LangGraph 1.2's (:mod:`engine.graph._policies`)."""
        set_defaults(self.node_defaults, retry_policy=retry_policy, cache_policy=cache_policy, error_handler=error_handler, timeout=timeout)
        return self

    def _add_schema(self, schema: Any) -> SchemaInfo:
        """Read ``schema`` and add its keys the graph has no channel for yet."""
        info = read_schema(schema)
        for k, ch in info.channels.items():
            self.channels.setdefault(k, ch)
        return info

    def add_sequence(self, nodes: Sequence[Callable[..., Any] | tuple[str, Callable[..., Any]]]) -> "StateGraph":
        """Add nodes and chain them with edges, in order."""
        if not nodes:
            raise GraphDefinitionError("add_sequence needs at least one node")
        prev: str | None = None
        for item in nodes:
            if isinstance(item, tuple):
                name, fn = item
            else:
                fn = item
                name = getattr(fn, "__name__", None) or type(fn).__name__
            self.add_node(name, fn)
            if prev is not None:
                self.add_edge(prev, name)
            prev = name
        return self

    # -- edges ---------------------------------------------------------------
    def add_edge(self, start_key: str | Sequence[str], end_key: str) -> "StateGraph":
        """An edge; with a list of sources, ``end_key`` waits for all of them (a join)."""
        if self.compiled:
            log.warning(_LATE.format("an edge"))
        if isinstance(start_key, str):
            if start_key == END:
                raise GraphDefinitionError("END cannot be a start node")
            if end_key == START:
                raise GraphDefinitionError("START cannot be an end node")
            if (start_key, end_key) not in self.edges:
                self.edges.add((start_key, end_key))
                self.edge_order.append((start_key, end_key))
            return self
        sources = tuple(start_key)
        if not sources:
            raise GraphDefinitionError("a join edge needs at least one source")
        for s in sources:  # as LangGraph's, checked here
            if s == END:
                raise GraphDefinitionError("END cannot be a start node")
            if s not in self.nodes:
                raise GraphDefinitionError(f"Need to add_node `{s}` first")
        if end_key == START:
            raise GraphDefinitionError("START cannot be an end node")
        if end_key != END and end_key not in self.nodes:
            raise GraphDefinitionError(f"Need to add_node `{end_key}` first")
        self.joins.append((sources, end_key))
        return self

    def add_conditional_edges(
        self,
        source: str,
        path: Callable[..., Any],
        path_map: dict[Hashable, str] | Sequence[str] | None = None,
    ) -> "StateGraph":
        """Route from ``source`` by calling ``path`` on the state after ``source`` ran.

        ``path`` returns a node name, a list of names, END, or Send objects;
        ``path_map`` maps its return values to node names (or lists the
        possible names, for drawing and validation).
        """
        if self.compiled:
            log.warning(_LATE.format("an edge"))
        path = router_function(path)
        if path_map is None:
            # As LangGraph: a router annotated -> Literal[...] names where it may go.
            names = literal_names(return_annotation(path))
            path_map = {n: n for n in names} if names else None
        elif not isinstance(path_map, Mapping):  # a list of node names
            path_map = {p: p for p in path_map}
        schema = annotated_schema(path)  # a router annotated with a schema reads that schema's keys
        self.branches.setdefault(source, []).append(
            Branch(
                path,
                MappingProxyType(dict(path_map)) if path_map else None,
                _is_async(path),
                self._add_schema(schema) if schema is not None else None,
            )
        )
        return self

    def set_entry_point(self, key: str) -> "StateGraph":
        return self.add_edge(START, key)

    def set_conditional_entry_point(self, path: Callable[..., Any], path_map: Any = None) -> "StateGraph":
        return self.add_conditional_edges(START, path, path_map)

    def set_finish_point(self, key: str) -> "StateGraph":
        return self.add_edge(key, END)

    # -- compile ---------------------------------------------------------------
    def _freeze(self, commands: Mapping[str, tuple[tuple[str, str | None], ...]]) -> Topology:
        """The shape compile() gives the writers and drawing: copies, behind read-only views."""
        return Topology(
            nodes=MappingProxyType({n: MappingProxyType(dict(node.metadata)) for n, node in self.nodes.items()}),
            edges=tuple(self.edge_order),
            joins=tuple(self.joins),
            branches=MappingProxyType({s: tuple(brs) for s, brs in self.branches.items()}),
            channels=MappingProxyType(dict(self.channels)),
            state=self.state,
            commands=MappingProxyType(dict(commands)),
            tools=MappingProxyType({n: tuple(t) for n, node in self.nodes.items() if isinstance(t := getattr(node.fn, "tools_by_name", None), Mapping) and t}),
        )

    def _schemas(self) -> list[Any]:
        """The schemas whose types a saver of this graph stores: its own, and its subgraphs' (they save on it too)."""
        out = [self.state.schema, self.input.schema, self.output.schema, *(n.input_schema for n in self.nodes.values())]
        out += agent_response_schemas(n.fn for n in self.nodes.values())  # a LangChain agent's structured response
        for n in self.nodes.values():
            if isinstance(n.fn, Pregel) and isinstance(n.fn.builder, StateGraph):
                out += n.fn.builder._schemas()
        return out

    def _commands(self) -> dict[str, tuple[tuple[str, str | None], ...]]:
        """Where each node's Commands may go (and the edge labels drawing shows): checked, then frozen."""
        return {n: _destinations(node) for n, node in self.nodes.items()}

    def validate(self, interrupt: Sequence[str] = (), commands: Mapping[str, tuple[tuple[str, str | None], ...]] | None = None) -> None:
        commands = self._commands() if commands is None else commands
        validate_graph(self.nodes, self.edges, self.joins, self.branches, commands, interrupt)
        # As LangGraph, a node no edge leads to is allowed: a Command's goto
        # (from a node, or as input) can reach it.

    def compile(
        self,
        checkpointer: Any = None,
        *,
        cache: Any = None,
        store: Any = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        debug: bool = False,
        name: str | None = None,
        transformers: Sequence[Callable[[tuple[str, ...]], Any]] | None = None,
    ) -> "CompiledStateGraph":
        """The runnable graph. ``cache``: where nodes with a ``cache_policy`` keep their writes
        (:mod:`engine.cache`). ``debug``: every call prints its "updates" and "values" chunks, as LangGraph's.
        ``transformers``: kept as ``stream_transformers`` for the v3 stream, the only one LangGraph gives
        them to (which the engine refuses: :mod:`engine.stream`)."""
        ensure_valid_checkpointer(checkpointer)
        ib = interrupt_before or ()
        ia = interrupt_after or ()
        commands = self._commands()
        self.validate([*([ib] if isinstance(ib, str) else ib), *([ia] if isinstance(ia, str) else ia)], commands)
        self.compiled = True
        schemas = self._schemas()
        for holder in (checkpointer, cache):
            if holder is not None and not isinstance(holder, bool):
                allow_schema_types(holder, schemas)
        channels: dict[str, BaseChannel] = dict(self.channels)
        channels[START] = EphemeralValue(Any, key=START)
        channels[TASKS] = Topic(Send, accumulate=False, key=TASKS)
        nodes = effective_nodes(self.nodes, self.node_defaults, _Node)
        for n, spec in nodes.items():
            key = f"branch:to:{n}"
            channels[key] = LastValueAfterFinish(None, key=key) if spec.defer else EphemeralValue(None, guard=False, key=key)
        join_chans: dict[str, list[str]] = {}  # source -> join channels it writes
        node_joins: dict[str, list[str]] = {}  # target -> join channels it waits on
        for sources, target in self.joins:
            key = f"join:{'+'.join(sources)}:{target}"
            deferred = target in self.nodes and self.nodes[target].defer
            channels[key] = (NamedBarrierValueAfterFinish if deferred else NamedBarrierValue)(str, set(sources), key=key)
            for s in sources:
                join_chans.setdefault(s, []).append(key)
            node_joins.setdefault(target, []).append(key)
        state_keys = frozenset(self.channels)
        topology = self._freeze(commands)
        specs: dict[str, NodeSpec] = {}
        specs[START] = NodeSpec(
            name=START,
            triggers=(START,),
            read=lambda state: state.get(START),
            proc=None,
            writer=make_writer(topology, START, self.input, join_chans.get(START, ()), is_input=True),
            state_keys=state_keys,
            bare=not topology.branches.get(START),
        )
        for node_name, node in nodes.items():
            info: SchemaInfo = read_schema(node.input_schema) if node.input_schema is not None else self.state
            spec = specs[node_name] = NodeSpec(
                name=node_name,
                triggers=(f"branch:to:{node_name}", *node_joins.get(node_name, ())),
                read=_with_empty_reducers(info.coerce, self.channels),
                proc=(with_managed(node.call.proc, info.managed, node.call.is_async)
                      if info.managed and not isinstance(node.fn, Pregel) else node.call.proc),
                writer=make_writer(topology, node_name, self.state, join_chans.get(node_name, ()), reads=info),
                is_async=node.call.is_async,
                accepts_config=node.call.accepts_config,
                accepts_store=node.call.accepts_store,
                retry_policy=node.retry_policy,
                metadata=node.metadata,
                state_keys=state_keys,
                subgraph=node.fn if isinstance(node.fn, Pregel) else called_subgraph(node.fn),
                cache_policy=node.cache_policy,
                cache_ns=_cache_namespace(node_name, node.fn),
                timeout=node.timeout,
                action=node.fn,
            )
            if (face := node.async_call) is not None:  # its twin: the spec an async run takes (GraphSpec.for_async)
                proc = with_managed(face.proc, info.managed, face.is_async) if info.managed else face.proc
                spec.async_twin = spec.copy({"proc": proc, "is_async": face.is_async, "accepts_config": face.accepts_config,
                                             "accepts_store": face.accepts_store})
        link_handlers(specs, nodes)
        compiled = CompiledStateGraph(
            builder=self,
            topology=topology,
            nodes=specs,
            channels=channels,
            input_keys=self.input.keys,
            # As LangGraph: a root state's graph returns and streams the value itself.
            output_keys=ROOT if self.output.keys == (ROOT,) else self.output.keys,
            stream_keys=ROOT if set(self.channels) == {ROOT} else None,
            state_keys=state_keys,
            checkpointer=checkpointer,
            store=store,
            interrupt_before=ib,
            interrupt_after=ia,
            name=name or "LangGraph",
            context_schema=self.context_schema,
            cache=cache,
        )
        compiled.debug = bool(debug)  # its streams print "updates" and "values", as LangGraph's
        compiled.stored_schemas = tuple(schemas)  # for a saver a host sets on it later (Pregel.checkpointer)
        compiled.stream_transformers = tuple(transformers or ())
        return compiled


def _destinations(node: _Node) -> tuple[tuple[str, str | None], ...]:
    """Where a node's Commands may go, for drawing: ``destinations`` (a dict's values are edge labels), else its annotation."""
    given = node.destinations
    if isinstance(given, dict):
        return tuple((target, None if label == target else str(label)) for target, label in given.items())
    if given:
        return tuple((target, None) for target in given)
    return tuple((target, None) for target in command_destinations(node.fn))


def _cache_namespace(name: str, fn: Any) -> tuple[str, ...]:
    """Where a node's cached writes live, as LangGraph names it: the function's module.qualname, and the node."""
    return (*call_namespace(fn), name)


def _with_empty_reducers(coerce: Callable[[dict[str, Any]], Any], channels: dict[str, BaseChannel]) -> Callable[[dict[str, Any]], Any]:
    """``coerce``, with every reducer key never written given its empty value.

    As LangGraph: an ``Annotated[list, operator.add]`` key reads as ``[]``
    before anything was written to it (a fresh value per read: a node may
    mutate what it gets).
    """
    empties = [
        (k, ch)
        for k, ch in channels.items()
        if isinstance(ch, (BinaryOperatorAggregate, DeltaChannel)) and ch.from_checkpoint(MISSING).value is not MISSING
    ]
    if not empties:
        return coerce

    def read(state: dict[str, Any]) -> Any:
        missing = {k: ch.from_checkpoint(MISSING).value for k, ch in empties if k not in state}
        return coerce({**state, **missing} if missing else state)

    return read
