"""The superstep loop.

Theory of operation
-------------------
A run is one call (invoke, resume, fork) of a compiled graph. What it is
(the graph's frozen :class:`~engine.pregel._spec.GraphSpec`, its saver,
durability, limits, the kinds of events its caller wants) is one frozen
:class:`~engine.pregel._run.RunSettings`, decided by ``Pregel`` before it
starts; where it stands (the checkpoint, channels, step, pending writes) is
one :class:`~engine.pregel._run.RunState`, which the loop and its parts
share: the input folding (:class:`~engine.pregel._input.InputFolder`), the
versions (:class:`~engine.pregel._versions.RunVersions`: plan, show and save
the version the run stands on) and the step runner. It starts by loading the
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
from typing import Any, AsyncGenerator, Awaitable, Callable, Mapping

from engine.checkpoint.base import run_lease
from engine.errors import CheckpointError, ErrorCode, GraphDrained, GraphRecursionError, InvalidUpdateError, create_error_message
from engine.events import CheckpointSaved, CustomEvent, Event, MessageChunk, StepFinished, TaskFinished, TaskStarted, ToolEvent, ValuesEvent
from engine.pregel import _telemetry as tel
from engine._internal._task import TaskContext
from engine.pregel._algo import Task, apply_stopped, apply_writes, mark_interrupt_seen, should_interrupt
from engine.pregel._exit_deltas import ExitDeltas
from engine.pregel._input import InputFolder
from engine.pregel._local import local_faces
from engine.pregel._io import configurable_metadata, finished_event, propagated_metadata, task_config, task_namespace
from engine.pregel._nested import NestedHost, root_configurable
from engine.pregel._queue import EventQueue
from engine.pregel._run import RunSettings, RunState
from engine.pregel._runner import StepRunner
from engine.pregel._status import read_statuses
from engine.pregel._versions import RunVersions, saver_version
from engine.pregel._writer import VersionWriter

__all__ = ["RunLoop"]

_LIVE: Any = object()  # RunFinished reports the channels as they are


class RunLoop:
    """One run of a compiled graph; :meth:`events` drives it."""

    def __init__(self, settings: RunSettings, input: Any, config: Mapping[str, Any]) -> None:
        self.settings = settings
        self.state = state = RunState(input)
        self.set_up: Callable[[], Awaitable[None]] | None = None  # told once the input is folded in
        self.config = dict(config)
        self.configurable = dict(config.get("configurable") or {})
        self.thread_id = self.configurable.get("thread_id")
        host, saver = settings.host, settings.saver
        self.lease = lease = run_lease(saver, self.thread_id, self.configurable, settings.lease)
        user_metadata = dict(config.get("metadata") or {})
        self.task_metadata = propagated_metadata(self.configurable, user_metadata)  # every task's, made once
        self.local = local_faces(settings.spec.channels)  # LangGraph's __pregel_read and __pregel_send, in every task's
        if host is None:  # (the caller's keys above, as LangGraph's; the version the run loads below)
            self.configurable = root_configurable(self.configurable)
        self.queue = queue = EventQueue(settings.kinds)
        self.trace = tel.RunTrace(settings.spec.name)
        self.writer = writer = VersionWriter(
            saver, thread_id=self.thread_id, checkpoint_ns=settings.checkpoint_ns, lease=lease,
            durability=settings.durability, trace=self.trace, untracked=settings.spec.untracked, linger=settings.linger,
            landing=settings.landing,
        )  # fmt: skip
        if settings.spec.deltas:
            writer.delta_channels = {k: settings.spec.channels[k] for k in settings.spec.deltas}
            if saver is not None and settings.durability == "exit":
                writer.exit = ExitDeltas(settings.spec.deltas)
        self.versions = RunVersions(
            settings, state, writer, queue,
            # As LangGraph: every version's metadata holds the call's plain metadata and configurable keys
            # (not the thread's, namespace's or node's a subgraph's call carries in its metadata).
            # Read only when a version is stored or shown (RunVersions.save): not made for a run with neither.
            version_metadata={**configurable_metadata(user_metadata, {}), **configurable_metadata(self.configurable, user_metadata)}
            if saver is not None or settings.kinds is None or CheckpointSaved in settings.kinds else {},
            parents=dict(host.parents) if host is not None else {},
        )  # fmt: skip
        # The caller's name of the thread (RunStarted, messages); a host's storage key may differ.
        thread_name = self.thread_id if settings.thread_name is None else settings.thread_name
        self.folder = InputFolder(
            settings, state, self.versions, configurable=self.configurable, thread_id=self.thread_id,
            thread_name=thread_name, writer=writer, queue=queue, trace=self.trace,
        )  # fmt: skip
        kinds, spec = settings.kinds, settings.spec
        self.runner = runner = StepRunner(
            queue=queue,
            # events its tasks send while they run: what they write (custom, messages, tools), and an
            # entrypoint's @task calls starting and finishing (its step's one task makes them all)
            live=kinds is None or bool(kinds & {CustomEvent, MessageChunk, ToolEvent})
            or (isinstance(spec.stream_keys, str) and bool(kinds & {TaskStarted, TaskFinished})),
            writer=writer,
            trace=self.trace,
            task_config=self._task_config,
            # a task's update is its writes to the streamed keys (all the state's, or a call's output_keys), as LangGraph's
            state_keys=spec.stream_keys if isinstance(spec.stream_keys, str) else frozenset(spec.stream_keys),
            result_keys=None if spec.checkpoint_keys is None or isinstance(spec.checkpoint_keys, str) else frozenset(spec.checkpoint_keys),
            store=settings.store,
            context=settings.context,
            run_id=settings.run_id,
            cache=settings.cache,
            inline_sync=settings.inline_sync,
            sync_face=settings.sync_face,
            nest=self._nest,
            max_concurrency=self.config.get("max_concurrency"),
            step_timeout=settings.step_timeout,
        )
        runner.null_resume = state.null_resume
        if queue.want(ValuesEvent):
            runner.current_values = self.versions.values

    def _nest(self, t: Task, step: int, ctx: TaskContext, alone: bool) -> NestedHost:
        """What a graph run nested in task ``t`` borrows from this run (engine.pregel._nested).

        Its sync nodes run on the caller's thread only when ``t`` runs alone (``alone``): beside
        sibling tasks they take node threads, so a slow one does not hold the siblings' reports back."""
        settings, state, parents = self.settings, self.state, self.versions.parents
        parents = {**parents, settings.checkpoint_ns: state.parent_id} if state.parent_id else dict(parents)
        return NestedHost(
            saver=settings.saver, store=settings.store, thread_id=self.thread_id, lease=self.lease,
            durability=settings.durability, config=self.config, run_id=settings.run_id,
            recursion_limit=settings.recursion_limit, inline_sync=settings.inline_sync and alone, sync_face=settings.sync_face,
            emit=self.runner.emit_threadsafe, kinds=settings.subgraph_kinds, parent_ns=settings.checkpoint_ns,
            node=t.name, task_id=t.id, parents=parents, resuming=state.resuming, resume_map=state.resume_map,
            task=ctx, replay=state.replay, fresh=state.fresh, linger=settings.linger,
        )  # fmt: skip

    def _task_config(self, t: Task, step: int) -> dict[str, Any]:
        ns = self.settings.checkpoint_ns
        config = task_config(
            self.config, self.configurable, self.task_metadata,
            checkpoint_ns=task_namespace(ns, t.name, t.id), parent_ns=ns,
            checkpoint_id=self.state.parent_id, node=t.name, step=step, triggers=t.triggers, path=t.path,
        )  # fmt: skip
        config["configurable"].update(self.local)
        return config

    # -- the run -----------------------------------------------------------
    def events(self) -> AsyncGenerator[Event, None]:
        """The run's events, the run traced as a ``graphwire.run`` span."""
        settings = self.settings
        attributes = {
            "graphwire.thread_id": str(self.thread_id or ""),
            "graphwire.run_id": settings.run_id,
            "graphwire.recursion_limit": settings.recursion_limit,
            "graphwire.durability": settings.durability,
        }
        return tel.traced_run(self.trace, attributes, self._setup, self._run, self.queue.close)

    async def _setup(self) -> None:
        await self.folder.setup()
        if self.set_up is not None:
            await self.set_up()
        self.runner.stop = self.state.stop  # for the managed values (engine.managed) its tasks read
        self.runner.control = self.settings.control

    async def _run(self) -> AsyncGenerator[Event, None]:
        settings, state, queue, writer, runner = self.settings, self.state, self.queue, self.writer, self.runner
        for ev in queue.drain():
            yield ev
        error: BaseException | None = None
        interrupts: tuple[Any, ...] = ()
        reason = "END"
        values: Any = _LIVE
        try:
            first = True
            while True:
                # As LangGraph: the superstep numbered s runs only while s <= stop
                # (S + limit + 2, S the step of the version the call loaded): new
                # input gets START's step and `limit` node steps, a continuing call
                # limit + 2; checked before "nothing left to do".
                if state.step + 1 > state.stop:
                    raise GraphRecursionError(
                        create_error_message(
                            message=f"Recursion limit of {settings.recursion_limit} reached without hitting a stop condition. "
                            f"You can increase the limit by setting the `recursion_limit` config key.",
                            error_code=ErrorCode.GRAPH_RECURSION_LIMIT,
                        )
                    )
                tasks = self.versions.plan()
                if not tasks:
                    break
                if settings.interrupt_before and should_interrupt(state.checkpoint, settings.interrupt_before, tasks):
                    mark_interrupt_seen(state.checkpoint)
                    reason, state.breakpoint = "INTERRUPT", "interrupt_before"
                    break
                if settings.control is not None and settings.control.drain_requested:
                    # As LangGraph: after the breakpoint check (a resume passes it), before the tasks run.
                    reason, error = "ERROR", GraphDrained(settings.control.drain_reason or "shutdown")
                    break
                statuses = read_statuses(state.pending_writes) if first and state.pending_writes else None
                if statuses and state.delta is not None:
                    # As LangGraph: loaded writes no task of the step takes back (a Send a goto
                    # replaced, a task run again) are no child's history: their channels snapshot.
                    state.delta.force_unclaimed(state.pending_writes, {t.id for t in tasks if t.id in statuses})
                    if writer.exit is not None:  # ...and those it takes back are stored already
                        writer.exit.loaded = {(w[0], w[1]) for w in state.pending_writes}
                if runner.runs_alone(tasks, statuses):  # one task: a coroutine, no async generator
                    await runner.run_alone(tasks[0], state.step + 1, parent_id=state.parent_id)
                else:
                    async for _ in runner.tick(tasks, state.step + 1, parent_id=state.parent_id, statuses=statuses):
                        for ev in queue.drain():
                            yield ev
                first = state.resuming = False
                state.null_resume.clear()  # as LangGraph's, the answer belongs to the version the step ran from
                # The failure first; the siblings it cut short (recorded as cancelled) after it.
                failed = sorted((t for t in tasks if t.error is not None), key=lambda t: isinstance(t.error, asyncio.CancelledError))
                waiting = [t for t in tasks if t.interrupts or t.paused]
                timed_out = runner.timed_out  # its tasks still running were cancelled (recorded in failed)
                if failed or waiting or timed_out is not None:
                    self.trace.end_step(timed_out or (failed[0].error if failed else None))
                    if settings.saver is not None:
                        await writer.save_stopped(state.parent_id, tasks)
                    if failed or timed_out is not None:
                        error = timed_out or failed[0].error
                        reason = "ERROR"
                    else:
                        interrupts = tuple(i for t in waiting for i in t.interrupts)
                        state.shown = state.shown or bool(interrupts)  # as LangGraph's: a values chunk with them
                        reason = "INTERRUPT"
                    stopped = bool(failed) or timed_out is not None
                    conflict = self._apply_finished(tasks, emit=not stopped)
                    if conflict is not None and not stopped:
                        reason, error = "ERROR", conflict  # as LangGraph: the step cannot end
                    break
                await self._finish_step(tasks)
                self.trace.end_step(None)
                for ev in queue.drain():
                    yield ev
                if settings.interrupt_after and should_interrupt(state.checkpoint, settings.interrupt_after, tasks):
                    mark_interrupt_seen(state.checkpoint)
                    reason, state.breakpoint = "INTERRUPT", "interrupt_after"
                    break
            if reason == "END" and settings.host is not None and settings.durability == "exit" and not settings.stable_ns:
                # As LangGraph: with "exit", a subgraph that ran to its end in its task keeps no version
                # (only its parent's call stores one); a stopped one's is kept, to go on from.
                writer.discard_unsaved()
            await writer.flush(last=True)  # (a host may take the last write: engine/pregel/_landing.py)
        except GraphRecursionError as e:
            await writer.flush(last=True)
            reason, error = "RECURSION_LIMIT", e
        except (asyncio.CancelledError, GeneratorExit) as e:
            # Saved versions stay; a pending async put is allowed to land. A
            # cancelled run still ends with RunFinished (then the cancellation
            # goes on); a closed one has nobody to tell.
            await asyncio.shield(writer.flush_quietly())
            if isinstance(e, GeneratorExit):
                self.trace.finished("CANCELLED", steps=state.executed, checkpoint_id=None, interrupt_ids=[], error=None)
                raise
            reason, error = "CANCELLED", e
            values = await self._stored_values()
        except CheckpointError as e:  # storage failed: nothing can record how the run ended, so it raises
            await writer.flush_quietly()
            self.trace.finished("ERROR", steps=state.executed, checkpoint_id=writer.last_saved_id, interrupt_ids=[], error=e)
            raise
        except Exception as e:  # a failed write (serialization) ends the run too
            await writer.flush_quietly()
            reason, error = "ERROR", e
            values = await self._stored_values()
        for ev in queue.drain():
            yield ev
        checkpoint_id = writer.last_saved_id if settings.saver is not None else state.parent_id
        cancelled = reason == "CANCELLED"
        ids = [getattr(i, "id", "") for i in interrupts]
        self.trace.finished(reason, steps=state.executed, checkpoint_id=checkpoint_id, interrupt_ids=ids, error=None if cancelled else error)
        runner.task_config = runner.nest = None  # type: ignore[assignment]  # no cycle: refcounting frees the run
        # With a saver: the last version that landed (a failed write names none), and its values.
        yield finished_event(reason, error, interrupts, checkpoint_id, self.versions.output() if values is _LIVE else values, state.shown)
        if cancelled:
            raise error  # type: ignore[misc]

    async def _stored_values(self) -> Any:
        """What the thread holds after the run stopped early: its last saved version's values."""
        settings = self.settings
        return await self.writer.last_saved_values(settings.spec) if settings.saver is not None else self.versions.output()

    # -- one superstep -----------------------------------------------------
    def _apply_finished(self, tasks: list[Task], *, emit: bool) -> InvalidUpdateError | None:
        """A step that stopped: the run's values get its finished tasks' writes
        (:func:`apply_stopped`; a last values event at an interrupt). The error if they conflict."""
        spec, state = self.settings.spec, self.state
        try:
            applied = apply_stopped(spec.channels, state.checkpoint, tasks)
        except InvalidUpdateError as e:
            return e
        if applied is not None:
            state.channels, updated = applied
            if emit:
                self.versions.emit_values(updated)
        return None

    async def _finish_step(self, tasks: list[Task]) -> None:
        state, settings = self.state, self.settings
        _, changed = apply_writes(
            state.checkpoint, state.channels, tasks, saver_version(settings.saver, state.checkpoint),
            triggers_to_nodes=settings.spec.triggers_to_nodes,
        )  # fmt: skip
        if settings.saver is not None:  # what the next stored version's new_versions name
            versions, dirty = state.checkpoint["channel_versions"], self.writer.dirty
            for c in changed:
                dirty[c] = versions[c]
        if self.writer.exit is not None:
            self.writer.exit.add_step(state.step + 1, tasks)
        state.pending_writes = []
        state.step += 1
        state.executed += 1
        self.versions.emit_values(changed)  # before the version's checkpoint event, as LangGraph streams them
        await self.versions.save("loop", self.runner.take_writes())
        if self.queue.want(StepFinished):
            self.queue.emit(StepFinished(state.step))
