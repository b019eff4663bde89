"""What the loop runs: a compiled graph's frozen description, its nodes, and the constants the loop reserves."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from engine.checkpoint._writes import NULL_TASK_ID  # a resume meant for whichever task waits, a Command's writes
from engine.checkpoint.serde.types import TASKS  # the topic channel that carries Send packets to the next step
from engine.types import CachePolicy, Command, RetryPolicy, TimeoutPolicy

if TYPE_CHECKING:
    from engine.channels.base import BaseChannel

__all__ = [
    "GraphSpec", "NodeSpec", "PULL", "PUSH", "TASKS", "INTERRUPT_SEEN", "NULL_TASK_ID", "NO_WRITES", "WRITTEN_BEFORE",
    "ERROR_SOURCE_NODE", "Writer",
]  # fmt: skip

# first part of a task's path, as LangGraph's: a node's task (PULL, name), a Send's (PUSH, index, False)
PULL = "__pregel_pull"
PUSH = "__pregel_push"
# versions_seen key recording channel versions at the last static breakpoint.
INTERRUPT_SEEN = "__interrupt__"
# versions_seen key of a call's input (it has no triggers: always {}), as LangGraph's checkpoints hold it.
INPUT_SEEN = "__input__"
# a run's checkpoints' "v": LangGraph 1.x's format (sends as the tasks channel's values, no pending_sends)
CHECKPOINT_FORMAT = 4
# pending write of a task that finished without writing anything (so it reads as finished).
NO_WRITES = "__no_writes__"
# pending write beside a failed task's error when its node's error handler took the failure over
# (its value: the node's name), as LangGraph's: a resumed step runs the handler, not the node again
ERROR_SOURCE_NODE = "__error_source_node__"
# attribute of an exception a node's router raised: the writes the node made before it (its update, its edges)
WRITTEN_BEFORE = "__graphwire_written_before__"

# writer(result, state, config) -> [(channel, value), ...] (or an awaitable of it);
# ``state`` is the state as the task saw it when planned.
Writer = Callable[[Any, Any, dict], "list[tuple[str, Any]]"]


@dataclass(slots=True)
class NodeSpec:
    """A node as the loop sees it, independent of how the graph was built.

    ``read`` builds the node's input from the channels when it is planned;
    ``proc`` is the user's function; ``writer`` turns its return value (and
    the state the task was planned with) into channel writes: state updates, edges taken,
    Sends. ``accepts_config`` says whether ``proc`` takes a ``config`` argument.
    """

    name: str
    triggers: tuple[str, ...]
    read: Callable[[dict[str, Any]], Any]
    proc: Callable[..., Any] | None
    writer: Writer
    is_async: bool = False
    accepts_config: bool = False
    # whether ``proc`` takes a ``store`` argument (LangGraph's injection: by name, typed BaseStore or untyped)
    accepts_store: bool = False
    retry_policy: Sequence[RetryPolicy] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    # keys of state channels, for reporting a node's update
    state_keys: frozenset[str] = frozenset()
    # the compiled graph, when the node is one (a subgraph): for its tasks' state and namespaces
    subgraph: Any = None
    # add_node(cache_policy=): its writes are cached under cache_ns (with compile(cache=))
    cache_policy: CachePolicy | None = None
    cache_ns: tuple[str, ...] = ()
    # no function and no routers (START without conditional edges): its task's writes are
    # its writer's of its input, and no user code runs, so the task needs no node context
    bare: bool = False
    # add_node(error_handler=): the node that runs in this one's step once it failed past its retries
    # (engine.pregel._handlers); add_node(timeout=): how long an attempt may run (engine.pregel._timeout)
    error_handler: "NodeSpec | None" = None
    timeout: TimeoutPolicy | None = None
    # the node as it was added (a function, a Runnable, a compiled graph): what ``bound`` shows
    action: Any = None
    # the same node as an async run calls it, when that differs (a LangGraph RunnableCallable with both
    # faces: its async one, as LangGraph's ``ainvoke`` runs ``afunc``); see GraphSpec.for_async
    async_twin: "NodeSpec | None" = None
    _bound: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def bound(self) -> Any:
        """The node as a Runnable, as LangGraph's ``PregelNode.bound`` (a function made a
        ``RunnableCallable``; START's: the identity). The loop runs ``proc``, never this. Needs langchain-core."""
        if self._bound is None:
            from engine._internal._runnable import RunnableCallable, coerce_to_runnable

            action = self.action
            self._bound = RunnableCallable(_identity) if action is None else coerce_to_runnable(action, name=self.name, trace=False)
        return self._bound

    @property
    def subgraphs(self) -> list[Any]:
        """The compiled graphs the node runs (LangGraph's ``PregelNode.subgraphs``): itself one, or one it calls;
        as LangGraph's, not one compiled with ``checkpointer=False`` (it keeps no state of its own)."""
        sub = self.subgraph
        return [] if sub is None or getattr(sub, "checkpointer", None) is False else [sub]

    def _config(self, config: Any) -> Any:
        from engine._internal._runnable import node_config

        return node_config(self.metadata, config)

    # LangGraph's PregelNode.invoke & co.: the node's function alone on ``input`` (no channels read, nothing written)
    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        return self.bound.invoke(input, self._config(config), **kwargs)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        return await self.bound.ainvoke(input, self._config(config), **kwargs)

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        yield from self.bound.stream(input, self._config(config), **kwargs)

    async def astream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        async for item in self.bound.astream(input, self._config(config), **kwargs):
            yield item

    def copy(self, update: Mapping[str, Any] | None = None) -> "NodeSpec":
        """A copy with ``update``'s fields replaced (LangGraph's ``PregelNode.copy``)."""
        import dataclasses

        return dataclasses.replace(self, **(update or {}))


def _identity(input: Any) -> Any:
    return input


@dataclass(frozen=True, slots=True)
class GraphSpec:
    """A compiled graph as one run of it sees it: what it is made of, nothing more.

    The loop, the runner and the snapshot reader take this rather than the
    compiled graph: what a host sets on a graph after compiling it (its
    checkpointer, its store) is passed to a run as arguments of its own, so
    a subgraph's run can be given its parent's saver. The mappings are the
    compiled graph's own, never changed after compile.
    """

    name: str
    nodes: Mapping[str, NodeSpec]
    channels: Mapping[str, "BaseChannel"]
    #: channel -> the nodes it triggers, in definition order
    triggers_to_nodes: Mapping[str, tuple[str, ...]]
    #: the keys ``invoke`` returns (the output schema's)
    output_keys: tuple[str, ...] | str
    #: the state's keys: a task's ``update`` is its writes to these
    state_keys: frozenset[str]
    #: a ``Command`` given as input, as the channel writes of its update and goto
    command_writes: Callable[[Command], "list[tuple[str, Any]]"]
    #: the keys snapshots, the values and checkpoints streams and a task's ``result`` report:
    #: the whole state, private keys included, as LangGraph's stream channels
    #: (one channel's name: the graph's values are that channel's value, as an entrypoint's END)
    stream_keys: tuple[str, ...] | str = ()
    #: the stream keys before a call's ``output_keys`` narrowed them (``invoke`` narrows to the output
    #: schema's): the checkpoints and debug streams show these, as LangGraph's (None: ``stream_keys``)
    checkpoint_keys: tuple[str, ...] | str | None = None
    #: a call's new input as channel writes (a StateGraph's: all of it to START)
    input_writes: Callable[[Any], "list[tuple[str, Any]]"] | None = None
    #: channels no version stores (UntrackedValue): the writer leaves them and writes to them out
    untracked: frozenset[str] = frozenset()
    #: a StateGraph's plain edges ``(source, target)``: what migrating LangGraph's "v" 1 checkpoints needs
    edges: tuple[tuple[str, str], ...] = ()
    #: DeltaChannel keys: versions store their writes and snapshots (engine.pregel._delta); from ``channels``
    deltas: tuple[str, ...] = field(init=False, default=())

    #: for_async's spec, made on first use
    _async: "GraphSpec | None" = field(init=False, default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "deltas", tuple(k for k, c in self.channels.items() if c.delta))

    @property
    def version_keys(self) -> tuple[str, ...] | str:
        """The keys a version's values are shown with (the checkpoints and debug streams, a task's result):
        :attr:`checkpoint_keys` where a call's output keys narrowed :attr:`stream_keys`, else those."""
        return self.stream_keys if self.checkpoint_keys is None else self.checkpoint_keys

    def for_async(self) -> "GraphSpec":
        """The spec an async call runs (``ainvoke``, ``astream``, a server's run): each node with an
        async twin (:attr:`NodeSpec.async_twin`) replaced by it; this spec itself when there is none."""
        if self._async is None:
            twins = {name: n.async_twin for name, n in self.nodes.items() if n.async_twin is not None}
            made = dataclasses.replace(self, nodes={**self.nodes, **twins}) if twins else self
            object.__setattr__(self, "_async", made)
        return self._async  # type: ignore[return-value]
