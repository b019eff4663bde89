"""Starting a run of a compiled graph: its one frozen :class:`RunSettings`, built here, and its loop.

``Pregel.aevents`` is the one run driver; what it does with its options is
this module's. A run is either top-level (the graph's own saver, store and
cache; a new run id unless the caller names one) or nested: called from
inside a running node, the graph runs as a subgraph of that node's run
(:mod:`._nested`), on its host's saver, store, run id, durability and lease
unless it was compiled with its own.

The options:

* ``durability``: "sync", "async" (default) or "exit" (LangGraph's); the rest
  of LangGraph's run options (``checkpoint_during``...) are read by
  :func:`~engine.pregel._options.durability_of`.
* ``kinds``: the event kinds the caller wants (None: all); RunFinished comes always.
* ``interrupt_before``/``interrupt_after``: this call's breakpoints instead of the graph's.
* ``run_id``: the run's id (else the config's ``metadata.run_id``, else a new one).
* ``lease``: the thread's lease, for a host that leases threads
  (:mod:`engine.checkpoint.base`); every write of the run carries it.
* ``thread_name``: the caller's name of the thread, when the host stores it
  under another key (RunStarted and messages use it).
* ``strict``: refuse what LangGraph lets pass in process (a host's choice:
  the server's): a ``checkpoint_id`` the thread does not have raises
  NotFoundError, a ``Command(resume=...)`` with nothing to answer
  InvalidResumeError.
* ``subgraphs``: the events of subgraphs running in its tasks come too, each
  with its namespace (``Event.ns``).
* ``context``: the run's context, which nodes read as ``runtime.context``
  (a dict is coerced into the graph's ``context_schema``, as in LangGraph).
* ``output_keys`` (LangGraph's): the channels the run's values are read from.
* ``control``: a :class:`~engine.runtime.RunControl` that may drain the run (LangGraph's).
* ``linger`` (a host's, seconds, 0 by default): an "async" run's writer waits this long before
  writing what is queued, so versions made meanwhile share its write (:mod:`._writer`); a
  subgraph's run, in one of its tasks, lingers alike.
* ``landing`` (a host's): a :class:`~engine.pregel._writer.Landing` the run reports its stored
  versions to, through which the host may ask for them sooner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Mapping, Sequence

from engine._internal._ids import random_uuid
from engine.checkpoint.base import Lease
from engine.events import Event, RunFinished, TaskStarted
from engine._internal._config import merge_configs
from engine.pregel._graph_run import lifecycle, reported, start_graph_run
from engine.pregel._io import DURABILITY_KEY
from engine.pregel._loop import RunLoop
from engine.pregel._nested import (
    NestedHost, current_host, forwarded, handed_up, nested_config, nested_kinds, on_its_own, subgraph_ns, task_host,
)
from engine.pregel._options import durability_of
from engine.pregel._run import RunSettings
from engine.pregel._local import CONFIG_KEY_RUNTIME
from engine.pregel._savers import root_saver
from engine.pregel._run_context import coerce_context
from engine.pregel._spec import GraphSpec
from engine.pregel._stream import with_output_keys
from engine.pregel._landing import Landing
from engine.pregel.debug import node_task_metadata

if TYPE_CHECKING:
    from engine.pregel._graph_face import CompiledGraph

__all__ = ["launch"]


def launch(
    graph: CompiledGraph,
    input: Any,
    config: Mapping[str, Any] | None,
    *,
    durability: str | None,
    kinds: frozenset[type[Event]] | set[type[Event]] | None,
    interrupt_before: Sequence[str] | str | None,
    interrupt_after: Sequence[str] | str | None,
    run_id: str | None,
    lease: Lease | None,
    thread_name: str | None,
    strict: bool,
    subgraphs: bool,
    context: Any,
    inline_sync: bool,
    langgraph_options: dict[str, Any],
    linger: float = 0.0,
    landing: Landing | None = None,
) -> AsyncIterator[Event]:
    """The events of a run of ``graph`` (the options: the module's docstring), ending with RunFinished."""
    if isinstance(linger, bool) or not isinstance(linger, (int, float)) or not 0 <= linger <= 60:
        raise ValueError(f"linger must be a number of seconds from 0 to 60, not {linger!r}")
    output_keys = langgraph_options.pop("output_keys", None)
    control = langgraph_options.pop("control", None)
    durability = durability_of(durability, **langgraph_options)
    context = coerce_context(graph.context_schema, context)
    if durability not in (None, "sync", "async", "exit"):
        raise ValueError(f"durability must be 'sync', 'async' or 'exit', not {durability!r}")
    wanted = frozenset(kinds) | {RunFinished} if kinds is not None else None
    host = current_host(config)
    if host is not None:
        return _nested(graph, host, input, config, wanted, durability, interrupt_before, interrupt_after, control, output_keys)
    # A run of its own inside a task: its chat models' and tools' events reach a caller of the task's
    # run that streams subgraphs (LangGraph's handlers are inherited through the callbacks).
    outer = task_host()
    up = handed_up(outer)
    asked = wanted
    if up and wanted is not None:
        wanted = wanted | up
    config = merge_configs(graph.config, config)
    if durability is not None:  # as LangGraph: the nodes' configs carry a durability the call chose
        config["configurable"] = {**config["configurable"], DURABILITY_KEY: durability}
    else:
        durability = config["configurable"].get(DURABILITY_KEY)
    limit = config.get("recursion_limit")
    store = graph.store
    if (slot := config["configurable"].get(CONFIG_KEY_RUNTIME)) is not None:  # a caller's Runtime (LangGraph's server
        store = getattr(slot, "store", store)  # seeds one): its store the run's, its context when the call gives none
        context = coerce_context(graph.context_schema, getattr(slot, "context", None)) if context is None else context
    run = start_graph_run(graph.name, input, config)
    settings = RunSettings(
        spec=_spec(graph.spec if output_keys is None else with_output_keys(graph.spec, output_keys), inline_sync),
        saver=root_saver(graph, config),
        store=store,
        cache=graph.cache,
        durability=durability or "async",
        kinds=wanted,
        subgraph_kinds=wanted if subgraphs else frozenset(),
        inline_sync=inline_sync,
        sync_face=inline_sync,
        # as LangGraph's `interrupt_before or self.interrupt_before_nodes`: an empty list is the compiled ones too
        interrupt_before=interrupt_before or graph.interrupt_before,
        interrupt_after=interrupt_after or graph.interrupt_after,
        # A caller's metadata.run_id is the run's id (and stays in every version's metadata).
        run_id=run_id or str(((config or {}).get("metadata") or {}).get("run_id") or random_uuid()),
        recursion_limit=graph.default_recursion_limit if limit is None else int(limit),
        context=context,
        lease=lease,
        thread_name=thread_name,
        strict=strict,
        control=control,
        step_timeout=graph.step_timeout,
        linger=float(linger),
        landing=landing,
    )
    loop = RunLoop(settings, input, config)
    events = loop.events() if run is None else reported(run, lifecycle(run, loop, input, config))
    return events if outer is None else on_its_own(events, outer, up, asked)


def _nested(
    graph: CompiledGraph,
    host: NestedHost,
    input: Any,
    config: Mapping[str, Any] | None,
    kinds: frozenset[type[Event]] | None,
    durability: str | None,
    interrupt_before: Any,
    interrupt_after: Any,
    control: Any,
    output_keys: str | Sequence[str] | None = None,
) -> AsyncIterator[Event]:
    """``graph`` run as a subgraph, inside the task ``host`` belongs to (see :mod:`._nested`); its ``control``
    the call's, else its parent's; ``output_keys`` as the root's (its ``invoke`` streams its output's keys)."""
    own = graph.checkpointer
    saver = None if own is False else (host.saver if own is None or own is True else own)
    stable = own is True
    ns = subgraph_ns(host.parent_ns, host.node, host.task_id, stable=stable)
    ns = host.claim(ns)
    config = nested_config(host, merge_configs(graph.config, config), ns)
    limit = config.get("recursion_limit")
    run = start_graph_run(graph.name, input, config, nested=True)  # its chain run, under its node's
    settings = RunSettings(
        spec=_spec(graph.spec if output_keys is None else with_output_keys(graph.spec, output_keys), host.sync_face),
        saver=saver,
        store=graph.store if graph.store is not None else host.store,
        cache=graph.cache,
        durability=durability or host.durability,
        kinds=nested_kinds(kinds, host.kinds),
        subgraph_kinds=host.kinds,
        inline_sync=host.inline_sync,
        sync_face=host.sync_face,
        # its static breakpoints stop its parent's task (GraphInterrupt with no question), as LangGraph's
        interrupt_before=interrupt_before or graph.interrupt_before,
        interrupt_after=interrupt_after or graph.interrupt_after,
        run_id=host.run_id,
        recursion_limit=host.recursion_limit if limit is None else int(limit),
        context=host.task.context,  # as LangGraph: a subgraph's nodes see the parent run's context
        lease=host.lease if saver is host.saver else None,
        checkpoint_ns=ns,
        host=host,
        stable_ns=stable,
        control=control or host.task.control,  # as LangGraph: a drain of its parent's stops it too
        step_timeout=graph.step_timeout,
        linger=host.linger,
    )
    loop = RunLoop(settings, input, config)
    if saver is None:
        loop.runner.delegate = host.task  # its questions are its parent task's
    enclosing = host.task.messages  # the messages its tasks send, its host task does not send again
    loop.runner.seen_by = host.task.seen_by if enclosing is None else (*host.task.seen_by, enclosing.seen)
    events = loop.events() if run is None else reported(run, lifecycle(run, loop, input, config, tuple(ns.split("|"))), nested=True)
    return forwarded(events, host, tuple(ns.split("|")), kinds, _task_metadata(graph.spec, config))


def _task_metadata(spec: GraphSpec, config: Mapping[str, Any]) -> Any:
    """How a subgraph's started task shows its metadata: its run's config's (a graph's ``with_config``
    metadata, a LangChain agent's ``lc_agent_name``) and its node's, as LangGraph's nested loop shows them."""
    meta, tags = config.get("metadata") or {}, config.get("tags")

    def shown(ev: TaskStarted) -> dict[str, Any]:
        node = spec.nodes.get(ev.node)
        return node_task_metadata(meta, None if node is None else node.metadata, tags)

    return shown


def _spec(spec: GraphSpec, sync_call: bool) -> GraphSpec:
    """The spec a run takes: an async call's runs a LangGraph RunnableCallable node's async face (GraphSpec.for_async)."""
    return spec if sync_call else spec.for_async()
