"""The superstep loop.

Theory of operation
-------------------
A run is one call (invoke, resume, fork) of a compiled graph, described by
a frozen :class:`~engine.pregel._spec.GraphSpec`. It starts by loading the
thread's checkpoint (the newest, or the one the config names) and folding
the call's input into it (:mod:`._input`):

* new input → the tasks due at that checkpoint are discarded, the input is
  written to the START channel, and an "input" version is saved (no saver and
  no events but RunFinished: START's writes are made with it, one step less);
* ``Command(resume=...)`` → the answers are saved as pending writes of the
  interrupted tasks; no version is saved;
* ``None`` naming a checkpoint id → a "fork" version, a copy of it, is saved
  and the run continues from the copy (as LangGraph does, even for the newest);
* ``None`` without a checkpoint id → the run continues where it stopped.

Then the tick, superstep after superstep: plan the tasks (:mod:`._algo`,
pure), run them concurrently (:mod:`._runner`: a task whose writes were
saved as pending writes in an earlier attempt is not run again), apply
their writes at the end of the step, save a "loop" version (:mod:`._writer`,
by durability). The run ends when no task is planned (END), when a task
interrupts (INTERRUPT: the interrupt is saved as a pending write on the
current version, no new version), when a task raises (ERROR: finished
siblings' writes are saved as pending writes), or at the recursion limit.

Everything the run does is reported as :mod:`engine.events` events, in order,
through one async generator (:meth:`RunLoop.events`); the sync and async
public APIs both consume it. Spans and metrics are :mod:`._telemetry`'s.

The writes of a step's finished tasks are stored as pending writes of the
version the step started from: as each finishes when the step runs several
(so an error or a crash does not run them again), with the step's own
version otherwise (one write, no wait of its own).

Nothing here assumes the run is the root: its ``checkpoint_ns``, its saver
and its writer are its own, so a subgraph can run as a loop nested in a
parent's task, on the parent's saver.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Mapping

from engine._internal._ids import checkpoint_id as new_checkpoint_id
from engine.checkpoint.base import Lease, run_lease
from engine.errors import CheckpointError, GraphRecursionError, InvalidUpdateError
from engine.events import (
    CheckpointSaved,
    CustomEvent,
    Event,
    MessageChunk,
    StepFinished,
    ValuesEvent,
)
from engine.pregel import _telemetry as tel
from engine.pregel._algo import Task, apply_stopped, apply_writes, mark_interrupt_seen, prepare_next_tasks, should_interrupt
from engine.pregel._input import InputFolding
from engine.pregel._io import (
    configurable_metadata, finished_event, output_values, propagated_metadata, saved_event, task_config, task_namespace,
)
from engine.pregel._nested import NestedHost
from engine.pregel._queue import EventQueue
from engine.pregel._runner import StepRunner
from engine.pregel._spec import GraphSpec
from engine.pregel._status import read_statuses
from engine.pregel._writer import VersionWriter, new_version

__all__ = ["RunLoop"]

_LIVE: Any = object()  # RunFinished reports the channels as they are


class RunLoop(InputFolding):
    """One run of a compiled graph; :meth:`events` drives it."""

    def __init__(
        self,
        spec: GraphSpec,
        input: Any,
        config: Mapping[str, Any],
        *,
        saver: Any,
        store: Any,
        durability: str,
        kinds: frozenset[type[Event]] | None,
        inline_sync: bool,
        interrupt_before: Any,
        interrupt_after: Any,
        run_id: str,
        recursion_limit: int,
        lease: Lease | None = None,
        checkpoint_ns: str = "",
        thread_name: str | None = None,
        host: NestedHost | None = None,
        subgraph_kinds: frozenset[type[Event]] | None = None,
        stable_ns: bool = False,
        context: Any = None,
        cache: Any = None,
    ) -> None:
        self.spec = spec
        self.input = input
        self.config = dict(config)
        self.configurable = dict(config.get("configurable") or {})
        self.thread_id = self.configurable.get("thread_id")
        # The caller's name of the thread (RunStarted, messages); a host's storage key may differ.
        self.thread_name = self.thread_id if thread_name is None else thread_name
        self.saver = saver
        self.store = store
        self.checkpoint_ns = checkpoint_ns
        #: a subgraph's run: what its parent's task lends it (None at the root)
        self.host = host
        self.stable_ns = stable_ns  # a checkpointer=True subgraph: its namespace outlives its tasks
        #: ns -> id of the parents' versions, for this run's versions' metadata
        self.parents: dict[str, str] = dict(host.parents) if host is not None else {}
        #: the kinds the runs nested in this run's tasks forward (None: all)
        self.subgraph_kinds = subgraph_kinds
        self.resume_map: dict[str, Any] = {}  # this call's answers by interrupt id, for nested runs
        self.resuming = False  # the first step continues the loaded version's step
        self.lease = lease = run_lease(saver, self.thread_id, self.configurable, lease)
        self.durability = durability
        self.interrupt_before = interrupt_before
        self.interrupt_after = interrupt_after
        self.run_id = run_id
        self.recursion_limit = recursion_limit
        if recursion_limit < 1:
            raise ValueError("recursion_limit must be at least 1")
        self.user_metadata = dict(config.get("metadata") or {})
        self.task_metadata = propagated_metadata(self.configurable, self.user_metadata)  # every task's, made once
        # As LangGraph: every version's metadata also holds the call's plain configurable keys.
        self.version_metadata = {**self.user_metadata, **configurable_metadata(self.configurable, self.user_metadata)}
        self.kinds, self.queue = kinds, EventQueue(kinds)
        self._want, self._emit = self.queue.want, self.queue.emit
        self.trace = tel.RunTrace(spec.name)
        self.writer = VersionWriter(
            saver, thread_id=self.thread_id, checkpoint_ns=checkpoint_ns, lease=lease, durability=durability, trace=self.trace
        )
        self.runner = StepRunner(
            emit=self.queue.emit,
            want=self.queue.want,
            live=kinds is None or bool(kinds & {CustomEvent, MessageChunk}),
            writer=self.writer,
            trace=self.trace,
            task_config=self._task_config,
            state_keys=spec.stream_keys if isinstance(spec.stream_keys, str) else spec.state_keys,
            store=store,
            context=context,
            run_id=run_id,
            cache=cache,
            inline_sync=inline_sync,
            nest=lambda t, step, ctx: NestedHost.of_task(self, t, ctx),
        )
        # state of the run
        self.channels: dict[str, Any] = {}
        self.step = -2  # step number of the newest version (-2: none yet, so the input is -1)
        self.stop = 0  # the last superstep number this call may run (set once the thread is loaded)
        self.parent_id: str | None = None  # id of the newest version (saved or not)
        self.pending_writes: list[tuple[str, str, Any]] = []
        self.executed = 0
        self._planned: tuple[str, list[Task]] | None = None  # (checkpoint id, its next tasks)

    def values(self) -> dict[str, Any]:
        """The whole state (what the values and checkpoints streams show)."""
        return output_values(self.channels, self.spec.stream_keys)

    def output(self) -> dict[str, Any]:
        """The output schema's keys (what the call returns)."""
        return output_values(self.channels, self.spec.output_keys)

    def _emit_values(self, changed: Any = None) -> None:
        """A values event; after a step, only if the step (which changed ``changed``) wrote
        one of the streamed channels, as in LangGraph (a node returning {} adds no chunk)."""
        if not (self._want(ValuesEvent) and self.channels):
            return
        keys = self.spec.stream_keys
        if changed is not None and (keys not in changed if isinstance(keys, str) else changed.isdisjoint(keys)):
            return
        self._emit(ValuesEvent(self.step, self.values()))

    def _task_config(self, t: Task, step: int) -> dict[str, Any]:
        return task_config(
            self.config, self.configurable, self.task_metadata,
            checkpoint_ns=task_namespace(self.checkpoint_ns, t.name, t.id), parent_ns=self.checkpoint_ns,
            checkpoint_id=self.parent_id, node=t.name, step=step, triggers=t.triggers, path=t.path,
        )  # fmt: skip

    # -- the run -----------------------------------------------------------
    def events(self) -> AsyncIterator[Event]:
        """The run's events, the run traced as a ``graphwire.run`` span."""
        attributes = {
            "graphwire.thread_id": str(self.thread_id or ""),
            "graphwire.run_id": self.run_id,
            "graphwire.recursion_limit": self.recursion_limit,
            "graphwire.durability": self.durability,
        }
        return tel.traced_run(self.trace, attributes, self._setup, self._run)

    async def _run(self) -> AsyncIterator[Event]:
        for ev in self.queue.drain():
            yield ev
        reason, error, interrupts = "END", None, ()
        values: Any = _LIVE
        try:
            first = True
            while True:
                # As LangGraph: the superstep numbered s runs only while s <= stop
                # (S + limit + 2, S the step of the version the call loaded): new
                # input gets START's step and `limit` node steps, a continuing call
                # limit + 2; checked before "nothing left to do".
                if self.step + 1 > self.stop:
                    raise GraphRecursionError(
                        f"Recursion limit of {self.recursion_limit} reached without hitting a stop condition. "
                        f"Raise it with the config key 'recursion_limit' if the graph loops on purpose."
                    )
                tasks = self._plan()
                if not tasks:
                    break
                if self.interrupt_before and should_interrupt(self.checkpoint, self.interrupt_before, tasks):
                    mark_interrupt_seen(self.checkpoint)
                    reason = "INTERRUPT"
                    break
                statuses = read_statuses(self.pending_writes) if first and self.pending_writes else None
                if self.runner.runs_alone(tasks, statuses):  # one task: a coroutine, no async generator
                    await self.runner.run_alone(tasks[0], self.step + 1, parent_id=self.parent_id)
                else:
                    async for _ in self.runner.tick(tasks, self.step + 1, parent_id=self.parent_id, statuses=statuses):
                        for ev in self.queue.drain():
                            yield ev
                first = self.resuming = False
                failed = [t for t in tasks if t.error is not None]
                waiting = [t for t in tasks if t.interrupts]
                if failed or waiting:
                    self.trace.end_step(failed[0].error if failed else None)
                    if self.saver is not None:
                        await self.writer.save_stopped(self.parent_id, tasks)
                    if failed:
                        error = failed[0].error
                        reason = "ERROR"
                    else:
                        interrupts = tuple(i for t in waiting for i in t.interrupts)
                        reason = "INTERRUPT"
                    conflict = self._apply_finished(tasks, emit=not failed)
                    if conflict is not None and not failed:
                        reason, error = "ERROR", conflict  # as LangGraph: the step cannot end
                    break
                await self._finish_step(tasks)
                self.trace.end_step(None)
                for ev in self.queue.drain():
                    yield ev
                if self.interrupt_after and should_interrupt(self.checkpoint, self.interrupt_after, tasks):
                    mark_interrupt_seen(self.checkpoint)
                    reason = "INTERRUPT"
                    break
            await self.writer.flush()
        except GraphRecursionError as e:
            await self.writer.flush()
            reason, error = "RECURSION_LIMIT", e
        except (asyncio.CancelledError, GeneratorExit) as e:
            # Saved versions stay; a pending async put is allowed to land. A
            # cancelled run still ends with RunFinished (then the cancellation
            # goes on); a closed one has nobody to tell.
            await asyncio.shield(self.writer.flush_quietly())
            if isinstance(e, GeneratorExit):
                self.trace.finished("CANCELLED", steps=self.executed, checkpoint_id=None, interrupt_ids=[], error=None)
                raise
            reason, error = "CANCELLED", e
            values = await self._stored_values()
        except CheckpointError as e:  # storage failed: nothing can record how the run ended, so it raises
            await self.writer.flush_quietly()
            self.trace.finished("ERROR", steps=self.executed, checkpoint_id=self.writer.last_saved_id, interrupt_ids=[], error=e)
            raise
        except Exception as e:  # a failed write (serialization) ends the run too
            await self.writer.flush_quietly()
            reason, error = "ERROR", e
            values = await self._stored_values()
        for ev in self.queue.drain():
            yield ev
        checkpoint_id = self.writer.last_saved_id if self.saver is not None else self.parent_id
        cancelled = reason == "CANCELLED"
        ids = [getattr(i, "id", "") for i in interrupts]
        self.trace.finished(reason, steps=self.executed, checkpoint_id=checkpoint_id, interrupt_ids=ids, error=None if cancelled else error)
        self.runner.task_config = self.runner.nest = None  # type: ignore[assignment]  # no cycle: refcounting frees the run
        # With a saver: the last version that landed (a failed write names none), and its values.
        yield finished_event(reason, error, interrupts, checkpoint_id, self.output() if values is _LIVE else values)
        if cancelled:
            raise error  # type: ignore[misc]

    async def _stored_values(self) -> Any:
        """What the thread holds after the run stopped early: its last saved version's values."""
        return await self.writer.last_saved_values(self.spec) if self.saver is not None else self.output()

    # -- one superstep -----------------------------------------------------
    def _plan(self) -> list[Task]:
        """The next step's tasks; reuses the plan made for the last CheckpointSaved event."""
        planned, self._planned = self._planned, None
        if planned is not None and planned[0] == self.checkpoint["id"]:
            return planned[1]
        return prepare_next_tasks(self.checkpoint, self.channels, self.spec.nodes, self.step + 1, self.spec.triggers_to_nodes)

    def _apply_finished(self, tasks: list[Task], *, emit: bool) -> InvalidUpdateError | None:
        """A step that stopped: the run's values get its finished tasks' writes
        (:func:`apply_stopped`; a last values event at an interrupt). The error if they conflict."""
        try:
            applied = apply_stopped(self.spec.channels, self.checkpoint, tasks)
        except InvalidUpdateError as e:
            return e
        if applied is not None:
            self.channels, updated = applied
            keys = self.spec.stream_keys
            if emit and not updated.isdisjoint((keys,) if isinstance(keys, str) else keys):
                self._emit_values()
        return None

    async def _finish_step(self, tasks: list[Task]) -> None:
        _, changed = apply_writes(self.checkpoint, self.channels, tasks, triggers_to_nodes=self.spec.triggers_to_nodes)
        if self.saver is not None:  # what the next stored version's new_versions name
            versions, dirty = self.checkpoint["channel_versions"], self.writer.dirty
            for c in changed:
                dirty[c] = versions[c]
        self.pending_writes = []
        self.step += 1
        self.executed += 1
        self._emit_values(changed)  # before the version's checkpoint event, as LangGraph streams them
        await self._save("loop", self.runner.take_writes())
        if self._want(StepFinished):
            self._emit(StepFinished(self.step))

    # -- saving versions ---------------------------------------------------
    async def _save(self, source: str, parent_writes: list[tuple[str, list[tuple[str, Any]]]] | None = None) -> None:
        if self.saver is None and not self._want(CheckpointSaved):
            # Nothing stores or shows the version: it only needs its id (task ids derive from it).
            self.checkpoint["id"] = self.parent_id = new_checkpoint_id()
            return
        snapshot = new_version(self.checkpoint)
        # The caller's metadata, LangGraph's keys, and the run's id unless the caller named one.
        metadata = {"run_id": self.run_id, **self.version_metadata, "source": source, "step": self.step, "parents": dict(self.parents)}
        parent = self.parent_id
        self.parent_id = snapshot["id"]
        if self._want(CheckpointSaved):
            # Planned once: the event reports the names, the next step runs the tasks.
            planned = prepare_next_tasks(snapshot, self.channels, self.spec.nodes, self.step + 1, self.spec.triggers_to_nodes)
            self._planned = (snapshot["id"], planned)
            # "exit": the version the one version written is stored under
            under = self.writer.parent_of_next(parent) if self.saver is not None else parent
            self._emit(saved_event(snapshot, under, self.step, source, planned, self.values(), metadata))
        if self.saver is not None:
            await self.writer.put(parent, snapshot, metadata, parent_writes or [])
