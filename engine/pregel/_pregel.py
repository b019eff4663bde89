"""Pregel: a compiled graph's public API.

Everything here is async at heart. ``aevents`` is the one run driver; the
LangGraph-shaped ``astream``/``ainvoke`` project its events, and the sync
``stream``/``invoke``/``get_state``... are derived from the async ones through
:mod:`engine._internal._sync` (under the sync face, sync nodes run inline on
the calling thread instead of a worker thread).
"""

from __future__ import annotations

import copy
import dataclasses
import os
from contextlib import aclosing
from typing import Any, AsyncIterator, Iterator, Mapping, Sequence

from engine._internal._ids import random_uuid
from engine._internal._sync import iter_sync, run_sync
from engine._internal._deprecated import deprecated, renamed
from engine._internal._unsupported import WHERE_IT_DIFFERS, refuse
from engine.warnings import LangGraphDeprecatedSinceV10
from engine.channels.base import BaseChannel
from engine.checkpoint.base import (
    Lease,
)
from engine.errors import GraphInterrupt
from engine.events import Event, RunFinished
from engine.pregel._algo import trigger_index
from engine.pregel._graph_run import lifecycle, merge_configs, reported, start_graph_run
from engine.pregel._loop import RunLoop
from engine.pregel._node_builder import channels_model, context_jsonschema, copied, input_mapper, lowlevel_graph
from engine.pregel._io import input_writes
from engine.pregel._nested import NestedHost, current_host, forwarded, nested_config, nested_kinds, subgraph_ns
from engine.pregel._options import durability_of
from engine.pregel._resume import NO_ANSWER, Resume, plan_resume
from engine.pregel._run import RunSettings
from engine.pregel._state_api import StateAPI
from engine.pregel._run_context import coerce_context
from engine.pregel._spec import GraphSpec, NodeSpec
from engine.pregel._stream import Projector, kinds_for, print_chunk, with_output_keys
from engine.types import START, Command

__all__ = ["Pregel"]

DEFAULT_RECURSION_LIMIT = int(os.environ.get("LANGGRAPH_DEFAULT_RECURSION_LIMIT", "10007"))


def _runnable_base() -> type:
    """LangChain's ``Runnable`` when langchain-core is installed (else ``object``).

    As LangGraph's, a compiled graph is then a Runnable: ``batch``/``abatch``,
    ``astream_events``, ``with_retry``, ``|`` and the rest come from
    langchain-core, on top of this class's ``invoke``/``astream`` (which
    report the run and its nodes to the config's callbacks).
    """
    try:
        from langchain_core.runnables import Runnable
    except ImportError:
        return object
    return Runnable


class Pregel(StateAPI, _runnable_base()):  # type: ignore[misc]
    """A compiled graph. Build one with ``StateGraph(...).compile()``."""

    default_recursion_limit = DEFAULT_RECURSION_LIMIT
    #: what ``stream()`` yields without a ``stream_mode`` (a compiled StateGraph: "updates")
    stream_mode: str = "values"

    def __init__(
        self,
        *,
        nodes: dict[str, Any],
        channels: dict[str, BaseChannel] | None,
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
                self._lowlevel(nodes, channels, interrupt_before, interrupt_after, lowlevel)
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

    def _lowlevel(self, nodes: Any, channels: Any, interrupt_before: Any, interrupt_after: Any, options: dict[str, Any]) -> tuple[Any, ...]:
        """LangGraph's ``Pregel(nodes=, channels=, input_channels=, output_channels=, ...)``, as the loop's parts."""
        missing = [k for k in ("input_channels", "output_channels") if k not in options]
        if missing:
            raise TypeError(f"Pregel() missing required keyword arguments: {', '.join(map(repr, missing))}")
        inputs, outputs = options.pop("input_channels"), options.pop("output_channels")
        streams = options.pop("stream_channels", None)
        before = options.pop("interrupt_before_nodes", interrupt_before) or ()
        after = options.pop("interrupt_after_nodes", interrupt_after) or ()
        retry = options.pop("retry_policy", ())
        refuse("Pregel", step_timeout=options.pop("step_timeout", None))
        self.debug = bool(options.pop("debug", None))  # as compile(debug=True): calls print their updates and values
        self.stream_mode = options.pop("stream_mode", "values")
        self.config = options.pop("config", None)
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
        self.input_channels, self.output_channels, self.stream_channels = inputs, outputs, streams
        self.retry_policy = retry
        keys = frozenset([stream_keys] if isinstance(stream_keys, str) else stream_keys)
        return specs, chans, inputs, outputs, keys, stream_keys, before, after

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
            return super().get_input_schema(config)  # type: ignore[misc]
        return channels_model(self.get_name("Input"), self.channels, self.input_channels, update=True)

    def get_output_schema(self, config: Any = None) -> Any:
        """A low-level graph with several output channels: a model of them; else LangChain's, of ``OutputType``."""
        if self.output_channels is None or isinstance(self.output_channels, str):
            return super().get_output_schema(config)  # type: ignore[misc]
        return channels_model(self.get_name("Output"), self.channels, self.output_channels, update=False)

    def config_schema(self, *, include: Sequence[str] | None = None) -> Any:
        """LangChain's config schema (LangGraph deprecates it for :meth:`get_context_jsonschema`)."""
        deprecated("`config_schema` is deprecated. Use `get_context_jsonschema` for the relevant schema instead.")
        return super().config_schema(include=include)  # type: ignore[misc]

    def get_config_jsonschema(self, *, include: Sequence[str] | None = None) -> dict[str, Any]:
        deprecated("`get_config_jsonschema` is deprecated. Use `get_context_jsonschema` instead.")
        return super().config_schema(include=include).model_json_schema()  # type: ignore[misc,no-any-return]

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """The JSON Schema of the graph's ``context_schema`` (None without one), as LangGraph's."""
        return context_jsonschema(self.context_schema)

    def copy(self, update: Mapping[str, Any] | None = None) -> "Pregel":
        """A copy of this graph, with ``update``'s attributes replaced (LangGraph's ``Pregel.copy``)."""
        return copied(self, update)  # type: ignore[no-any-return]

    @property
    def name(self) -> str:
        return self.spec.name

    @name.setter
    def name(self, value: str) -> None:  # a host serving a compiled graph under its own name
        self.spec = dataclasses.replace(self.spec, name=value)

    def map_command(self, cmd: Command) -> list[tuple[str, Any]]:
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

    # -- running -------------------------------------------------------------
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
        _inline_sync: bool = False,
        **langgraph_options: Any,
    ) -> AsyncIterator[Event]:
        """Run the graph and yield its :mod:`engine.events`, ending with RunFinished.

        Node errors and the recursion limit end the run with a RunFinished
        whose reason says so (the exception is on ``RunFinished.exception``);
        so does cancellation (RunFinished "CANCELLED" once the versions written
        have landed, then the CancelledError goes on). Problems with the call
        itself (unknown checkpoint, nothing to resume, no input) raise before
        the first event; a storage failure raises CheckpointError (nothing
        could record the run's end). ``input`` may be a host's
        :class:`~engine.pregel._resume.Resume` (see :meth:`aplan_resume`).
        ``lease``: the thread's lease, for a host that leases threads (see
        :mod:`engine.checkpoint.base`); every write of the run carries it.
        ``thread_name``: the caller's name of the thread, when the host stores
        it under another key (RunStarted and messages use it).
        ``strict``: refuse what LangGraph lets pass in process (a host's choice:
        the server's): a ``checkpoint_id`` the thread does not have raises
        NotFoundError, a ``Command(resume=...)`` with nothing to answer
        InvalidResumeError.
        ``langgraph_options``: the rest of LangGraph's run options
        (:func:`~engine.pregel._options.durability_of`).
        ``subgraphs``: the events of subgraphs running in its tasks come too,
        each with its namespace (``Event.ns``). Called from inside a running
        node, the graph runs as a subgraph of that node's run
        (:mod:`engine.pregel._nested`).
        ``context``: the run's context, which nodes read as ``runtime.context``
        (a dict is coerced into the graph's ``context_schema``, as in LangGraph).
        """
        output_keys = langgraph_options.pop("output_keys", None)
        control = langgraph_options.pop("control", None)
        durability = durability_of(durability, **langgraph_options)
        context = coerce_context(self.context_schema, context)
        if durability not in (None, "sync", "async", "exit"):
            raise ValueError(f"durability must be 'sync', 'async' or 'exit', not {durability!r}")
        wanted = frozenset(kinds) | {RunFinished} if kinds is not None else None
        host = current_host(config)
        if host is not None:
            return self._nested_events(host, input, config, wanted, durability, interrupt_before, interrupt_after, control)
        config = merge_configs(self.config, config)
        limit = config.get("recursion_limit")
        run = start_graph_run(self.name, input, config)
        settings = RunSettings(
            spec=self.spec if output_keys is None else with_output_keys(self.spec, output_keys),
            saver=self.checkpointer,
            store=self.store,
            cache=self.cache,
            durability=durability or "async",
            kinds=wanted,
            subgraph_kinds=wanted if subgraphs else frozenset(),
            inline_sync=_inline_sync,
            interrupt_before=self.interrupt_before if interrupt_before is None else interrupt_before,
            interrupt_after=self.interrupt_after if interrupt_after is None else interrupt_after,
            # A caller's metadata.run_id is the run's id (and stays in every version's metadata).
            run_id=run_id or str(((config or {}).get("metadata") or {}).get("run_id") or random_uuid()),
            recursion_limit=self.default_recursion_limit if limit is None else int(limit),
            context=context,
            lease=lease,
            thread_name=thread_name,
            strict=strict,
            control=control,
        )
        loop = RunLoop(settings, input, config)
        return loop.events() if run is None else reported(run, lifecycle(run, loop, input, config))

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

    def _nested_events(
        self,
        host: NestedHost,
        input: Any,
        config: Mapping[str, Any] | None,
        kinds: frozenset[type[Event]] | None,
        durability: str | None,
        interrupt_before: Any,
        interrupt_after: Any, control: Any,
    ) -> AsyncIterator[Event]:
        """This graph run as a subgraph, inside the task ``host`` belongs to (see :mod:`._nested`), its ``control`` the call's, else its parent's."""
        ib = self.interrupt_before if interrupt_before is None else interrupt_before
        ia = self.interrupt_after if interrupt_after is None else interrupt_after
        own = self.checkpointer
        saver = None if own is False else (host.saver if own is None or own is True else own)
        stable = own is True
        ns = subgraph_ns(host.parent_ns, host.node, host.task_id, stable=stable)
        ns = host.claim(ns)
        config = nested_config(host, merge_configs(self.config, config), ns)
        limit = config.get("recursion_limit")
        run = start_graph_run(self.name, input, config, nested=True)  # its chain run, under its node's
        settings = RunSettings(
            spec=self.spec,
            saver=saver,
            store=self.store if self.store is not None else host.store,
            cache=self.cache,
            durability=durability or host.durability,
            kinds=nested_kinds(kinds, host.kinds),
            subgraph_kinds=host.kinds,
            inline_sync=host.inline_sync,
            # its static breakpoints stop its parent's task (GraphInterrupt with no question), as LangGraph's
            interrupt_before=ib,
            interrupt_after=ia,
            run_id=host.run_id,
            recursion_limit=host.recursion_limit if limit is None else int(limit),
            context=host.task.context,  # as LangGraph: a subgraph's nodes see the parent run's context
            lease=host.lease if saver is host.saver else None,
            checkpoint_ns=ns,
            host=host,
            stable_ns=stable,
            control=control or host.task.control,  # as LangGraph: a drain of its parent's stops it too
        )
        loop = RunLoop(settings, input, config)
        if saver is None:
            loop.runner.delegate = host.task  # its questions are its parent task's
        events = loop.events() if run is None else reported(run, lifecycle(run, loop, input, config, tuple(ns.split("|"))), nested=True)
        return forwarded(events, host, tuple(ns.split("|")), kinds)

    async def astream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: str | Sequence[str] | None = None,
        print_mode: str | Sequence[str] = (),
        debug: bool | None = None,
        durability: str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        subgraphs: bool = False,
        _inline_sync: bool = False,
        **langgraph_options: Any,
    ) -> AsyncIterator[Any]:
        """LangGraph's ``stream``. ``print_mode``: modes printed to stdout as they come (not yielded
        unless streamed too), as LangGraph's; ``debug=True`` (or ``compile(debug=True)``) prints
        "updates" and "values"."""
        config = merge_configs(self.config, config)
        stream_mode = self.stream_mode if stream_mode is None else stream_mode
        streamed = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)
        printed = self._printed(print_mode, debug)
        modes = [*streamed, *(m for m in printed if m not in streamed)]
        single = isinstance(stream_mode, str)
        events = self.aevents(
            input,
            config,
            durability=durability,
            kinds=kinds_for(modes),
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
            subgraphs=subgraphs,
            _inline_sync=_inline_sync,
            **langgraph_options,
        )
        checkpointer = self.checkpointer is not None
        root = isinstance(self.output_keys, str)
        projectors = {(): Projector(modes, config or {}, checkpointer=checkpointer, root=root)}
        # A caller that breaks out of its loop closes the run there, which stores what it did
        # (with durability="exit", its newest version), as LangGraph's does on leaving its loop.
        async with aclosing(events):
            async for ev in events:
                projector = projectors.get(ev.ns)
                if projector is None:  # a subgraph's first event (asked for with subgraphs=True only)
                    projector = projectors[ev.ns] = Projector(modes, config or {}, checkpointer=checkpointer)
                for mode, payload in projector.project(ev):
                    if mode in printed:
                        print_chunk(mode, payload, ev.ns if subgraphs else ())
                        if mode not in streamed:
                            continue
                    if subgraphs:  # as LangGraph: each chunk under its namespace
                        yield (ev.ns, payload) if single else (ev.ns, mode, payload)
                    else:
                        yield payload if single else (mode, payload)
                if isinstance(ev, RunFinished) and ev.exception is not None:
                    raise ev.exception

    def _printed(self, print_mode: str | Sequence[str], debug: bool | None) -> list[str]:
        """The modes a call prints: ``print_mode``'s, or with ``debug`` "updates" and "values" (LangGraph's)."""
        if debug or (debug is None and self.debug):
            return ["updates", "values"]
        return [print_mode] if isinstance(print_mode, str) else list(print_mode)

    def stream(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Iterator[Any]:
        return iter_sync(self.astream(input, config, _inline_sync=True, **kwargs))

    async def _ainvoke(
        self, input: Any, config: Mapping[str, Any] | None, inline: bool, stream_mode: str = "values", **kwargs: Any
    ) -> Any:
        if stream_mode != "values":  # as LangGraph: then the list of chunks
            return [chunk async for chunk in self.astream(input, config, stream_mode=stream_mode, _inline_sync=inline, **kwargs)]
        kwargs.pop("subgraphs", None)  # LangGraph's invoke returns the same with or without
        keys = kwargs.get("output_keys")
        root = isinstance(self.output_keys if keys is None else keys, str)
        printed = self._printed(kwargs.pop("print_mode", ()), kwargs.pop("debug", None))
        if printed and keys is None:  # as LangGraph: what invoke streams (and prints) is its output's
            kwargs["output_keys"] = self.output_keys
        # As LangGraph's invoke(debug=True): the printed modes' chunks are printed as they come.
        projector = Projector(printed, merge_configs(self.config, config), checkpointer=self.checkpointer is not None, root=root) if printed else None
        final: RunFinished | None = None
        async for ev in self.aevents(input, config, kinds=kinds_for(printed) if printed else frozenset(), _inline_sync=inline, **kwargs):
            if projector is not None and not ev.ns:
                for mode, payload in projector.project(ev):
                    print_chunk(mode, payload, ())
            final = ev  # type: ignore[assignment]
        assert final is not None
        if final.exception is not None:
            raise final.exception
        if final.reason == "INTERRUPT" and current_host(config) is not None:
            raise GraphInterrupt(final.interrupts)  # a subgraph's (a breakpoint's: none): its parent's task stops with them
        if root:  # an entrypoint, a low-level graph's one output channel: its value itself
            if not final.interrupts:
                return final.values
            # As LangGraph: at an interrupt, the value it returned last (if a dict) and the questions.
            last = final.values if isinstance(final.values, dict) else {}
            return {**last, "__interrupt__": list(final.interrupts)}
        out: dict[str, Any] = dict(final.values or {})
        if final.interrupts:
            out["__interrupt__"] = list(final.interrupts)
        return out

    async def ainvoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        return await self._ainvoke(input, config, False, **kwargs)

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        return run_sync(self._ainvoke(input, config, True, **kwargs))

    async def aclear_cache(self, nodes: Sequence[str] | None = None) -> None:
        """Forget the cached writes of ``nodes`` (None: of every node)."""
        if self.cache is None:
            raise ValueError("No cache is set for this graph. Cannot clear cache.")
        names = self.nodes if nodes is None else nodes
        await self.cache.aclear([self.nodes[n].cache_ns for n in names if n in self.nodes and self.nodes[n].cache_ns])

    def clear_cache(self, nodes: Sequence[str] | None = None) -> None:
        run_sync(self.aclear_cache(nodes))

