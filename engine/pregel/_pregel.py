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
import uuid
from typing import Any, AsyncIterator, Iterator, Mapping, Sequence

from engine._internal._ids import checkpoint_id as new_checkpoint_id
from engine._internal._ids import now_iso
from engine._internal._ids import task_id as make_task_id
from engine._internal._sync import iter_sync, run_sync
from engine._internal._unsupported import WHERE_IT_DIFFERS, refuse
from engine.channels.base import BaseChannel
from engine.checkpoint.base import (
    LEASE_KEY,
    Checkpoint,
    CheckpointTuple,
    Lease,
    copy_checkpoint,
    empty_checkpoint,
    run_lease,
)
from engine.errors import InvalidUpdateError, NotFoundError
from engine.events import Event, RunFinished
from engine.pregel._algo import Task, apply_null_writes, apply_writes, prepare_next_tasks, restore_channels, trigger_index
from engine.pregel._graph_run import merge_configs, reported, start_graph_run
from engine.pregel._loop import RunLoop
from engine.pregel._options import durability_of
from engine.pregel._resume import NO_ANSWER, Resume, plan_resume
from engine.pregel._snapshot import build_snapshot
from engine.pregel._spec import GraphSpec, NodeSpec
from engine.pregel._status import null_writes, read_statuses
from engine.pregel._stream import Projector, kinds_for
from engine.types import END, START, Command, StateSnapshot

__all__ = ["Pregel"]

DEFAULT_RECURSION_LIMIT = int(os.environ.get("LANGGRAPH_DEFAULT_RECURSION_LIMIT", "10007"))


class Pregel:
    """A compiled graph. Build one with ``StateGraph(...).compile()``."""

    default_recursion_limit = DEFAULT_RECURSION_LIMIT
    #: what ``stream()`` yields without a ``stream_mode`` (a compiled StateGraph: "updates")
    stream_mode: str = "values"

    def __init__(
        self,
        *,
        builder: Any,
        nodes: dict[str, NodeSpec],
        channels: dict[str, BaseChannel],
        input_keys: Sequence[str],
        output_keys: Sequence[str] | str,
        state_keys: frozenset[str],
        stream_keys: Sequence[str] | str | None = None,
        checkpointer: Any = None,
        store: Any = None,
        interrupt_before: Any = (),
        interrupt_after: Any = (),
        name: str = "LangGraph",
    ) -> None:
        self.builder = builder
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
            stream_keys=(
                tuple(k for k in channels if k in state_keys)
                if stream_keys is None
                else stream_keys if isinstance(stream_keys, str) else tuple(stream_keys)
            ),
        )

    @property
    def name(self) -> str:
        return self.spec.name

    @name.setter
    def name(self, value: str) -> None:  # a host serving a compiled graph under its own name
        self.spec = dataclasses.replace(self.spec, name=value)

    def map_command(self, cmd: Command) -> list[tuple[str, Any]]:
        """A ``Command`` given as input: its update and goto as channel writes."""
        raise NotImplementedError(f"{type(self).__name__} takes no Command input; see {WHERE_IT_DIFFERS}")

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
        ``langgraph_options``: the rest of LangGraph's run options
        (:func:`~engine.pregel._options.durability_of`).
        """
        durability = durability_of(durability, **langgraph_options)
        if durability not in (None, "sync", "async", "exit"):
            raise ValueError(f"durability must be 'sync', 'async' or 'exit', not {durability!r}")
        config = merge_configs(self.config, config)
        limit = config.get("recursion_limit")
        run = start_graph_run(self.name, input, config)
        loop = RunLoop(
            self.spec,
            input,
            config,
            saver=self.checkpointer,
            store=self.store,
            recursion_limit=self.default_recursion_limit if limit is None else int(limit),
            durability=durability or "async",
            kinds=frozenset(kinds) | {RunFinished} if kinds is not None else None,
            inline_sync=_inline_sync,
            interrupt_before=self.interrupt_before if interrupt_before is None else interrupt_before,
            interrupt_after=self.interrupt_after if interrupt_after is None else interrupt_after,
            # A caller's metadata.run_id is the run's id (and stays in every version's metadata).
            run_id=run_id or str(((config or {}).get("metadata") or {}).get("run_id") or uuid.uuid4()),
            lease=lease,
            thread_name=thread_name,
        )
        return loop.events() if run is None else reported(run, loop.events())

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

    async def astream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: str | Sequence[str] | None = None,
        durability: str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        subgraphs: bool = False,
        _inline_sync: bool = False,
        **langgraph_options: Any,
    ) -> AsyncIterator[Any]:
        config = merge_configs(self.config, config)
        stream_mode = self.stream_mode if stream_mode is None else stream_mode
        modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)
        single = isinstance(stream_mode, str)
        events = self.aevents(
            input,
            config,
            durability=durability,
            kinds=kinds_for(modes),
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
            _inline_sync=_inline_sync,
            **langgraph_options,
        )
        projector = Projector(modes, config or {}, checkpointer=self.checkpointer is not None, root=isinstance(self.output_keys, str))
        async for ev in events:
            for mode, payload in projector.project(ev):
                if subgraphs:  # as LangGraph: each chunk under its namespace, here always the root's
                    yield ((), payload) if single else ((), mode, payload)
                else:
                    yield payload if single else (mode, payload)
            if isinstance(ev, RunFinished) and ev.exception is not None:
                raise ev.exception

    def stream(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Iterator[Any]:
        return iter_sync(self.astream(input, config, _inline_sync=True, **kwargs))

    async def _ainvoke(
        self, input: Any, config: Mapping[str, Any] | None, inline: bool, stream_mode: str = "values", **kwargs: Any
    ) -> Any:
        if stream_mode != "values":  # as LangGraph: then the list of chunks
            return [chunk async for chunk in self.astream(input, config, stream_mode=stream_mode, _inline_sync=inline, **kwargs)]
        kwargs.pop("subgraphs", None)  # LangGraph's invoke returns the same with or without
        final: RunFinished | None = None
        async for ev in self.aevents(input, config, kinds=frozenset(), _inline_sync=inline, **kwargs):
            final = ev  # type: ignore[assignment]
        assert final is not None
        if final.exception is not None:
            raise final.exception
        if isinstance(self.output_keys, str):  # an entrypoint: its value itself
            return {"__interrupt__": list(final.interrupts)} if final.interrupts else final.values
        out: dict[str, Any] = dict(final.values or {})
        if final.interrupts:
            out["__interrupt__"] = list(final.interrupts)
        return out

    async def ainvoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        return await self._ainvoke(input, config, False, **kwargs)

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        return run_sync(self._ainvoke(input, config, True, **kwargs))

    # -- reading state -------------------------------------------------------
    def _saver(self) -> Any:
        if self.checkpointer is None:
            raise ValueError("no checkpointer set: compile(checkpointer=...) to read or update state")
        return self.checkpointer

    def snapshot(self, saved: CheckpointTuple, *, live: bool = False) -> StateSnapshot:
        """The StateSnapshot of a stored checkpoint (pure: no I/O); see :mod:`._snapshot`."""
        return build_snapshot(self.spec, saved, live=live)

    async def aget_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        """The newest version of the thread (or the one ``config`` names).

        ``subgraphs``: LangGraph adds each subgraph's state to its task; a
        graph here has none (``add_node`` refuses a compiled graph), so the
        snapshot is the same either way, as it is in LangGraph for such a graph.
        """
        config = merge_configs(self.config, config)
        saved = await self._saver().aget_tuple(config)
        if saved is None:
            if (config.get("configurable") or {}).get("checkpoint_id"):
                raise NotFoundError(f"no checkpoint {config['configurable']['checkpoint_id']!r}")
            return StateSnapshot({}, (), dict(config), None, None, None, (), ())
        # Without a checkpoint id it is the live view: what the step so far did.
        return self.snapshot(saved, live=not (config.get("configurable") or {}).get("checkpoint_id"))

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        return run_sync(self.aget_state(config, subgraphs=subgraphs))

    async def aget_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[StateSnapshot]:
        """The thread's versions, newest first; with a ``checkpoint_id``, only that one.

        As LangGraph: older versions are reached with ``before=``, and a
        config without a thread id raises KeyError (listing every thread's
        versions is the saver's ``alist(None)``, never a graph's history).
        """
        config = merge_configs(self.config, config)
        configurable = config.get("configurable") or {}
        if configurable.get("thread_id") is None:
            raise KeyError("get_state_history needs config['configurable']['thread_id']")
        async for saved in self._saver().alist({"configurable": dict(configurable)}, filter=filter, before=before, limit=limit):
            yield self.snapshot(saved)

    def get_state_history(self, config: Mapping[str, Any], **kwargs: Any) -> Iterator[StateSnapshot]:
        return iter_sync(self.aget_state_history(config, **kwargs))

    async def aupdate_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
        *,
        lease: Lease | None = None,
    ) -> dict[str, Any]:
        """Write an "update" version: ``values`` as if node ``as_node`` returned them.

        Reducers apply; the edges out of ``as_node`` decide what runs next.
        ``values=None`` with ``as_node=END`` ends the step due instead (it
        cancels a pending interrupt): see :func:`_end_step`. The new version's parent is the checkpoint ``config`` names (or the
        newest), so updating an older version starts a branch. ``task_id``
        (LangGraph: the id of the task the update is written as) is not
        supported yet: NotImplementedError unless None. ``lease``: as for
        :meth:`aevents`.
        """
        refuse("update_state", task_id=task_id)
        saver = self._saver()
        config = merge_configs(self.config, config)
        configurable = dict(config.get("configurable") or {})
        lease = run_lease(saver, configurable.get("thread_id"), configurable, lease)
        saved = await saver.aget_tuple(config)
        if saved is None and configurable.get("checkpoint_id"):
            raise NotFoundError(f"no checkpoint {configurable['checkpoint_id']!r}")
        ck = copy_checkpoint(saved.checkpoint) if saved else empty_checkpoint()
        step = int(saved.metadata.get("step", -1)) if saved else -1
        channels = restore_channels(self.channels, ck)
        if as_node == END and values is None:
            changed = _end_step(self, saved, ck, channels, step) if saved else set()
        else:
            changed = await self._update_as(as_node, values, config, ck, channels, step)
        ck["id"] = new_checkpoint_id()
        ck["ts"] = now_iso()
        parent = {"configurable": {**configurable, "checkpoint_ns": "", "checkpoint_id": saved.checkpoint["id"]}} if saved else {
            "configurable": {k: v for k, v in configurable.items() if k != "checkpoint_id"}
        }
        if lease is not None:
            parent["configurable"][LEASE_KEY] = lease  # the saver's side: the write carries its fencing token
        metadata = {**(config.get("metadata") or {}), "source": "update", "step": step + 1, "parents": {}}
        new_versions = {c: ck["channel_versions"][c] for c in changed}
        return await saver.aput(parent, ck, metadata, new_versions)

    async def _update_as(
        self, as_node: str | None, values: Any, config: Mapping[str, Any], ck: Checkpoint, channels: Mapping[str, BaseChannel], step: int
    ) -> set[str]:
        """Apply ``values`` to ``ck`` as if ``as_node`` returned them; the channels changed."""
        if as_node is None:
            as_node = _last_writer(ck, self.nodes)
        if as_node not in self.nodes:
            raise InvalidUpdateError(f"as_node {as_node!r} is not a node of graph {self.name!r}")
        node = self.nodes[as_node]
        task = Task(
            id=make_task_id(ck["id"], step + 1, "update", as_node),
            name=as_node,
            path=("update",),
            input=None,
            triggers=tuple(c for c in node.triggers if c in ck["channel_versions"]),
            node=node,
            state=ck["channel_values"],
        )
        writes = node.writer(values, ck["channel_values"], dict(config))
        if hasattr(writes, "__await__"):
            writes = await writes
        task.writes = writes
        try:
            return apply_writes(ck, channels, [task])[1]
        except InvalidUpdateError:
            raise
        except Exception as e:  # a reducer refusing the values: the caller's input is wrong
            raise InvalidUpdateError(f"update_state: the state's reducers rejected {values!r:.200}: {type(e).__name__}: {e}") from e

    def update_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
        *,
        lease: Lease | None = None,
    ) -> dict[str, Any]:
        return run_sync(self.aupdate_state(config, values, as_node, task_id, lease=lease))

    async def adelete_thread(self, thread_id: str) -> None:
        await self._saver().adelete_thread(thread_id)


def _end_step(graph: Pregel, saved: CheckpointTuple, ck: Checkpoint, channels: Mapping[str, BaseChannel], step: int) -> set[str]:
    """``update_state(config, None, as_node=END)``: the step due at ``saved`` ends here.

    As LangGraph: its input writes and the writes of its finished tasks are
    applied, and every task due is marked as run, so the new version has no
    next node and no pending interrupt. Returns the channels changed.
    """
    planned = prepare_next_tasks(ck, channels, graph.nodes, step + 1)
    changed: set[str] = set()
    if nulls := null_writes(saved.pending_writes):
        changed |= apply_null_writes(ck, channels, nulls)
    statuses = read_statuses(saved.pending_writes)
    for t in planned:
        st = statuses.get(t.id)
        t.writes = st.writes if st is not None and st.finished else []
    return changed | apply_writes(ck, channels, planned)[1]


def _last_writer(ck: Checkpoint, nodes: Mapping[str, NodeSpec]) -> str:
    """The node that ran last, for update_state without ``as_node``."""
    best: list[tuple[int, str]] = []
    for name, seen in ck["versions_seen"].items():
        if name in nodes and name != START and seen:
            best.append((max(seen.values()), name))
    if not best:
        return START
    best.sort(reverse=True)
    if len(best) > 1 and best[0][0] == best[1][0]:
        raise InvalidUpdateError(
            f"ambiguous update: nodes {best[0][1]!r} and {best[1][1]!r} ran last together; pass as_node="
        )
    return best[0][1]
