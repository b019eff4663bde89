"""The superstep loop.

Theory of operation
-------------------
A run is one call (invoke, resume, fork). It starts by loading the thread's
checkpoint (the newest, or the one the config names) and folding the call's
input into it (:mod:`._input`):

* new input → the tasks due at that checkpoint are discarded, the input is
  written to the START channel, and an "input" version is saved;
* ``Command(resume=...)`` → the answers are saved as pending writes of the
  interrupted tasks; no version is saved;
* ``None`` naming a checkpoint id → a "fork" version, a copy of it, is saved
  and the run continues from the copy (as LangGraph does, even for the newest);
* ``None`` without a checkpoint id → the run continues where it stopped.

Then, superstep after superstep: plan the tasks (:mod:`._algo`), run them
concurrently (a task whose writes were saved as pending writes in an earlier
attempt is not run again), apply their writes at the end of the step, save a
"loop" version. The run ends when no task is planned (END), when a task
interrupts (INTERRUPT: the interrupt is saved as a pending write on the
current version, no new version), when a task raises (ERROR: finished
siblings' writes are saved as pending writes), or at the recursion limit.

Everything the run does is reported as :mod:`engine.events` events, in order,
through one async generator; the sync and async public APIs both consume it.

Saving versions is :mod:`._writer`'s job (by durability); the writes of a
step's finished tasks are stored as pending writes of the version the step
started from: as each finishes when the step runs several (so an error or a
crash does not run them again), with the step's own version otherwise (one
write, no wait of its own).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import random
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, AsyncIterator, Mapping

from engine._internal._ids import checkpoint_id as new_checkpoint_id
from engine._internal._ids import now_iso
from engine.checkpoint.base import (
    ERROR,
    LEASE_KEY,
    INTERRUPT,
    Checkpoint,
    Lease,
    copy_checkpoint,
    empty_checkpoint,
    run_lease,
)
from engine.errors import (
    GraphInterrupt,
    GraphRecursionError,
    InvalidUpdateError,
)
from engine.events import (
    CheckpointSaved,
    CustomEvent,
    Event,
    InterruptEvent,
    MessageChunk,
    RunFinished,
    StepFinished,
    StepStarted,
    TaskFinished,
    TaskStarted,
    ValuesEvent,
)
from engine.pregel._algo import (
    Task,
    apply_writes,
    mark_interrupt_seen,
    prepare_next_tasks,
    restore_channels,
    should_interrupt,
)
from engine.pregel._context import CURRENT, TaskContext
from engine.pregel._threads import node_threads
from engine.pregel import _telemetry as tel
from engine.pregel._spec import NO_WRITES
from engine.pregel._status import read_statuses
from engine.pregel._input import InputFolding
from engine.pregel._writer import VersionWriter
from engine.types import PregelTask, RetryPolicy

if TYPE_CHECKING:
    from engine.pregel._pregel import Pregel

__all__ = ["RunLoop"]

_LIVE: Any = object()  # RunFinished reports the channels as they are


class RunLoop(InputFolding):
    """One run of a compiled graph; :meth:`events` drives it."""

    def __init__(
        self,
        graph: "Pregel",
        input: Any,
        config: Mapping[str, Any],
        *,
        durability: str,
        kinds: frozenset[type[Event]] | None,
        inline_sync: bool,
        interrupt_before: Any,
        interrupt_after: Any,
        run_id: str,
        lease: Lease | None = None,
    ) -> None:
        self.graph = graph
        self.input = input
        self.config = dict(config)
        self.configurable = dict(config.get("configurable") or {})
        self.thread_id = self.configurable.get("thread_id")
        self.saver = graph.checkpointer
        self.lease = run_lease(self.saver, self.thread_id, self.configurable, lease)
        self.durability = durability
        self.kinds = kinds
        self.inline_sync = inline_sync
        self.interrupt_before = interrupt_before
        self.interrupt_after = interrupt_after
        self.run_id = run_id
        limit = config.get("recursion_limit")
        self.recursion_limit = graph.default_recursion_limit if limit is None else int(limit)
        if self.recursion_limit < 1:
            raise ValueError("recursion_limit must be at least 1")
        self.user_metadata = dict(config.get("metadata") or {})
        self._out: deque[Event] = deque()
        self._wake: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0
        # state of the run
        self.checkpoint: Checkpoint = empty_checkpoint()
        self.channels: dict[str, Any] = {}
        self.step = -2  # step number of the newest version (-2: none yet, so the input is -1)
        self.stop = 0  # the last superstep number this call may run (set once the thread is loaded)
        self.parent_id: str | None = None  # id of the newest version (saved or not)
        self.pending_writes: list[tuple[str, str, Any]] = []
        self.executed = 0
        self._span: Any = None  # the run's span
        self._step_span: Any = None
        self._metric_attrs = {"graphwire.graph": graph.name}
        self.writer = VersionWriter(
            self.saver, durability=durability, cfg=self._cfg, span=lambda: self._span, metric_attrs=self._metric_attrs
        )
        # (task id, writes) of the tasks of the running step, stored with the next version
        self._step_writes: list[tuple[str, list[tuple[str, Any]]]] = []
        self._planned: tuple[str, list[Task]] | None = None  # (checkpoint id, its next tasks)

    # -- events ----------------------------------------------------------
    def _want(self, kind: type[Event]) -> bool:
        return self.kinds is None or kind in self.kinds

    def _emit(self, ev: Event) -> None:
        self._out.append(ev)
        w = self._wake
        if w is not None and not w.done():
            w.set_result(None)

    def _emit_any_thread(self, ev: Event) -> None:
        if threading.get_ident() == self._loop_thread:
            self._emit(ev)
        else:
            assert self._loop is not None
            self._loop.call_soon_threadsafe(self._emit, ev)

    def _drain(self) -> list[Event]:
        out = list(self._out)
        self._out.clear()
        return out

    def values(self) -> dict[str, Any]:
        return self.graph.output_values(self.channels)

    def _cfg(self, checkpoint_id: str | None) -> dict[str, Any]:
        c = {"thread_id": self.thread_id, "checkpoint_ns": ""}
        if checkpoint_id:
            c["checkpoint_id"] = checkpoint_id
        if self.lease is not None:
            c[LEASE_KEY] = self.lease  # the saver checks this fencing token on every write
        return {"configurable": c}

    # -- the run -----------------------------------------------------------
    async def events(self) -> AsyncIterator[Event]:
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._span = tel.tracer.start_span(
            "graphwire.run",
            attributes={
                "graphwire.graph": self.graph.name,
                "graphwire.thread_id": str(self.thread_id or ""),
                "graphwire.run_id": self.run_id,
                "graphwire.recursion_limit": self.recursion_limit,
                "graphwire.durability": self.durability,
            },
        )
        try:
            await self._setup()
        except BaseException as e:
            tel.fail(self._span, e)
            self._span.end()
            raise
        tel.ACTIVE_RUNS.add(1, self._metric_attrs)
        try:
            async for ev in self._run():
                yield ev
        finally:
            tel.ACTIVE_RUNS.add(-1, self._metric_attrs)
            self._span.end()

    async def _run(self) -> AsyncIterator[Event]:
        for ev in self._drain():
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
                async for ev in self._run_step(tasks, first):
                    yield ev
                first = False
                failed = [t for t in tasks if t.error is not None]
                waiting = [t for t in tasks if t.interrupts]
                if failed or waiting:
                    self._end_step(failed[0].error if failed else None)
                    await self._save_step_writes(tasks)
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
                self._end_step(None)
                for ev in self._drain():
                    yield ev
                if self.interrupt_after and should_interrupt(self.checkpoint, self.interrupt_after, tasks):
                    mark_interrupt_seen(self.checkpoint)
                    reason = "INTERRUPT"
                    break
            await self.writer.flush()
        except GraphRecursionError as e:
            await self.writer.flush()
            reason, error = "RECURSION_LIMIT", e
        except (asyncio.CancelledError, GeneratorExit):
            # Saved versions stay; a pending async put is allowed to land.
            self._span.set_attribute("graphwire.finish_reason", "CANCELLED")
            tel.RUNS.add(1, {**self._metric_attrs, "graphwire.finish_reason": "CANCELLED"})
            await asyncio.shield(self.writer.flush_quietly())
            raise
        except Exception as e:  # a failed write (serialization, storage) ends the run too
            await self.writer.flush_quietly()
            reason, error = "ERROR", e
            values = await self._stored_values()
        for ev in self._drain():
            yield ev
        self._record_finish(reason, error, interrupts)
        yield RunFinished(
            reason=reason,  # type: ignore[arg-type]
            # With a saver: the last version that landed (a failed write names none), and its values.
            checkpoint_id=self.writer.last_saved_id if self.saver is not None else self.parent_id,
            values=self.values() if values is _LIVE else values,
            error_type=type(error).__name__ if error else None,
            error_message=str(error) if error else None,
            interrupts=interrupts,
            exception=error,
        )

    async def _stored_values(self) -> dict[str, Any] | None:
        """After a failure the channels may hold what was never stored: the values of
        the last version that landed instead (None: none did, or it cannot be read now)."""
        if self.saver is None:
            return self.values()
        last = self.writer.last_saved_id
        if last is None:
            return None
        try:
            saved = await self.saver.aget_tuple(self._cfg(last))
        except Exception:  # the store failed too; the caller reads the thread later
            return None
        return None if saved is None else self.graph.output_values(restore_channels(self.graph.channels, saved.checkpoint))

    def _record_finish(self, reason: str, error: BaseException | None, interrupts: tuple[Any, ...]) -> None:
        span = self._span
        span.set_attribute("graphwire.finish_reason", reason)
        span.set_attribute("graphwire.steps", self.executed)
        cid = self.writer.last_saved_id if self.saver is not None else self.parent_id
        if cid:
            span.set_attribute("graphwire.checkpoint_id", cid)
        if interrupts:
            span.set_attribute("graphwire.interrupt_ids", [getattr(i, "id", "") for i in interrupts])
        if error is not None:
            tel.fail(span, error)
        tel.RUNS.add(1, {**self._metric_attrs, "graphwire.finish_reason": reason})

    def _emit_values(self) -> None:
        if self._want(ValuesEvent) and self.channels:
            self._emit(ValuesEvent(self.step, self.values()))

    # -- one superstep -----------------------------------------------------
    async def _run_step(self, tasks: list[Task], first: bool) -> AsyncIterator[Event]:
        step = self.step + 1
        cached: set[str] = set()
        if first and self.pending_writes:
            # As LangGraph: a task with an output write finished (it is not run
            # again, even when it was resumed); one without takes its answers.
            statuses = read_statuses(self.pending_writes)
            for t in tasks:
                st = statuses.get(t.id)
                if st is None:
                    continue
                if st.finished:
                    t.writes = st.writes
                    t.saved = True
                    cached.add(t.id)
                elif st.resume is not None:
                    t.resume = list(st.resume)
        # Only the step: its tasks are its children (a list attribute costs as
        # much as a span's other attributes together).
        self._step_span = tel.child("graphwire.step", self._span, {"graphwire.step": step})
        tel.STEPS.add(1, self._metric_attrs)
        if self._want(StepStarted):
            self._emit(StepStarted(step, tuple((t.id, t.name) for t in tasks)))
        if self._want(TaskStarted):
            for t in tasks:
                self._emit(TaskStarted(step, t.id, t.name, t.input, t.triggers))
        for t in tasks:
            if t.id in cached:
                self._finished(t, step, cached=True)
        run = [t for t in tasks if t.id not in cached]
        for ev in self._drain():
            yield ev
        record = self.durability != "exit" and self.saver is not None
        save_each = len(run) > 1 and record
        live = self.kinds is None or bool(self.kinds & {CustomEvent, MessageChunk})
        if len(run) == 1 and not live and (run[0].node.is_async or self.inline_sync):
            t = run[0]
            await self._run_task(t, step, inline=True)
            self._finished(t, step)
            if record and t.error is None and not t.interrupts:
                # Stored with the step's version, in the same write: no wait of its own.
                self._step_writes.append((t.id, t.writes or [(NO_WRITES, None)]))
                t.saved = True
        elif run:
            futs = {asyncio.ensure_future(self._run_task(t, step, inline=False)): t for t in run}
            pending = set(futs)
            try:
                while pending:
                    self._wake = self._loop.create_future()  # type: ignore[union-attr]
                    done, pending = await asyncio.wait({*pending, self._wake}, return_when=asyncio.FIRST_COMPLETED)
                    pending.discard(self._wake)
                    for f in done:
                        if f is self._wake:
                            continue
                        t = futs[f]
                        self._finished(t, step)
                        if t.error is not None or t.interrupts or not record:
                            continue
                        if save_each:
                            # Kept as each finishes, so an error or a crash does not run it again.
                            await self.writer.written()  # writes attach to a version that has landed
                            await self.saver.aput_writes(self._cfg(self.parent_id), t.writes or [(NO_WRITES, None)], t.id)  # type: ignore[union-attr]
                        else:
                            self._step_writes.append((t.id, t.writes or [(NO_WRITES, None)]))
                        t.saved = True
                    for ev in self._drain():
                        yield ev
            finally:
                self._wake = None
                for f in pending:
                    f.cancel()
        for ev in self._drain():
            yield ev

    def _plan(self) -> list[Task]:
        """The next step's tasks; reuses the plan made for the last CheckpointSaved event."""
        planned, self._planned = self._planned, None
        if planned is not None and planned[0] == self.checkpoint["id"]:
            return planned[1]
        return prepare_next_tasks(
            self.checkpoint, self.channels, self.graph.nodes, self.step + 1, self.graph.triggers_to_nodes
        )

    def _end_step(self, error: BaseException | None) -> None:
        span, self._step_span = self._step_span, None
        if span is not None:
            if error is not None:
                tel.fail(span, error)
            span.end()

    def _finished(self, t: Task, step: int, cached: bool = False) -> None:
        err = t.error
        ints = t.interrupts
        if ints and self._want(InterruptEvent):
            for i in ints:
                self._emit(InterruptEvent(i.id, t.name, t.id, i.value))
        if self._want(TaskFinished):
            self._emit(
                TaskFinished(
                    step,
                    t.id,
                    t.name,
                    update=None if err or ints else self.graph.task_update(t),
                    error=str(err) if err else None,
                    error_type=type(err).__name__ if err else None,
                    interrupts=tuple(ints),
                    cached=cached,
                    exception=err,
                )
            )

    async def _run_task(self, t: Task, step: int, *, inline: bool) -> None:
        node = t.node
        ctx = TaskContext(task_id=t.id, node=t.name, step=step, config=self._task_config(t, step), store=self.graph.store)
        resume = t.resume
        if resume:
            ctx.resume = list(resume)
        if self._want(CustomEvent):
            ctx.custom = lambda payload: self._emit_any_thread(CustomEvent(step, t.id, t.name, payload))
        if self._want(MessageChunk):
            ctx.message = lambda chunk, metadata=None: self._emit_any_thread(
                MessageChunk(step, t.id, t.name, chunk, dict(metadata or {}))
            )
        # The step is its parent's attribute; the node is current while it runs,
        # so spans it makes (an LLM client's) nest under it.
        span = tel.child(f"node {t.name}", self._step_span or self._span, {"graphwire.node": t.name, "graphwire.task_id": t.id})
        started = time.perf_counter()
        current = tel.make_current(span)
        try:
            await self._attempts(t, node, ctx, span, inline)
        finally:
            tel.restore(current)
            if t.error is not None:
                tel.fail(span, t.error)
            if t.interrupts:
                span.set_attribute("graphwire.interrupt_ids", [i.id for i in t.interrupts])
            span.end()
            tel.NODE_DURATION.record(time.perf_counter() - started, {**self._metric_attrs, "graphwire.node": t.name})

    async def _attempts(self, t: Task, node: Any, ctx: TaskContext, span: Any, inline: bool) -> None:
        attempt = 0
        while True:
            ctx.counter = 0
            token = CURRENT.set(ctx)
            try:
                args = (t.input, ctx.config) if node.accepts_config else (t.input,)
                proc = functools.partial(node.proc, store=ctx.store) if node.accepts_store and node.proc else node.proc
                if proc is None:
                    result = t.input
                elif node.is_async:
                    result = await proc(*args)
                elif inline:
                    result = proc(*args)
                else:
                    cvs = contextvars.copy_context()
                    result = await node_threads().run(cvs.run, proc, *args)
                writes = node.writer(result, t.state, ctx.config)
                if asyncio.iscoroutine(writes):
                    writes = await writes
                t.writes = writes
                return
            except GraphInterrupt as e:
                t.interrupts = e.interrupts
                return
            except asyncio.CancelledError:
                raise
            except Exception as e:
                policy = _matching_policy(node.retry_policy, e)
                if policy is not None and attempt + 1 < policy.max_attempts:
                    attempt += 1
                    span.add_event("retry", {"attempt": attempt, "exception.type": type(e).__name__, "exception.message": str(e)})
                    await asyncio.sleep(_backoff(policy, attempt))
                    continue
                t.error = e
                return
            finally:
                CURRENT.reset(token)

    def _task_config(self, t: Task, step: int) -> dict[str, Any]:
        configurable = {**self.configurable, "checkpoint_ns": f"{t.name}:{t.id}"}
        meta = {**self.user_metadata, "langgraph_step": step, "langgraph_node": t.name, "langgraph_triggers": t.triggers}
        return {**self.config, "configurable": configurable, "metadata": meta, "run_id": self.run_id}

    async def _save_step_writes(self, tasks: list[Task]) -> None:
        """A step that did not finish: keep what its tasks did as pending writes."""
        if self.saver is None:
            return
        await self.writer.flush()
        cfg = self._cfg(self.parent_id)
        for t in sorted(tasks, key=lambda t: t.sort_key):
            err = t.error
            ints = t.interrupts
            if err is not None:
                await self.saver.aput_writes(cfg, [(ERROR, repr(err))], t.id)
            elif ints:
                await self.saver.aput_writes(cfg, [(INTERRUPT, list(ints))], t.id)
            elif not t.saved:
                await self.saver.aput_writes(cfg, t.writes or [(NO_WRITES, None)], t.id)

    def _apply_finished(self, tasks: list[Task], *, emit: bool) -> InvalidUpdateError | None:
        """A step that stopped: the run's values get its finished tasks' writes.

        As LangGraph, the caller sees what the finished siblings wrote (with a
        last values event at an interrupt). The stored version is untouched:
        the run is over, and these are its pending writes. Returns the error
        if the writes conflict (then the values stay as the step started).
        """
        done = [t for t in tasks if t.error is None and not t.interrupts and t.writes]
        if not done:
            return None
        ck = copy_checkpoint(self.checkpoint)
        channels = restore_channels(self.graph.channels, ck)
        try:
            updated, _ = apply_writes(ck, channels, done)
        except InvalidUpdateError as e:
            return e
        self.channels = channels
        if emit and not updated.isdisjoint(self.graph.output_keys):
            self._emit_values()
        return None

    async def _finish_step(self, tasks: list[Task]) -> None:
        _, changed = apply_writes(self.checkpoint, self.channels, tasks)
        versions = self.checkpoint["channel_versions"]
        for c in changed:
            self.writer.dirty[c] = versions[c]
        self.pending_writes = []
        self.step += 1
        self.executed += 1
        step_writes, self._step_writes = self._step_writes, []
        await self._save("loop", step_writes)
        self._emit_values()
        if self._want(StepFinished):
            self._emit(StepFinished(self.step))

    # -- saving versions ---------------------------------------------------
    async def _save(self, source: str, parent_writes: list[tuple[str, list[tuple[str, Any]]]] | None = None) -> None:
        ck = self.checkpoint
        snapshot = Checkpoint(
            v=1,
            id=new_checkpoint_id(),
            ts=now_iso(),
            channel_values=dict(ck["channel_values"]),
            channel_versions=dict(ck["channel_versions"]),
            versions_seen=dict(ck["versions_seen"]),
            updated_channels=ck.get("updated_channels"),
        )
        ck["id"] = snapshot["id"]
        # The caller's metadata, LangGraph's keys, and the run's id unless the caller named one.
        metadata = {"run_id": self.run_id, **self.user_metadata, "source": source, "step": self.step, "parents": {}}
        parent = self.parent_id
        self.parent_id = snapshot["id"]
        if self._want(CheckpointSaved):
            # Planned once: the event reports the names, the next step runs the tasks.
            planned = prepare_next_tasks(
                snapshot, self.channels, self.graph.nodes, self.step + 1, self.graph.triggers_to_nodes
            )
            self._planned = (snapshot["id"], planned)
            self._emit(
                CheckpointSaved(
                    snapshot["id"],
                    # "exit": the version the one version written is stored under
                    self.writer.parent_of_next(parent) if self.saver is not None else parent,
                    self.step,
                    source,
                    tuple(t.name for t in planned),
                    self.values(),
                    metadata,
                    snapshot["ts"],
                    tasks=tuple(PregelTask(t.id, t.name, t.path) for t in planned),
                )
            )
        if self.saver is not None:
            await self.writer.put(parent, snapshot, metadata, parent_writes or [])


def _matching_policy(policies: Any, exc: Exception) -> RetryPolicy | None:
    for p in policies or ():
        r = p.retry_on
        if isinstance(r, type) or isinstance(r, tuple):
            if isinstance(exc, r):
                return p
        elif callable(r) and r(exc):
            return p
    return None


def _backoff(p: RetryPolicy, attempt: int) -> float:
    wait = min(p.max_interval, p.initial_interval * p.backoff_factor ** (attempt - 1))
    return wait + (random.uniform(0, wait / 4) if p.jitter else 0.0)
