"""Pregel: a compiled graph's public API.

Everything here is async at heart. ``aevents`` is the one run driver
(:mod:`._launch` builds the run); the LangGraph-shaped ``astream``/``ainvoke``
project its events (:mod:`._outputs`); reading and updating a thread's state
is :class:`~engine.pregel._state_api.StateAPI`'s, an object of its own. The sync
``stream``/``invoke``/``get_state``... are derived from the async ones through
:mod:`engine._internal._sync` (under the sync face, sync nodes run inline on
the calling thread instead of a worker thread).
"""

from __future__ import annotations

import copy
import dataclasses
import types
from operator import attrgetter
from typing import Any, AsyncIterator, Iterator, Mapping, Sequence

from engine._internal._config import DEFAULT_RECURSION_LIMIT
from engine._langchain import runnable_class
from engine._internal._sync import iter_sync, run_sync
from engine._internal._deprecated import deprecated, renamed
from engine._internal._unsupported import WHERE_IT_DIFFERS
from engine.warnings import LangGraphDeprecatedSinceV10
from engine.channels.base import BaseChannel
from engine.checkpoint.base import CheckpointTuple, Lease
from engine.events import Event
from engine.pregel._algo import trigger_index
from engine._internal._config import merge_configs
from engine.pregel._launch import launch
from engine.pregel._landing import Landing
from engine.pregel.protocol import PregelProtocol
from engine.pregel._node_builder import channels_model, config_model, context_jsonschema, copied, input_mapper, lowlevel_options
from engine.pregel._io import input_writes
from engine.pregel._outputs import invoke_value, stream_chunks
from engine.pregel._v3 import astream_events_v3, stream_events_v3
from engine.pregel._resume import NO_ANSWER, Resume, plan_resume
from engine.pregel._savers import allow_stored
from engine.pregel._snapshot import build_snapshot
from engine.pregel._state_api import StateAPI
from engine.pregel._spec import GraphSpec, NodeSpec
from engine.types import START, Command, StateSnapshot

__all__ = ["Pregel"]



# LangChain's Runnable when installed: as LangGraph's, a compiled graph is then a Runnable (batch, astream_events,
# with_retry, | and the rest come from langchain-core, on top of this class's invoke/astream)
def _alias_of(name: str) -> Any:
    """An attribute that reads and sets the attribute ``name``."""
    return property(attrgetter(name), lambda self, value: setattr(self, name, value))


class Pregel(runnable_class() or object):  # type: ignore[misc]
    """A compiled graph. Build one with ``StateGraph(...).compile()``."""

    default_recursion_limit = DEFAULT_RECURSION_LIMIT
    #: what ``stream()`` yields without a ``stream_mode`` (a compiled StateGraph: "updates")
    stream_mode: str = "values"
    #: seconds each superstep's tasks may run, as LangGraph's: a step still running then fails with
    #: TimeoutError, its tasks still running cancelled (``graph.step_timeout = 30``; None: no limit)
    step_timeout: float | None = None
    #: the transformer factories every ``stream_events(version="v3")`` run of the graph adds (``compile(transformers=)``)
    stream_transformers: tuple[Any, ...] = ()

    def __init__(
        self,
        *,
        nodes: dict[str, Any],
        channels: dict[str, BaseChannel[Any, Any, Any]] | None,
        builder: Any = None,
        input_keys: Sequence[str] = (),
        output_keys: Sequence[str] | str = (),
        state_keys: frozenset[str] = frozenset(),
        stream_keys: Sequence[str] | str | None = None,
        checkpointer: Any = None,
        store: Any = None,
        interrupt_before: Any = (),
        interrupt_after: Any = (),
        name: str = "LangGraph",
        context_schema: Any = None,
        cache: Any = None,
        **lowlevel: Any,
    ) -> None:
        """A compiled graph. ``StateGraph.compile()`` and ``@entrypoint`` make one from their
        nodes; LangGraph's low-level form (``Pregel(nodes={name: NodeBuilder()...},
        channels=, input_channels=, output_channels=, ...)``) is taken too (:mod:`._node_builder`)."""
        if (config_type := lowlevel.pop("config_type", None)) is not None:
            renamed("config_type", "context_schema", since=LangGraphDeprecatedSinceV10)
            context_schema = context_schema if context_schema is not None else config_type
        if builder is None and (lowlevel or not all(isinstance(n, NodeSpec) for n in nodes.values())):
            nodes, channels, input_keys, output_keys, state_keys, stream_keys, interrupt_before, interrupt_after = (
                lowlevel_options(self, nodes, channels, interrupt_before, interrupt_after, lowlevel)
            )
        elif lowlevel:
            raise TypeError(f"Pregel() got unexpected keyword arguments: {', '.join(sorted(lowlevel))}")
        assert channels is not None
        self.builder = builder
        #: what a call's ``context=`` is coerced into (``StateGraph(context_schema=...)``)
        self.context_schema = context_schema
        #: where nodes with a cache policy keep their writes (``compile(cache=...)``), or None
        self.cache = cache
        self.nodes = nodes
        self.channels = channels
        self.input_keys = tuple(input_keys)
        # one channel's name (an entrypoint's END): the graph's value is that channel's, not a dict
        self.output_keys: tuple[str, ...] | str = output_keys if isinstance(output_keys, str) else tuple(output_keys)
        self.state_keys = state_keys
        self.checkpointer = checkpointer
        # The long-term memory store (engine.store) nodes receive; None: none.
        self.store = store
        self.interrupt_before = interrupt_before
        self.interrupt_after = interrupt_after
        #: what a run of this graph is made of (a host sets the checkpointer and store apart)
        self.spec = GraphSpec(
            name=name,
            nodes=nodes,
            channels=channels,
            triggers_to_nodes=trigger_index(nodes),
            output_keys=self.output_keys,
            state_keys=state_keys,
            command_writes=self.map_command,
            input_writes=input_mapper(input_keys if isinstance(input_keys, str) else tuple(input_keys)) if self.input_channels is not None else input_writes,
            untracked=frozenset(k for k, c in channels.items() if not c.tracked),
            edges=tuple(sorted(getattr(builder, "edges", ()))),
            stream_keys=(
                tuple(k for k in channels if k in state_keys)
                if stream_keys is None
                else stream_keys if isinstance(stream_keys, str) else tuple(stream_keys)
            ),
        )

    #: a low-level graph's (LangGraph's ``Pregel(input_channels=...)``); None for a compiled StateGraph
    input_channels: str | Sequence[str] | None = None
    output_channels: str | Sequence[str] | None = None
    stream_channels: str | Sequence[str] | None = None
    retry_policy: Sequence[Any] = ()

    # LangGraph's names of the graph's static breakpoints, read and set as its attributes are
    interrupt_before_nodes = _alias_of("interrupt_before")
    interrupt_after_nodes = _alias_of("interrupt_after")

    @property
    def InputType(self) -> Any:  # noqa: N802 - LangChain's name
        """What a call takes: one input channel's write type (else anything)."""
        inputs = self.input_channels if self.input_channels is not None else self.input_keys
        if not isinstance(inputs, str) and len(inputs) == 1 and inputs[0] == START:
            inputs = START  # an entrypoint's: its one input channel
        return self.channels[inputs].UpdateType if isinstance(inputs, str) and inputs in self.channels else Any

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        """What a call returns: one output channel's value type (else anything)."""
        outputs = self.output_keys
        return self.channels[outputs].ValueType if isinstance(outputs, str) and outputs in self.channels else Any

    def get_input_schema(self, config: Any = None) -> Any:
        """A low-level graph with several input channels: a model of them (LangGraph's); else LangChain's, of ``InputType``."""
        if self.input_channels is None or isinstance(self.input_channels, str):
            return super().get_input_schema(config)
        return channels_model(self.get_name("Input"), self.channels, self.input_channels, update=True)

    def get_output_schema(self, config: Any = None) -> Any:
        """A low-level graph with several output channels: a model of them; else LangChain's, of ``OutputType``."""
        if self.output_channels is None or isinstance(self.output_channels, str):
            return super().get_output_schema(config)
        return channels_model(self.get_name("Output"), self.channels, self.output_channels, update=False)

    def config_schema(self, *, include: Sequence[str] | None = None) -> Any:
        """LangChain's config schema (LangGraph deprecates it for :meth:`get_context_jsonschema`)."""
        deprecated("`config_schema` is deprecated. Use `get_context_jsonschema` for the relevant schema instead.")
        return config_model(super().config_schema(include=include), self.context_schema)

    def get_config_jsonschema(self, *, include: Sequence[str] | None = None) -> dict[str, Any]:
        deprecated("`get_config_jsonschema` is deprecated. Use `get_context_jsonschema` instead.")
        return config_model(super().config_schema(include=include), self.context_schema).model_json_schema()  # type: ignore[no-any-return]

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """The JSON Schema of the graph's ``context_schema`` (None without one), as LangGraph's."""
        return context_jsonschema(self.context_schema)

    def copy(self, update: Mapping[str, Any] | None = None) -> "Pregel":
        """A copy of this graph, with ``update``'s attributes replaced (LangGraph's ``Pregel.copy``)."""
        return copied(self, update)  # type: ignore[no-any-return]

    #: the schemas whose classes a saver of this graph may store (a StateGraph's, an entrypoint's annotations)
    stored_schemas: Sequence[Any] = ()

    @property
    def checkpointer(self) -> Any:
        """Where threads are kept: compile()'s saver, or one a host sets later (see :func:`~engine.pregel._savers.allow_stored`)."""
        return self._checkpointer

    @checkpointer.setter
    def checkpointer(self, saver: Any) -> None:
        self._checkpointer = saver
        allow_stored(self.stored_schemas, saver)

    @property
    def name(self) -> str:
        return self.spec.name

    @name.setter
    def name(self, value: str) -> None:  # a host serving a compiled graph under its own name
        self.spec = dataclasses.replace(self.spec, name=value)

    def map_command(self, cmd: Command[Any]) -> list[tuple[str, Any]]:
        """A ``Command`` given as input: its update and goto as channel writes."""
        raise NotImplementedError(f"{type(self).__name__} takes no Command input; see {WHERE_IT_DIFFERS}")

    #: ``compile(debug=True)``: every stream prints its "updates" and "values" (as ``debug=True`` does)
    debug: bool = False

    #: Defaults ``with_config`` set, merged under every call's config.
    config: dict[str, Any] | None = None

    def with_config(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> "Pregel":
        """A copy of this graph whose calls run with ``config`` (and ``kwargs``) as defaults."""
        clone = copy.copy(self)
        clone.config = merge_configs(self.config, config, kwargs)
        return clone

    # -- running: engine.pregel._launch, engine.pregel._outputs ------------------
    def aevents(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        durability: str | None = None,
        kinds: frozenset[type[Event]] | set[type[Event]] | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        run_id: str | None = None,
        lease: Lease | None = None,
        thread_name: str | None = None,
        strict: bool = False,
        subgraphs: bool = True,
        context: Any = None,
        linger: float = 0.0,
        landing: Landing | None = None,
        _inline_sync: bool = False,
        **langgraph_options: Any,
    ) -> AsyncIterator[Event]:
        """Run the graph and yield its :mod:`engine.events`, ending with RunFinished (the options: :mod:`._launch`).

        Node errors and the recursion limit end the run with a RunFinished
        whose reason says so (the exception is on ``RunFinished.exception``);
        so does cancellation (RunFinished "CANCELLED" once the versions written
        have landed, then the CancelledError goes on). Problems with the call
        itself (unknown checkpoint, nothing to resume, no input) raise before
        the first event; a storage failure raises CheckpointError (nothing
        could record the run's end). ``input`` may be a host's
        :class:`~engine.pregel._resume.Resume` (see :meth:`aplan_resume`).
        Called from inside a running node, the graph runs as a subgraph of
        that node's run (:mod:`engine.pregel._nested`).
        """
        return launch(
            self, input, config, durability=durability, kinds=kinds, interrupt_before=interrupt_before, interrupt_after=interrupt_after,
            run_id=run_id, lease=lease, thread_name=thread_name, strict=strict, subgraphs=subgraphs, context=context,
            inline_sync=_inline_sync, langgraph_options=langgraph_options, linger=linger, landing=landing,
        )  # fmt: skip

    async def aplan_resume(
        self,
        config: Mapping[str, Any],
        *,
        answer: Any = NO_ANSWER,
        answers: Mapping[str, Any] | None = None,
        answers_name: str = "answers",
        thread_name: str | None = None,
    ) -> Resume:
        """What a host's resume arriving now answers (:func:`~engine.pregel._resume.plan_resume`), to pass to
        :meth:`aevents` as its input, which checks it again once the run has loaded the thread."""
        state = await self.aget_state(config)
        thread = thread_name if thread_name is not None else str((config.get("configurable") or {}).get("thread_id"))
        return plan_resume(state, thread=thread, graph=self.name, answer=answer, answers=answers, answers_name=answers_name)

    def astream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: str | Sequence[str] | None = None,
        print_mode: str | Sequence[str] = (),
        debug: bool | None = None,
        subgraphs: bool = False,
        _inline_sync: bool = False,
        **langgraph_options: Any,
    ) -> AsyncIterator[Any]:
        """LangGraph's ``stream`` (:func:`~engine.pregel._outputs.stream_chunks`). ``print_mode``: modes printed
        to stdout as they come (not yielded unless streamed too), as LangGraph's; ``debug=True`` (or
        ``compile(debug=True)``) prints "updates" and "values". The rest: :meth:`aevents`'s options."""
        return stream_chunks(
            self, input, config, stream_mode=stream_mode, print_mode=print_mode, debug=debug,
            subgraphs=subgraphs, inline_sync=_inline_sync, run_options=langgraph_options,
        )  # fmt: skip

    def stream(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Iterator[Any]:
        return iter_sync(self.astream(input, config, _inline_sync=True, **kwargs))

    def stream_events(
        self, input: Any, config: Mapping[str, Any] | None = None, *, version: str = "v2",
        transformers: Sequence[Any] | None = None, **kwargs: Any,
    ) -> Any:  # fmt: skip
        """``version="v3"``: the run as a :class:`~engine.stream.GraphRunStream` (:mod:`._v3`); else LangChain's."""
        if version == "v3":
            return stream_events_v3(self, input, config, transformers, kwargs)
        return super().stream_events(input, config, version=version, **kwargs)

    def astream_events(
        self, input: Any, config: Mapping[str, Any] | None = None, *, version: str = "v2",
        transformers: Sequence[Any] | None = None, **kwargs: Any,
    ) -> Any:  # fmt: skip
        """``version="v3"``: awaits to an :class:`~engine.stream.AsyncGraphRunStream`; else LangChain's event stream."""
        if version == "v3":
            return astream_events_v3(self, input, config, transformers, kwargs)
        return super().astream_events(input, config, version=version, **kwargs)

    async def ainvoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        return await invoke_value(self, input, config, False, kwargs)

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        return run_sync(invoke_value(self, input, config, True, kwargs))

    async def aclear_cache(self, nodes: Sequence[str] | None = None) -> None:
        """Forget the cached writes of ``nodes`` (None: of every node)."""
        if self.cache is None:
            raise ValueError("No cache is set for this graph. Cannot clear cache.")
        names = self.nodes if nodes is None else nodes
        await self.cache.aclear([self.nodes[n].cache_ns for n in names if n in self.nodes and self.nodes[n].cache_ns])

    def clear_cache(self, nodes: Sequence[str] | None = None) -> None:
        run_sync(self.aclear_cache(nodes))

    # -- a thread's state: engine.pregel._state_api ------------------------------
    def __class_getitem__(cls, params: Any) -> Any:
        # ``Pregel[State]`` / ``CompiledStateGraph[State, Context, Input, Output]`` in annotations, as LangGraph's generics
        return types.GenericAlias(cls, params)

    def get_subgraphs(self, *, namespace: str | None = None, recurse: bool = False) -> Iterator[tuple[str, Any]]:
        """The subgraphs of this graph, as ``(namespace, graph)`` (:meth:`StateAPI.get_subgraphs`)."""
        return StateAPI(self).get_subgraphs(namespace=namespace, recurse=recurse)

    async def aget_subgraphs(self, *, namespace: str | None = None, recurse: bool = False) -> AsyncIterator[tuple[str, Any]]:
        for pair in self.get_subgraphs(namespace=namespace, recurse=recurse):
            yield pair

    def snapshot(self, saved: CheckpointTuple, *, live: bool = False, run_ids: bool = False) -> StateSnapshot:
        """The StateSnapshot of a stored checkpoint (pure: no I/O); see :mod:`._snapshot`."""
        return build_snapshot(self.spec, saved, live=live, run_ids=run_ids)

    async def aget_state(self, config: Mapping[str, Any], *, subgraphs: bool = False, run_ids: bool = False) -> StateSnapshot:
        """The newest version of the thread, or the one ``config`` names (:meth:`StateAPI.aget_state`)."""
        return await StateAPI(self).aget_state(config, subgraphs=subgraphs, run_ids=run_ids)

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False, run_ids: bool = False) -> StateSnapshot:
        return run_sync(self.aget_state(config, subgraphs=subgraphs, run_ids=run_ids))

    async def aget_state_history(self, config: Mapping[str, Any], **kwargs: Any) -> AsyncIterator[StateSnapshot]:
        """The thread's versions, newest first (``filter``, ``before``, ``limit``: :meth:`StateAPI.aget_state_history`)."""
        async for snapshot in StateAPI(self).aget_state_history(config, **kwargs):
            yield snapshot

    def get_state_history(self, config: Mapping[str, Any], **kwargs: Any) -> Iterator[StateSnapshot]:
        return iter_sync(self.aget_state_history(config, **kwargs))

    async def aupdate_state(
        self, config: Mapping[str, Any], values: Any, as_node: str | None = None, task_id: str | None = None, *, lease: Lease | None = None
    ) -> dict[str, Any]:
        """Write a version as if node ``as_node`` returned ``values`` (:meth:`StateAPI.aupdate_state`)."""
        return await StateAPI(self).aupdate_state(config, values, as_node, task_id, lease=lease)

    def update_state(
        self, config: Mapping[str, Any], values: Any, as_node: str | None = None, task_id: str | None = None, *, lease: Lease | None = None
    ) -> dict[str, Any]:
        return run_sync(self.aupdate_state(config, values, as_node, task_id, lease=lease))

    async def abulk_update_state(self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]) -> dict[str, Any]:
        """One version per superstep of updates (:meth:`StateAPI.abulk_update_state`); the last one's config."""
        return await StateAPI(self).abulk_update_state(config, supersteps)

    def bulk_update_state(self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]) -> dict[str, Any]:
        return run_sync(self.abulk_update_state(config, supersteps))

    async def adelete_thread(self, thread_id: str) -> None:
        await StateAPI(self).adelete_thread(thread_id)



PregelProtocol.register(Pregel)  # a compiled graph is LangGraph's PregelProtocol (engine.pregel.protocol)
