"""A graph built with LangGraph itself, served through the seam the server drives the engine by (issue 31).

The server drives a graph through a handful of calls: start a run and take its
events (``aevents``), plan a resume (``aplan_resume``), read and update its
thread (``aget_state``, ``aget_state_history``, ``aupdate_state``), and show
its drawing (``get_graph``, ``get_subgraphs``, ``nodes``). The engine's
:class:`~engine.pregel.Pregel` has them; :class:`LangGraphGraph` gives them to
a graph LangGraph compiled (with graphwire's saver as its checkpointer, so its
versions land in the service's database, linear and fenced), so every RPC, the
run records, leases, tenants and the inspector work the same for both
runtimes.

What LangGraph runs, it runs: its own loop, durability modes, retries, caches
and store. A run is LangGraph's ``astream`` with the modes that carry what the
engine's events say (``checkpoints``, ``tasks``, ``values``, ``custom``,
``messages``) and ``subgraphs=True``, each chunk mapped onto one of
:mod:`engine.events`:

* a saved version (``checkpoints``) is a ``CheckpointSaved``; the step that
  made it ends (``StepFinished``), and the step it plans begins
  (``StepStarted``) with the first chunk that step gives. As in the engine's
  runs, a step an interrupt or an error stopped has no ``StepFinished``, and
  one that never ran (the recursion limit, a breakpoint) no ``StepStarted``;
* a task's start and result (``tasks``) are ``TaskStarted`` / ``TaskFinished``
  (a task the node cache answered, which that stream gives no result, a
  ``TaskFinished`` with ``cached`` from its ``updates`` chunk),
  its interrupts ``InterruptEvent``\\ s; the ``__start__`` task, which that
  stream hides, is reported as the engine reports it (its input, the state's
  keys of it written) when its step begins;
* ``values``, ``custom`` and ``messages`` chunks are ``ValuesEvent``,
  ``CustomEvent`` and ``MessageChunk`` (a message's node and task from its
  LangGraph metadata; a custom chunk's, the one task running at its namespace,
  none when several run);
* the run ends with one ``RunFinished``: at an interrupt (the thread's pending
  interrupts, or a breakpoint's nodes due), at END, on an error (the
  recursion limit apart) or cancelled.

The run's lease rides in the config (:data:`engine.checkpoint.base.LEASE_KEY`),
where graphwire's savers look for it in every write LangGraph makes, and its
id in the metadata (:data:`engine.host.RUN_KEY`), which LangGraph copies into
every version it saves.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping
from datetime import datetime, timezone
from typing import Any

from engine import events as ev
from engine.checkpoint.base import LEASE_KEY, Lease
from engine.errors import CheckpointError, EmptyInputError, SerializationError
from engine import swap
from engine.host import NO_ANSWER, RUN_KEY, Resume, check_resume, plan_resume, serve_langgraph
from engine.types import Command, Interrupt, PregelTask, Send, StateSnapshot
from server._langgraph_parts import Drawn, Edge, TaskWritesCache, drawn_from_builder

__all__ = ["LangGraphGraph", "built_with_langgraph", "load_langgraph", "own_graph"]

log = logging.getLogger("graphwire.server")

#: the trigger LangGraph gives a pushed task (a Send's, a @task call's), and the engine's for a Send's
_PUSH, _SENT = "__pregel_push", "__pregel_tasks"
#: the channels a @task's and an entrypoint's value are written to, in LangGraph's task results
_RETURNS = ("__return__", "__end__")

#: LangGraph's stream modes whose chunks carry what the engine's events say
_MODES = ["checkpoints", "tasks", "values", "custom", "messages", "updates"]


def _modes(kinds: frozenset[type[ev.Event]] | None) -> list[str]:
    """The stream modes a run asks LangGraph for: "messages" and "custom" only for a caller that takes their
    events (LangGraph streams a chat model's tokens only when asked, as the engine does)."""
    skip = {"messages"} if not ev.wants(kinds, ev.MessageChunk) else set()
    if not ev.wants(kinds, ev.CustomEvent):
        skip.add("custom")
    return [m for m in _MODES if m not in skip]


def load_langgraph(saver: Any) -> str:
    """Import LangGraph itself for the graphs it runs, and make ``saver`` one of its checkpointers; its version.

    Raises:
        ValueError: LangGraph is not installed, or the import swap (on in this process) serves
            ``langgraph`` imports with the engine.
    """
    if swap.installed():
        raise ValueError(
            "a graph runs on LangGraph itself, but the import swap is on in this process (`langgraph` imports get "
            "graphwire's engine); serve it from a process without the swap (graphwire serve turns it off for such graphs)"
        )
    try:
        import langgraph.checkpoint.base  # noqa: F401 - its BaseCheckpointSaver becomes a base of graphwire's savers
        import langgraph.checkpoint.serde.types  # noqa: F401
        import langgraph.types  # noqa: F401 - the types its checkpoints hold
        from langgraph.version import __version__
    except ImportError as e:
        raise ValueError(f"a graph runs on LangGraph itself, which is not installed here ({e}): pip install langgraph") from None
    if saver is not None:
        serve_langgraph(saver)
    return str(__version__)


def built_with_langgraph(obj: Any) -> bool:
    """Whether ``obj`` is one of real LangGraph's objects (a builder or a compiled graph), not the engine's."""
    return any(c.__module__.split(".")[0] == "langgraph" for c in type(obj).__mro__)


def own_graph(graph: Any) -> Any:
    """The compiled graph a served graph is: LangGraph's own behind the LangGraph runtime's seam, else itself."""
    return graph.graph if isinstance(graph, LangGraphGraph) else graph


class LangGraphGraph:
    """A LangGraph compiled graph behind the server's seam (see the module's docstring).

    Args:
        graph: LangGraph's compiled graph (``CompiledStateGraph`` or ``Pregel``),
            compiled with graphwire's saver.
        name: the name the server serves it under.
    """

    runtime = "langgraph"

    def __init__(self, graph: Any, name: str) -> None:
        self.graph = graph
        self.name = name
        self._nodes: frozenset[str] | None = None

    # -- what the server reads of a graph ----------------------------------------
    @property
    def checkpointer(self) -> Any:
        return self.graph.checkpointer

    @checkpointer.setter
    def checkpointer(self, value: Any) -> None:
        self.graph.checkpointer = value

    @property
    def store(self) -> Any:
        return self.graph.store

    @store.setter
    def store(self, value: Any) -> None:
        self.graph.store = value

    @property
    def cache(self) -> Any:
        return self.graph.cache

    @cache.setter
    def cache(self, value: Any) -> None:
        self.graph.cache = None if value is None or isinstance(value, TaskWritesCache) else TaskWritesCache(value)

    @property
    def nodes(self) -> Mapping[str, Any]:
        return self.graph.nodes  # type: ignore[no-any-return]

    @property
    def context_schema(self) -> Any:
        return getattr(self.graph, "context_schema", None)

    def get_graph(self) -> Drawn:
        """The drawing, as the engine's (``nodes`` by id with their metadata, ``edges`` with labels).

        LangGraph draws by planning steps on made-up state, which runs the graph's own functions (a
        cache policy's key function, say); one that fails there leaves the builder's nodes and edges,
        with its routers' edges to the targets they name, drawn without running anything."""
        try:
            drawn = self.graph.get_graph()
        except Exception as e:  # noqa: BLE001 - the graph's own code failed on LangGraph's made-up state
            log.warning("graph %r: LangGraph could not draw it (%s: %s); drawn from its builder", self.name, type(e).__name__, e)
            return drawn_from_builder(self.graph)
        return Drawn(dict(drawn.nodes), [Edge(e.source, e.target, e.data, e.conditional) for e in drawn.edges])

    def _node_names(self) -> frozenset[str]:
        if self._nodes is None:
            graphs = [self.graph, *(sub for _, sub in self.graph.get_subgraphs(recurse=True))]
            self._nodes = frozenset(name for g in graphs for name in g.nodes)
        return self._nodes

    def get_subgraphs(self) -> list[tuple[str, LangGraphGraph]]:
        return [(name, LangGraphGraph(sub, sub.name)) for name, sub in self.graph.get_subgraphs()]

    def empty_values(self) -> Any:
        """Each output channel's empty value, read as LangGraph reads a version's (server._reads.Reads.empty_values)."""
        from langgraph.checkpoint.base import empty_checkpoint
        from langgraph.pregel._checkpoint import channels_from_checkpoint
        from langgraph.pregel._io import read_channels

        channels, _ = channels_from_checkpoint(self.graph.channels, empty_checkpoint())
        return read_channels(channels, self.graph.stream_channels_asis)

    # -- the thread ---------------------------------------------------------------
    async def aget_state(self, config: Mapping[str, Any], *, subgraphs: bool = False, run_ids: bool = False) -> StateSnapshot:
        """LangGraph's snapshot of the thread, as the engine's; ``run_ids``: its metadata names the run as ``run_id``."""
        return _snapshot(await self.graph.aget_state(dict(config), subgraphs=subgraphs), run_ids)

    async def aget_state_history(self, config: Mapping[str, Any], *, run_ids: bool = False, **kwargs: Any) -> AsyncIterator[StateSnapshot]:
        async for snap in self.graph.aget_state_history(dict(config), **kwargs):
            yield _snapshot(snap, run_ids)

    async def aupdate_state(self, config: Mapping[str, Any], values: Any, as_node: str | None = None, *, lease: Lease | None = None) -> Any:
        return await self.graph.aupdate_state(_leased(config, lease), values, as_node=as_node)

    async def aplan_resume(
        self, config: Mapping[str, Any], *, answer: Any = NO_ANSWER, answers: Mapping[str, Any] | None = None,
        answers_name: str = "answers", thread_name: str | None = None,
    ) -> Resume:  # fmt: skip
        state = await self.aget_state(config)
        thread = thread_name if thread_name is not None else str((config.get("configurable") or {}).get("thread_id"))
        return plan_resume(state, thread=thread, graph=self.name, answer=answer, answers=answers, answers_name=answers_name)

    # -- a run ----------------------------------------------------------------------
    async def aevents(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        kinds: frozenset[type[ev.Event]] | None = None,
        run_id: str | None = None,
        lease: Lease | None = None,
        thread_name: str | None = None,
        strict: bool = False,
        durability: str | None = None,
        interrupt_before: Any = None,
        interrupt_after: Any = None,
        context: Any = None,
    ) -> AsyncIterator[ev.Event]:
        """Run the graph on LangGraph and yield the run as the engine's events, ending with one RunFinished."""
        run_id = run_id or str(_uuid())
        config = _leased(config or {}, lease)
        config["metadata"] = {**(config.get("metadata") or {}), RUN_KEY: run_id}
        thread = thread_name if thread_name is not None else (config.get("configurable") or {}).get("thread_id")
        if isinstance(input, Resume):  # planned when the call came: checked again now the run holds the thread
            check_resume(input, await self.aget_state(config), thread=str(thread))
            input = None if input.at is not None else _command(resume=dict(input.answers))
        elif isinstance(input, Command):  # an Invoke's command_json (server/_requests.py), in LangGraph's types
            input = _command(update=input.update, resume=input.resume, goto=_goto(input.goto))
        head = await self.checkpointer.aget_tuple(config) if self.checkpointer is not None else None
        if input is None and head is None:  # as the engine refuses it (LangGraph's run would end ERROR)
            raise EmptyInputError("Received no input for __start__")  # the engine's words, LangGraph's
        mapper = _Mapper(kinds, self._node_names())
        if input is not None and type(input).__name__ != "Command":
            mapper.inputs[()] = input  # what the run's __start__ task takes
        if head is not None:  # LangGraph's values of the version a run goes on from come before that version
            mapper.base_step = int((head.metadata or {}).get("step", 0))
            mapper.head_id = head.config["configurable"]["checkpoint_id"]
        yield ev.RunStarted(run_id, thread, self.name, head.config["configurable"]["checkpoint_id"] if head else None)
        options: dict[str, Any] = {"durability": durability, "interrupt_before": interrupt_before, "interrupt_after": interrupt_after}
        if context is not None:
            options["context"] = context
        try:
            async for ns, mode, chunk in self.graph.astream(
                input, config, stream_mode=_modes(kinds), subgraphs=True, **{k: v for k, v in options.items() if v is not None}
            ):
                for e in mapper.map(tuple(ns), mode, chunk):
                    yield e
        except asyncio.CancelledError:
            yield await self._finished(config, mapper, "CANCELLED")
            raise
        except Exception as exc:  # the run's error: its RunFinished says it, as the engine's does
            refused = isinstance(exc, SerializationError) and durability == "sync" and not await self._stored(config, head)
            if isinstance(exc, CheckpointError) or refused:
                # As the engine's runs: storage failed (nothing can record how the run ended), or the
                # run's first version, written before it went on, was refused (too large, not storable).
                raise
            reason = "RECURSION_LIMIT" if type(exc).__name__ == "GraphRecursionError" else "ERROR"
            yield await self._finished(config, mapper, reason, exc)
            return
        # a step that saved no version after it (an interrupt, an error) did not finish, as in the engine's runs
        yield await self._finished(config, mapper, None)

    async def _stored(self, config: Mapping[str, Any], head: Any) -> bool:
        """Whether the thread has a version newer than ``head`` (the newest when the run began)."""
        now = await self.checkpointer.aget_tuple(_newest(config)) if self.checkpointer is not None else None
        return now is not None and (head is None or now.config["configurable"]["checkpoint_id"] != head.config["configurable"]["checkpoint_id"])

    async def _finished(self, config: Mapping[str, Any], mapper: _Mapper, reason: str | None, exc: BaseException | None = None) -> ev.RunFinished:
        """The run's RunFinished, from the thread as the run left it (its newest version)."""
        state = await self.graph.aget_state(_newest(config))
        cid = (state.config.get("configurable") or {}).get("checkpoint_id") if state.metadata is not None else mapper.last_id
        values = dict(state.values) if isinstance(state.values, Mapping) else state.values
        if reason is None:
            reason = "INTERRUPT" if state.interrupts or state.next else "END"
        if exc is not None:
            return ev.RunFinished(reason, cid, values, type(exc).__name__, str(exc), exception=exc)  # type: ignore[arg-type]
        return ev.RunFinished(reason, cid, values, interrupts=tuple(map(_interrupt, state.interrupts)) if reason == "INTERRUPT" else ())  # type: ignore[arg-type]


class _Mapper:
    """LangGraph's stream chunks → the engine's events, step by step, per namespace."""

    def __init__(self, kinds: frozenset[type[ev.Event]] | None, nodes: frozenset[str] = frozenset()) -> None:
        self.kinds = kinds
        self.nodes = nodes  # the graph's nodes and its subgraphs' (a pushed task of one of them is a Send's)
        self.steps: dict[tuple[str, ...], int] = {}  # the step running at each namespace
        self.seen: set[tuple[str, ...]] = set()  # namespaces that reported a version in this run
        self.running: dict[tuple[str, ...], dict[str, str]] = {}  # the tasks started and not finished, per namespace
        self.planned: dict[tuple[str, ...], ev.StepStarted] = {}  # a step planned, not begun yet, per namespace
        self.inputs: dict[Any, Any] = {}  # the run's input (at ``()``) and each started task's (by its id)
        self.last_id: str | None = None
        self.base_step = 0  # the step of the version the run starts from, until the run's first
        self.head_id: str | None = None  # that version's id

    def _want(self, e: ev.Event) -> bool:
        return ev.wants(self.kinds, type(e))

    def map(self, ns: tuple[str, ...], mode: str, chunk: Any) -> list[ev.Event]:
        # A planned step begins with the first thing it says: LangGraph saves the version that plans
        # a step it will not run (the recursion limit, a breakpoint before it), which the engine's runs
        # do not start.
        if mode == "updates" and not (isinstance(chunk, Mapping) and (chunk.get("__metadata__") or {}).get("cached")):
            return []  # only the tasks the node cache answered: LangGraph's tasks stream gives them no result
        planned = self.planned.pop(ns, None)
        out = [] if planned is None else [planned, *self._hidden_start(ns, planned, chunk if mode == "values" else None)]
        out += self._events(ns, mode, chunk)
        return [e for e in out if self._want(e)]

    def _hidden_start(self, ns: tuple[str, ...], step: ev.StepStarted, values: Any) -> list[ev.Event]:
        """The ``__start__`` task LangGraph's tasks stream leaves out (it is hidden), as the engine reports it:
        it takes the input (the run's, or a subgraph's from its parent's task) and writes the state's keys of it."""
        task_id = next((tid for tid, name in step.tasks if name == "__start__"), None)
        key: Any = ns[-1].rpartition(":")[2] if ns else ()
        if task_id is None or key not in self.inputs:
            return []
        given = self.inputs[key]
        update = {k: v for k, v in given.items() if k in values} if isinstance(given, Mapping) and isinstance(values, Mapping) else given
        return [
            ev.TaskStarted(step.step, task_id, "__start__", given, ("__start__",), ns=ns),
            ev.TaskFinished(step.step, task_id, "__start__", update, None, None, (), ns=ns),
        ]

    def close(self, ns: tuple[str, ...]) -> list[ev.Event]:
        """The step open at ``ns`` ends (the version it made was saved)."""
        self.planned.pop(ns, None)
        step = self.steps.pop(ns, None)
        return [] if step is None or not self._want(ev.StepFinished(step)) else [ev.StepFinished(step, ns=ns)]

    def _events(self, ns: tuple[str, ...], mode: str, chunk: Any) -> list[ev.Event]:
        step = self.steps.get(ns, self.base_step if not ns and not self.seen else 0)
        if mode == "checkpoints":
            return self._saved(ns, chunk)
        if mode == "tasks":
            running = self.running.setdefault(ns, {})
            if "input" in chunk:
                running[chunk["id"]] = chunk["name"]
                self.inputs[chunk["id"]] = chunk["input"]  # a subgraph's __start__ takes it, under this task's namespace
                triggers = tuple(chunk.get("triggers") or ())
                if triggers == (_PUSH,) and chunk["name"] in self.nodes:
                    triggers = (_SENT,)  # a Send's task (a @task call's keeps LangGraph's trigger), as the engine names it
                return [ev.TaskStarted(step, chunk["id"], chunk["name"], chunk["input"], triggers, ns=ns)]
            running.pop(chunk["id"], None)
            self.inputs.pop(chunk["id"], None)
            interrupts = tuple(_interrupt(i) for i in chunk.get("interrupts") or ())
            error = chunk.get("error")
            out: list[ev.Event] = [ev.InterruptEvent(i.id, chunk["name"], chunk["id"], i.value, i.response_schema, ns=ns) for i in interrupts]
            result = chunk.get("result")
            update = dict(result) if isinstance(result, Mapping) and result else (result if result not in ({}, None) else None)
            if isinstance(update, dict) and len(update) == 1 and next(iter(update)) in _RETURNS:
                update = next(iter(update.values()))  # a @task's or an entrypoint's value, as the engine reports it
            out.append(ev.TaskFinished(
                step, chunk["id"], chunk["name"], None if interrupts or error is not None else update,
                None if error is None else str(error), None if error is None else type(error).__name__, interrupts,
                ns=ns, exception=error if isinstance(error, BaseException) else None,
            ))  # fmt: skip
            return out
        if mode == "values":
            if isinstance(chunk, Mapping) and "__interrupt__" in chunk:
                return []  # LangGraph's values at an interrupt: the same values again, with the questions
            return [ev.ValuesEvent(step, dict(chunk) if isinstance(chunk, Mapping) else chunk, ns=ns)]
        if mode == "updates":
            return self._cached(ns, step, chunk)
        if mode == "custom":
            # LangGraph's chunk names no task: the one task running at its namespace wrote it (several: unknown)
            running = self.running.get(ns) or {}
            task_id, node = next(iter(running.items())) if len(running) == 1 else ("", "")
            return [ev.CustomEvent(step, task_id, node, chunk, ns=ns)]
        if mode == "messages":
            message, meta = chunk
            task_ns = str(meta.get("langgraph_checkpoint_ns") or "").split("|")[-1]
            return [ev.MessageChunk(int(meta.get("langgraph_step", step)), task_ns.partition(":")[2], str(meta.get("langgraph_node", "")), message, dict(meta), ns=ns)]
        return []

    def _cached(self, ns: tuple[str, ...], step: int, chunk: Mapping[str, Any]) -> list[ev.Event]:
        running = self.running.get(ns) or {}
        out: list[ev.Event] = []
        for node, update in chunk.items():
            task_id = next((tid for tid, name in running.items() if name == node), None)
            if task_id is None or node == "__metadata__":
                continue
            del running[task_id]
            out.append(ev.TaskFinished(step, task_id, node, dict(update) if isinstance(update, Mapping) else update, cached=True, ns=ns))
        return out

    def _saved(self, ns: tuple[str, ...], chunk: Mapping[str, Any]) -> list[ev.Event]:
        conf = chunk["config"]["configurable"]
        parent = (chunk.get("parent_config") or {}).get("configurable", {}).get("checkpoint_id")
        meta = dict(chunk.get("metadata") or {})
        meta.pop(RUN_KEY, None)
        step = int(meta.get("step", -1))
        values = chunk.get("values")
        if not ns:
            self.last_id = conf["checkpoint_id"]
        source = str(meta.get("source", ""))
        # LangGraph's first version at a namespace, unless the run saved it with its input, is the one
        # the run continues from (a resume, a call with no input), shown again: loaded, not saved; at
        # the root, that is the thread's newest version when the run began (an input version too).
        loaded = ns not in self.seen and (source != "input" or (not ns and conf["checkpoint_id"] == self.head_id))
        self.seen.add(ns)
        kind = ev.CheckpointLoaded if loaded else ev.CheckpointSaved
        out: list[ev.Event] = [kind(
            conf["checkpoint_id"], parent, step, source, tuple(chunk.get("next") or ()),
            dict(values) if isinstance(values, Mapping) else {}, meta, _now(), ns=ns,
        )]  # fmt: skip
        out += self.close(ns)  # the step that made this version ends with it, as in the engine's runs
        tasks = tuple((t["id"], t["name"]) for t in chunk.get("tasks") or ())
        if tasks:
            self.steps[ns] = step + 1
            self.planned[ns] = ev.StepStarted(step + 1, tasks, ns=ns)
        return out


def _newest(config: Mapping[str, Any]) -> dict[str, Any]:
    """The thread's newest version's config (``config`` without the version it names)."""
    return {"configurable": {k: v for k, v in (config.get("configurable") or {}).items() if k != "checkpoint_id"}}


def _leased(config: Mapping[str, Any], lease: Lease | None) -> dict[str, Any]:
    """``config`` with the run's lease where graphwire's savers look for it in each write."""
    out = dict(config)
    if lease is not None:
        out["configurable"] = {**(config.get("configurable") or {}), LEASE_KEY: lease}
    return out


def _snapshot(snap: Any, run_ids: bool) -> StateSnapshot:
    """LangGraph's StateSnapshot as the engine's (its tasks and interrupts too, a subgraph's state nested);
    the run that wrote it named ``run_id`` in its metadata with ``run_ids``, else left out."""
    meta = snap.metadata
    if meta is not None and RUN_KEY in meta:
        meta = {k: v for k, v in meta.items() if k != RUN_KEY} | ({"run_id": meta[RUN_KEY]} if run_ids else {})
    tasks = tuple(
        PregelTask(
            t.id, t.name, tuple(t.path), t.error, tuple(map(_interrupt, t.interrupts)),
            _snapshot(t.state, run_ids) if hasattr(t.state, "tasks") else t.state, t.result,
        )
        for t in snap.tasks
    )  # fmt: skip
    values = dict(snap.values) if isinstance(snap.values, Mapping) else snap.values
    return StateSnapshot(
        values, tuple(snap.next), snap.config, meta, snap.created_at, snap.parent_config, tasks, tuple(map(_interrupt, snap.interrupts))
    )


def _interrupt(found: Any) -> Interrupt:
    """One of LangGraph's interrupts (its Interrupt, or the dict of its tasks mode) as the engine's."""
    if isinstance(found, Mapping):
        return Interrupt(value=found.get("value"), id=found["id"], response_schema=found.get("response_schema"))
    return Interrupt(value=found.value, id=found.id, response_schema=getattr(found, "response_schema", None))


def _command(**kwargs: Any) -> Any:
    from langgraph.types import Command

    return Command(**kwargs)


def _goto(goto: Any) -> Any:
    """A Command's goto with the engine's Sends as LangGraph's."""
    from langgraph.types import Send as LangGraphSend

    targets = goto if isinstance(goto, (list, tuple)) else [goto]
    return [LangGraphSend(t.node, t.arg) if isinstance(t, Send) else t for t in targets]


def _uuid() -> str:
    import uuid

    return str(uuid.uuid4())


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()
