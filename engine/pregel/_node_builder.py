"""LangGraph's low-level graph API: ``NodeBuilder``, ``PregelNode`` and ``Pregel(nodes=, channels=, ...)``.

Below ``StateGraph`` LangGraph has actors and channels: a node subscribes to
channels (a write to one of them runs it in the next step), reads channels
(one channel: its value; a list: a dict of those that hold a value), runs
its function(s), and writes the result to channels::

    one = NodeBuilder().subscribe_only("input").do(add_one).write_to("output")
    app = Pregel(nodes={"one": one}, channels={"input": LastValue(int), "output": LastValue(int)},
                 input_channels="input", output_channels="output")

Here such a node becomes the loop's :class:`~engine.pregel._spec.NodeSpec`
(its triggers, a read of the state, its function, a writer of its write
entries), so it runs on the same superstep loop as a compiled StateGraph;
:func:`lowlevel_graph` checks a graph as LangGraph's ``validate`` does and
gives what ``Pregel.__init__`` needs.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from engine._internal._sync import call_off_loop
from engine.channels.base import MISSING, BaseChannel
from engine.channels.binop import BinaryOperatorAggregate
from engine.channels.topic import Topic
from engine.errors import EmptyInputError
from engine.pregel._cache import call_namespace
from engine.pregel._spec import TASKS, NodeSpec
from engine.pregel._timeout import runs_sync, sync_timeout_refused
from engine.types import CachePolicy, RetryPolicy, Send, TimeoutPolicy

__all__ = ["ChannelWrite", "ChannelWriteEntry", "NodeBuilder", "PASSTHROUGH", "PregelNode", "copied", "lowlevel_graph", "lowlevel_options"]


def copied(obj: Any, update: Mapping[str, Any] | None) -> Any:
    """A shallow copy of ``obj`` with ``update``'s attributes replaced (LangGraph's ``copy(update)`` of nodes and graphs)."""
    clone = copy.copy(obj)
    for k, v in (update or {}).items():
        setattr(clone, k, v)
    return clone


class _Passthrough:
    __slots__ = ()

    def __repr__(self) -> str:
        return "PASSTHROUGH"


#: a write entry's value: what the node returned
PASSTHROUGH: Any = _Passthrough()
#: names LangGraph reserves for its own channels and nodes
_RESERVED = frozenset({"__start__", "__end__", TASKS, "__interrupt__", "__resume__", "__error__", "__no_writes__"})


class ChannelWriteEntry(NamedTuple):
    """One write of a node: ``channel`` gets ``value`` (PASSTHROUGH: the node's result), through ``mapper``."""

    channel: str
    value: Any = PASSTHROUGH
    skip_none: bool = False
    mapper: Callable[[Any], Any] | None = None


class ChannelWrite:
    """A node's writes: entries (and Sends) applied to what its function returned."""

    def __init__(self, writes: Sequence[ChannelWriteEntry | Send]) -> None:
        self.writes = list(writes)

    def assemble(self, result: Any) -> list[tuple[str, Any]]:
        """The channel writes of ``result``, as LangGraph assembles them."""
        out: list[tuple[str, Any]] = []
        for w in self.writes:
            if isinstance(w, Send):
                out.append((TASKS, w))
                continue
            value = result if w.value is PASSTHROUGH else w.value
            if w.mapper is not None:
                value = w.mapper(value)
            if w.skip_none and value is None:
                continue
            out.append((w.channel, value))
        return out


class _Steps:
    """Several ``do()`` functions of one node, each given the last one's result."""

    def __init__(self, steps: Sequence[Any]) -> None:
        self.steps = list(steps)


class PregelNode:
    """A node of a low-level graph: what it subscribes to, reads, runs and writes (LangGraph's ``PregelNode``)."""

    def __init__(
        self,
        *,
        channels: str | list[str],
        triggers: Sequence[str],
        mapper: Callable[[Any], Any] | None = None,
        writers: Sequence[ChannelWrite] | None = None,
        tags: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        bound: Any = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        cache_policy: CachePolicy | None = None,
        timeout: Any = None,
    ) -> None:
        self.channels = channels
        self.triggers = list(triggers)
        self.mapper = mapper
        self.writers = list(writers or ())
        self.tags = list(tags or ())
        self.metadata = dict(metadata or {})
        self.bound = bound
        self.retry_policy = [retry_policy] if isinstance(retry_policy, RetryPolicy) else list(retry_policy or ())
        self.cache_policy = cache_policy
        self.timeout = TimeoutPolicy.coerce(timeout)  # engine.pregel._timeout: async steps only

    def copy(self, update: Mapping[str, Any] | None = None) -> "PregelNode":
        """A copy of this node, with ``update``'s attributes replaced."""
        return copied(self, update)

    @property
    def flat_writers(self) -> list[ChannelWrite]:
        return list(self.writers)

    def _steps(self) -> list[Any]:
        if self.bound is None:
            return []
        return list(self.bound.steps) if isinstance(self.bound, _Steps) else [self.bound]

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """Run the node's function(s) on ``input`` (no writes), as LangGraph's ``PregelNode.invoke``."""
        for step in self._steps():
            input = step.invoke(input, config, **kwargs) if hasattr(step, "invoke") else step(input)
        return input

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        for step in self._steps():
            if hasattr(step, "ainvoke"):
                input = await step.ainvoke(input, config, **kwargs)
            else:
                input = step(input)
                if inspect.isawaitable(input):
                    input = await input
        return input

    def __repr__(self) -> str:
        return f"PregelNode(channels={self.channels!r}, triggers={self.triggers!r})"


class NodeBuilder:
    """Builds a :class:`PregelNode` step by step (LangGraph's ``NodeBuilder``)."""

    def __init__(self) -> None:
        self._channels: str | list[str] = []
        self._triggers: list[str] = []
        self._tags: list[str] = []
        self._metadata: dict[str, Any] = {}
        self._writes: list[ChannelWriteEntry | Send] = []
        self._steps: list[Any] = []
        self._retry_policy: list[RetryPolicy] = []
        self._cache_policy: CachePolicy | None = None
        self._timeout: TimeoutPolicy | None = None

    def subscribe_only(self, channel: str) -> "NodeBuilder":
        """Run when ``channel`` is written; the node's input is that channel's value."""
        if not self._channels:
            self._channels = channel
        else:
            raise ValueError("Cannot subscribe to single channels when other channels are already subscribed to")
        self._triggers.append(channel)
        return self

    def subscribe_to(self, *channels: str, read: bool = True) -> "NodeBuilder":
        """Run when any of ``channels`` is written; with ``read``, the input is a dict holding them."""
        if isinstance(self._channels, str):
            raise ValueError("Cannot subscribe to channels when subscribed to a single channel")
        if read:
            self._channels.extend(channels)
        self._triggers.extend(channels)
        return self

    def read_from(self, *channels: str) -> "NodeBuilder":
        """Also read ``channels`` (without being run by them)."""
        if not isinstance(self._channels, list):
            raise TypeError("Cannot read additional channels when subscribed to single channels")
        self._channels.extend(channels)
        return self

    def do(self, node: Any) -> "NodeBuilder":
        """Run ``node`` (a function or a Runnable) on the input, or on the last ``do``'s result."""
        self._steps.append(node)
        return self

    def write_to(self, *channels: str | ChannelWriteEntry, **kwargs: Any) -> "NodeBuilder":
        """Write the result to ``channels``; a keyword names a channel and a value, or a function of the result."""
        self._writes.extend(ChannelWriteEntry(c) if isinstance(c, str) else c for c in channels)
        self._writes.extend(
            ChannelWriteEntry(k, mapper=v) if callable(v) else ChannelWriteEntry(k, value=v) for k, v in kwargs.items()
        )
        return self

    def meta(self, *tags: str, **metadata: Any) -> "NodeBuilder":
        self._tags.extend(tags)
        self._metadata.update(metadata)
        return self

    def add_retry_policies(self, *policies: RetryPolicy) -> "NodeBuilder":
        self._retry_policy.extend(policies)
        return self

    def add_cache_policy(self, policy: CachePolicy) -> "NodeBuilder":
        self._cache_policy = policy
        return self

    def set_timeout(self, timeout: Any) -> "NodeBuilder":
        """Each attempt's :class:`~engine.types.TimeoutPolicy` (or seconds: a run timeout)."""
        self._timeout = TimeoutPolicy.coerce(timeout)
        return self

    def build(self) -> PregelNode:
        steps = self._steps
        return PregelNode(
            channels=self._channels,
            triggers=self._triggers,
            tags=self._tags,
            metadata=self._metadata,
            writers=[ChannelWrite(self._writes)],
            bound=None if not steps else steps[0] if len(steps) == 1 else _Steps(steps),
            retry_policy=self._retry_policy,
            cache_policy=self._cache_policy,
            timeout=self._timeout,
        )


# -- the loop's view -----------------------------------------------------------


def _reader(node: PregelNode, channels: Mapping[str, BaseChannel]) -> Callable[[dict[str, Any]], Any]:
    """The node's input from the state: one channel's value, or a dict of the read channels holding one.

    A reducer channel never written reads as its empty value (LangGraph's
    ``BinaryOperatorAggregate(int, add)`` starts at 0), as a StateGraph's does.
    """
    empties = {
        k: ch.from_checkpoint(MISSING).value
        for k, ch in channels.items()
        if isinstance(ch, BinaryOperatorAggregate) and ch.from_checkpoint(MISSING).value is not MISSING
    }
    mapper = node.mapper
    if isinstance(node.channels, str):
        key = node.channels
        empty = empties.get(key)

        def read_one(state: dict[str, Any]) -> Any:
            value = state.get(key, empty)
            return mapper(value) if mapper is not None else value

        return read_one
    keys = list(node.channels)

    def read_many(state: dict[str, Any]) -> Any:
        value = {k: state[k] if k in state else empties[k] for k in keys if k in state or k in empties}
        return mapper(value) if mapper is not None else value

    return read_many


def _proc(name: str, steps: Sequence[Any], *, timed: bool = False) -> tuple[Callable[..., Any] | None, bool, bool]:
    """``(proc, is_async, accepts_config)`` of a node's functions run one after the other
    (``timed``: with a timeout, a RunnableCallable with both faces runs its async one)."""
    if not steps:
        return None, False, False  # the loop passes the input on as the result
    from engine.graph._nodes import node_call  # engine.graph imports this package: called once it is loaded

    calls = [node_call(name, copied(s, {"func": None}) if timed and not runs_sync(s) and _callable(s) else s) for s in steps]
    if len(calls) == 1:
        c = calls[0]
        return c.proc, c.is_async, c.accepts_config

    def args(c: Any, value: Any, config: Any) -> tuple[Any, ...]:
        return (value, config) if c.accepts_config else (value,)

    if not any(c.is_async for c in calls):

        def run(value: Any, config: Any) -> Any:
            for c in calls:
                value = c.proc(*args(c, value, config))
            return value

        return run, False, True

    async def arun(value: Any, config: Any) -> Any:
        for c in calls:
            value = await c.proc(*args(c, value, config)) if c.is_async else call_off_loop(c.proc, *args(c, value, config))
        return value

    return arun, True, True


def node_spec(
    name: str, node: PregelNode, channels: Mapping[str, BaseChannel], *, state_keys: frozenset[str],
    retry_policy: Sequence[RetryPolicy], cache_policy: CachePolicy | None,
) -> NodeSpec:  # fmt: skip
    """The loop's :class:`NodeSpec` of a low-level node."""
    steps = node._steps()
    proc, is_async, accepts_config = _proc(name, steps, timed=node.timeout is not None)
    writers = node.flat_writers

    def writer(result: Any, state: Any, config: Any) -> list[tuple[str, Any]]:
        return [w for cw in writers for w in cw.assemble(result)]

    return NodeSpec(
        name=name,
        triggers=tuple(node.triggers),
        read=_reader(node, channels),
        proc=proc,
        writer=writer,
        is_async=is_async,
        accepts_config=accepts_config,
        retry_policy=tuple(node.retry_policy or retry_policy),
        metadata={**node.metadata, **({"tags": node.tags} if node.tags else {})},
        state_keys=state_keys,
        cache_policy=node.cache_policy or cache_policy,
        cache_ns=(*call_namespace(steps[0]), name) if steps else (name,),
        timeout=node.timeout,
    )


def _callable(step: Any) -> bool:
    return type(step).__module__ == "engine._internal._runnable"


def _validate(
    nodes: Mapping[str, PregelNode], channels: Mapping[str, BaseChannel], input_channels: str | Sequence[str],
    output_channels: str | Sequence[str], stream_channels: str | Sequence[str] | None, interrupts: Sequence[Any],
) -> None:  # fmt: skip
    """LangGraph's checks of a low-level graph, with its messages."""
    known = repr(sorted(channels))[:100]
    for chan in channels:
        if chan in _RESERVED:
            raise ValueError(f"Channel name '{chan}' is reserved")
    subscribed: set[str] = set()
    for name, node in nodes.items():
        if name in _RESERVED:
            raise ValueError(f"Node name '{name}' is reserved")
        if not isinstance(node, PregelNode):
            raise TypeError(f"Invalid node type {type(node)}, expected PregelNode or NodeBuilder")
        subscribed.update(node.triggers)
        if node.timeout is not None and any(runs_sync(s) for s in [*node._steps(), *node.writers]):
            raise sync_timeout_refused(name)
        for chan in [node.channels] if isinstance(node.channels, str) else node.channels:
            if chan not in channels:
                raise ValueError(f"Node {name} reads channel '{chan}' not in known channels: '{known}'")
    for chan in subscribed:
        if chan not in channels:
            raise ValueError(f"Subscribed channel '{chan}' not in known channels: '{known}'")
    if isinstance(input_channels, str):
        if input_channels not in channels:
            raise ValueError(f"Input channel '{input_channels}' not in known channels: '{known}'")
        if input_channels not in subscribed:
            raise ValueError(f"Input channel {input_channels} is not subscribed to by any node")
    else:
        for chan in input_channels:
            if chan not in channels:
                raise ValueError(f"Input channel '{chan}' not in '{known}'")
        if all(chan not in subscribed for chan in input_channels):
            raise ValueError(f"None of the input channels {input_channels} are subscribed to by any node")
    outputs = [output_channels] if isinstance(output_channels, str) else list(output_channels)
    outputs += [stream_channels] if isinstance(stream_channels, str) else list(stream_channels or ())
    for chan in outputs:
        if chan not in channels:
            raise ValueError(f"Output channel '{chan}' not in known channels: '{known}'")
    for names in interrupts:
        if names != "*":
            for n in names:
                if n not in nodes:
                    raise ValueError(f"Node {n} not in nodes")


def input_mapper(input_channels: str | Sequence[str]) -> Callable[[Any], list[tuple[str, Any]]]:
    """A low-level graph's new input as channel writes: all of it to one channel, or a dict's keys to theirs."""
    if isinstance(input_channels, str):
        return lambda value: [(input_channels, value)]
    keys = list(input_channels)

    def writes(value: Any) -> list[tuple[str, Any]]:
        if not isinstance(value, dict):
            raise TypeError(f"Expected chunk to be a dict, got {type(value).__name__}")
        out = [(k, v) for k, v in value.items() if k in keys]
        if not out:
            raise EmptyInputError(f"Received no input for {keys}")
        return out

    return writes


def lowlevel_graph(
    nodes: Mapping[str, PregelNode | NodeBuilder], channels: Mapping[str, BaseChannel] | None, *,
    input_channels: str | Sequence[str], output_channels: str | Sequence[str], stream_channels: str | Sequence[str] | None,
    interrupt_before: Any, interrupt_after: Any, retry_policy: RetryPolicy | Sequence[RetryPolicy],
    cache_policy: CachePolicy | None, validate: bool,
) -> tuple[dict[str, PregelNode], dict[str, BaseChannel], dict[str, NodeSpec], tuple[str, ...] | str]:  # fmt: skip
    """A low-level graph's nodes (built), channels (keyed, TASKS added), the loop's node specs and its stream keys."""
    built = {k: v.build() if isinstance(v, NodeBuilder) else v for k, v in nodes.items()}
    chans = dict(channels or {})
    if TASKS in chans and not isinstance(chans[TASKS], Topic):
        raise ValueError(f"Channel '{TASKS}' is reserved and cannot be used in the graph.")
    if validate:
        _validate(built, chans, input_channels, output_channels, stream_channels, (interrupt_before, interrupt_after))
    for k, ch in chans.items():
        ch.key = k
    chans[TASKS] = Topic(Send, accumulate=False, key=TASKS)
    policies = (retry_policy,) if isinstance(retry_policy, RetryPolicy) else tuple(retry_policy)
    stream_keys = stream_channels or tuple(k for k in chans if k != TASKS)
    keys = frozenset([stream_keys] if isinstance(stream_keys, str) else stream_keys)
    specs = {
        name: node_spec(name, node, chans, state_keys=keys, retry_policy=policies, cache_policy=cache_policy)
        for name, node in built.items()
    }
    return built, chans, specs, stream_keys if isinstance(stream_keys, str) else tuple(stream_keys)


def channels_model(name: str, channels: Mapping[str, BaseChannel], keys: Sequence[str], *, update: bool) -> Any:
    """A Pydantic model of ``keys``' channels (each optional, typed by what it takes or holds), as LangGraph's
    low-level graph describes a dict of channels as its input or output."""
    from pydantic import create_model

    fields = {k: ((c.UpdateType if update else c.ValueType), None) for k in keys if (c := channels.get(k)) is not None}
    return create_model(name, **fields)  # type: ignore[call-overload]


def context_jsonschema(schema: Any) -> dict[str, Any] | None:
    """The JSON Schema of a graph's context schema (Pydantic model, TypedDict or dataclass), as LangGraph gives it."""
    if schema is None:
        return None
    import dataclasses as dc
    import typing

    from pydantic import BaseModel, TypeAdapter

    if inspect.isclass(schema) and issubclass(schema, BaseModel):
        return schema.model_json_schema()
    # typing_extensions' TypedDicts too (typing.is_typeddict refuses them on Python 3.11)
    typeddict = typing.is_typeddict(schema) or (isinstance(schema, type) and issubclass(schema, dict) and hasattr(schema, "__total__"))
    if typeddict or dc.is_dataclass(schema):
        return TypeAdapter(schema).json_schema()
    raise ValueError(f"Invalid context schema type: {schema}. Must be a BaseModel, TypedDict or dataclass.")


def config_model(langchains: Any, context_schema: Any) -> Any:
    """A graph's config model, as LangGraph's ``config_schema``: a ``configurable`` field typed by its context
    schema (when it has one), then the fields LangChain's model (``langchains``) has for ``include``."""
    if context_schema is None:
        return langchains
    from pydantic import create_model

    fields: dict[str, Any] = {"configurable": (context_schema, None)}
    fields.update((name, (f.annotation, f)) for name, f in langchains.model_fields.items() if name != "configurable")
    return create_model(str(langchains.__name__), **fields)


def lowlevel_options(graph: Any, nodes: Any, channels: Any, interrupt_before: Any, interrupt_after: Any, options: dict[str, Any]) -> tuple[Any, ...]:
    """LangGraph's ``Pregel(nodes=, channels=, input_channels=, output_channels=, ...)``, as the loop's parts;
    the options that are the graph's own (``debug``, ``stream_mode``, ``config``...) set on ``graph``."""
    missing = [k for k in ("input_channels", "output_channels") if k not in options]
    if missing:
        raise TypeError(f"Pregel() missing required keyword arguments: {', '.join(map(repr, missing))}")
    inputs, outputs = options.pop("input_channels"), options.pop("output_channels")
    streams = options.pop("stream_channels", None)
    before = options.pop("interrupt_before_nodes", interrupt_before) or ()
    after = options.pop("interrupt_after_nodes", interrupt_after) or ()
    retry = options.pop("retry_policy", ())
    graph.step_timeout = options.pop("step_timeout", None)
    graph.debug = bool(options.pop("debug", None))  # as compile(debug=True): calls print their updates and values
    graph.stream_mode = options.pop("stream_mode", "values")
    graph.config = options.pop("config", None)
    graph.stream_transformers = tuple(options.pop("stream_transformers", None) or ())  # for stream_events(version="v3")
    validate = options.pop("auto_validate", True)
    cache_policy = options.pop("cache_policy", None)
    for unused in ("stream_eager", "trigger_to_nodes"):
        options.pop(unused, None)
    if options:
        raise TypeError(f"Pregel() got unexpected keyword arguments: {', '.join(sorted(options))}")
    _, chans, specs, stream_keys = lowlevel_graph(
        nodes, channels, input_channels=inputs, output_channels=outputs, stream_channels=streams,
        interrupt_before=before, interrupt_after=after, retry_policy=retry, cache_policy=cache_policy, validate=validate,
    )  # fmt: skip
    graph.input_channels, graph.output_channels, graph.stream_channels = inputs, outputs, streams
    graph.retry_policy = retry
    keys = frozenset([stream_keys] if isinstance(stream_keys, str) else stream_keys)
    return specs, chans, inputs, outputs, keys, stream_keys, before, after
