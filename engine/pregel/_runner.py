"""Running one superstep's tasks: concurrently, each with its retries, events as they go.

:meth:`StepRunner.tick` runs the tasks the loop planned and fills each in
(its writes, interrupts or error); it reports what happens to the run's
:class:`~engine.pregel._queue.EventQueue` (StepStarted, TaskStarted,
InterruptEvent, TaskFinished, and the custom events and message chunks nodes
write, from whatever thread they run on: a thread is paced by the queue), and
yields whenever something was emitted, so the loop can pass events on while
tasks still run. It never applies writes: that is the loop's, at the step's
end.

A task whose writes the step already recorded (an earlier attempt of the
step, or a resume whose sibling finished) is not run again: it reports its
stored writes as ``cached``. The writes of finished tasks are kept for the
version that follows (:meth:`StepRunner.take_writes`), or stored as each
finishes when the step runs several (so an error or a crash in one does not
run the others again).

A lone task that needs no live events runs inline, without a task of its own.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, AsyncIterator, Callable, Coroutine

from engine.events import CustomEvent, Event, InterruptEvent, MessageChunk, StepStarted, TaskFinished, TaskStarted, ToolEvent
from engine.pregel import _telemetry as tel
from engine.pregel._delta import stamp_ids, task_path_str
from engine.pregel._algo import Task
from engine.pregel._calls import CallScope, store_held, within
from engine.pregel._cache import cached_writes, keep_writes
from engine.pregel._context import TaskContext
from engine.pregel._handlers import failure_writes, handled_by, handler_task, stops_others, take_over
from engine.pregel._io import task_update
from engine.pregel._nested import Lazy, NestedHost
from engine.pregel._queue import EventQueue
from engine.pregel._retry import run_attempts
from engine.pregel._spec import NO_WRITES
from engine.pregel._status import TaskStatus
from engine.pregel._timeout import stale
from engine.pregel._writer import VersionWriter

__all__ = ["StepRunner"]

#: (task id, writes) of one step's finished tasks, for the version that follows
#: (task id, its writes, its task path) of a step
StepWrites = list[tuple[str, list[tuple[str, Any]], str]]

#: the kinds a runner asks its queue about once, when it is made
_ASKED = (StepStarted, TaskStarted, InterruptEvent, TaskFinished, CustomEvent, MessageChunk, ToolEvent)


class StepRunner:
    """Runs the steps of one run, one :meth:`tick` each."""

    def __init__(
        self,
        *,
        queue: EventQueue,
        live: bool,
        writer: VersionWriter,
        trace: tel.RunTrace,
        task_config: Callable[[Task, int], dict[str, Any]],
        state_keys: frozenset[str] | str, result_keys: frozenset[str] | str | None = None,
        store: Any,
        inline_sync: bool,
        sync_face: bool = False,
        nest: Callable[[Task, int, TaskContext, bool], NestedHost] | None = None,
        context: Any = None,
        run_id: str | None = None,
        cache: Any = None,
        max_concurrency: int | None = None,
        step_timeout: float | None = None,
    ) -> None:
        self._queue = queue
        self._emit_to = queue.emit
        self.want = want = queue.want
        # What the run's caller wants never changes during the run: asked once.
        kinds = queue.kinds
        self._wants = {k: k in kinds for k in _ASKED} if kinds is not None else {k: want(k) for k in _ASKED}
        self.live = live  # the caller wants events nodes write while they run (custom, messages, tools)
        self.writer = writer
        self.trace = trace
        self.task_config = task_config
        self.state_keys, self.result_keys = state_keys, result_keys  # result_keys: all, where output keys narrowed state_keys
        self.store = store
        self.context = context
        self.run_id = run_id
        self.cache = cache  # compile(cache=...): where nodes with a cache policy keep their writes
        #: the run's answer no waiting task took (RunState.null_resume, the same list), or none
        self.null_resume: list[Any] = []
        self.inline_sync = inline_sync
        self.sync_face = sync_face  # the call came through the sync face: a failure waits for its siblings on threads (tick)
        #: the graph's ``step_timeout``: seconds a step's tasks may run (LangGraph's), None for no limit
        self.step_timeout = step_timeout
        #: the TimeoutError of a step whose time ran out (tick), else None
        self.timed_out: TimeoutError | None = None
        #: config["max_concurrency"]: how many of a step's tasks (and their calls) run at once (LangGraph's)
        self.gate = asyncio.Semaphore(max_concurrency) if max_concurrency else None
        self.nest = nest  # what a graph run nested in a task borrows from the run (engine.pregel._nested)
        self.control: Any = None  # the run's RunControl, which its tasks' runtime shows
        #: a subgraph's run without a saver: its tasks ask their questions as this (the parent's) task
        self.delegate: TaskContext | None = None
        self.seen_by: tuple[set[str], ...] = ()  # (a nested run's: TaskContext.seen_by)
        self.current_values: Callable[[], dict[str, Any]] | None = None  # the state, for TaskFinished.values (the loop's)
        self._blocked = False  # a sync node runs inline: the loop's thread waits for it
        self.record = writer.saver is not None and writer.durability != "exit"
        self._writes: StepWrites = []
        self._wake: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = 0
        self._parent_id: str | None = None
        self._statuses: dict[str, TaskStatus] = {}
        self.stop = 0  # the call's last step: the loop's, which the managed values its tasks read (engine.managed)

    # -- events --------------------------------------------------------------
    def emit(self, ev: Event) -> None:
        self._emit_to(ev)
        w = self._wake
        if w is not None and not w.done():
            w.set_result(None)

    def emit_threadsafe(self, ev: Event) -> None:
        """:meth:`emit` from any thread: a sync node's, a model callback's.

        Another thread waits first while the run's consumer has not taken what
        it handed over (:meth:`EventQueue.room`), so a node writing in a tight
        loop goes at the consumer's pace; once the run is over, it drops ``ev``.
        """
        if threading.get_ident() == self._thread:
            self.emit(ev)
        elif self._blocked:
            # The loop's thread is inside the node (a subgraph it invoked runs on
            # another thread): nothing drains the queue until the node returns.
            self._emit_to(ev)
        elif self._queue.room(ev):
            assert self._loop is not None
            self._loop.call_soon_threadsafe(self._arrive, ev)

    def _arrive(self, ev: Event) -> None:
        self._queue.arrive(ev)
        w = self._wake
        if w is not None and not w.done():
            w.set_result(None)

    def take_writes(self) -> StepWrites:
        """The finished tasks' writes not stored yet, for the step's version (and forget them)."""
        out, self._writes = self._writes, []
        return out

    # -- one step ------------------------------------------------------------
    async def tick(self, tasks: list[Task], step: int, *, parent_id: str | None, statuses: dict[str, TaskStatus] | None) -> AsyncIterator[None]:
        """Run ``tasks`` (the step ``step`` planned from version ``parent_id``); yield when events wait.

        ``statuses``: what the step's pending writes recorded of its tasks
        (the first step of a call that continues a version), or None.
        """
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._parent_id, self._statuses = parent_id, statuses or {}
        self.timed_out = None
        cached: set[str] = set()
        taken: set[str] = set()
        if statuses:
            # As LangGraph: a task with an output write finished (it is not run
            # again, even when it was resumed); one without takes its answers.
            for t in list(tasks):
                st = statuses.get(t.id)
                if st is None:
                    continue
                if st.handled and t.node.error_handler is not None:
                    # Its error handler took its failure over: the handler runs (again), not the node.
                    h = handler_task(t, st.error, parent_id, step)
                    take_over(t)
                    cached.add(t.id)
                    taken.add(t.id)
                    tasks.append(h)
                    t = h
                    if (st := statuses.get(h.id)) is None:
                        continue
                if st.finished:
                    t.writes = st.writes
                    t.saved = True
                    cached.add(t.id)
                elif st.resume is not None:
                    t.resume = list(st.resume)
        hits: set[str] = set()
        if self.cache is not None:
            # As LangGraph: a task whose writes are cached does not run; they are its writes.
            found = await cached_writes(self.cache, [t for t in tasks if t.id not in cached])
            for t in tasks:
                if t.id in found:
                    t.writes = found[t.id]
                    hits.add(t.id)
        self.trace.step(step)
        if self.want(StepStarted):
            self.emit(StepStarted(step, tuple((t.id, t.name) for t in tasks)))
        if self.want(TaskStarted):
            for t in tasks:
                if t.id not in hits:  # as LangGraph's "tasks" mode: a cache hit did not start
                    self.emit(TaskStarted(step, t.id, t.name, t.input, t.triggers))
        for t in tasks:
            if t.id in taken:
                continue  # a failure its handler took over: no result to report again
            if t.id in cached or t.id in hits:
                self._finished(t, step, cached=True)
            if t.id in hits and self.record:
                # Stored with the step's version; if the step stops, as a stopped step's finished task.
                self._writes.append((t.id, t.writes or [(NO_WRITES, None)], task_path_str(t.path)))
        run = [t for t in tasks if t.id not in cached and t.id not in hits]
        yield
        if len(run) == 1 and self._inline(run[0]) and self.step_timeout is None:
            await self._run_inline(run[0], step)
            if handled_by(run[0]):
                h = await self._hand_over(run[0], step, tasks)
                if self._inline(h):
                    await self._run_inline(h, step)
                else:
                    await self._run_task(h, step, inline=False)
                    self._finished(h, step)
                    if self.record and h.error is None and not h.interrupts and not h.paused:
                        self._writes.append((h.id, h.writes or [(NO_WRITES, None)], task_path_str(h.path)))
                        h.saved = True
        elif run:
            save_each = len(run) > 1 and self.record
            futs: dict[asyncio.Future[Any], Task] = {asyncio.ensure_future(self._gated(t, step)): t for t in run}
            pending = set(futs)
            order = {f: i for i, f in enumerate(futs)}
            ended: dict[asyncio.Future[Any], int] = {}  # in the order they finished (their callbacks run so)

            def track(f: asyncio.Future[Any]) -> None:
                f.add_done_callback(lambda f: ended.setdefault(f, len(ended)))

            for f in futs:
                track(f)
            loop = self._loop
            deadline = None if self.step_timeout is None else loop.time() + self.step_timeout
            try:
                while pending:
                    self._wake = wake = self._loop.create_future()
                    if self._queue.holds():
                        # Events came while the run's consumer had the last ones: take them now (a paced
                        # thread writes no more, to wake this, until they are taken).
                        wake.set_result(None)
                    left = None if deadline is None else max(0.0, deadline - loop.time())
                    done, pending = await asyncio.wait({*pending, wake}, timeout=left, return_when=asyncio.FIRST_COMPLETED)
                    pending.discard(wake)
                    if not done:  # the step's time ran out (step_timeout): what is still running stops
                        self._time_up(pending, futs)
                        deadline = None
                        continue
                    # ``done`` is a set. Async nodes report in the order they finished, as LangGraph's
                    # commit as each one's future completes; nodes on threads that finished together, in plan
                    # order, as LangGraph's thread pool, which its tasks usually leave in the order submitted.
                    if len(done) > 1:
                        by_end = all(f is wake or futs[f].node.is_async for f in done)
                        done = sorted(done, key=lambda f: (ended.get(f, len(futs)), order.get(f, -1)) if by_end else order.get(f, -1))  # type: ignore[assignment]
                    for f in done:
                        if f is wake:
                            continue
                        t = futs[f]
                        if f.cancelled():  # cut short by a sibling's failure (below): recorded as cancelled
                            t.error = asyncio.CancelledError()
                            continue
                        self._finished(t, step)
                        if handled_by(t):  # its error handler's task runs in this step, beside the others
                            h = await self._hand_over(t, step, tasks)
                            f = asyncio.ensure_future(self._gated(h, step))
                            futs[f], order[f] = h, len(order)
                            track(f)
                            pending.add(f)
                            continue
                        if t.error is not None and stops_others(t) and not self.sync_face:
                            # As LangGraph: a failure stops the step, so its tasks still running are
                            # cancelled (a sync node's thread finishes its call, and the result is dropped);
                            # the next wait collects them. Under the sync face, as LangGraph's thread pool,
                            # they finish, and what they wrote is kept.
                            for p in pending:
                                p.cancel()
                        if t.error is not None or t.interrupts or t.paused or not self.record:
                            continue
                        if save_each:
                            # Kept as each finishes, so an error or a crash does not run it again.
                            await self.writer.put_writes(parent_id, t.writes or [(NO_WRITES, None)], t.id, task_path_str(t.path))
                        else:
                            self._writes.append((t.id, t.writes or [(NO_WRITES, None)], task_path_str(t.path)))
                        t.saved = True
                    yield
            finally:
                self._wake = None
                for f in pending:
                    f.cancel()
        yield

    def _time_up(self, pending: set[asyncio.Future[Any]], futs: dict[asyncio.Future[Any], Task]) -> None:
        """As LangGraph when a step outlives ``step_timeout``: the step fails with TimeoutError
        ("Timed out" under the sync face, as its thread pool's wait; none under the async face, as
        asyncio's). Its tasks still running are cancelled (the next wait records them so, and they run
        again when the thread goes on), but for sync nodes on threads under the sync face: a thread
        cannot be stopped, and as LangGraph's pool the call waits for them, keeping what they write."""
        for f in pending:
            if not self.sync_face or futs[f].node.is_async:
                f.cancel()
        self.timed_out = TimeoutError("Timed out") if self.sync_face else TimeoutError()

    def runs_alone(self, tasks: list[Task], statuses: dict[str, TaskStatus] | None) -> bool:
        """Whether the step is one task :meth:`run_alone` can run: nothing recorded of it, no
        cache to look in, and no event its caller waits for before it ends (live events, a
        task's or step's start: those steps run by :meth:`tick`, which yields as they come)."""
        return (
            len(tasks) == 1 and not statuses and self.cache is None and not self.live and self.step_timeout is None
            and (tasks[0].node.is_async or self.inline_sync) and tasks[0].node.error_handler is None
            and not self._wants[TaskStarted] and not self._wants[StepStarted]
        )  # fmt: skip

    async def run_alone(self, t: Task, step: int, *, parent_id: str | None) -> None:
        """:meth:`tick` for a step of one task (see :meth:`runs_alone`), as a plain coroutine:
        the same events, without an async generator's round trips."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._parent_id, self._statuses = parent_id, {}
        self.trace.step(step)
        await self._run_inline(t, step)

    def _inline(self, t: Task) -> bool:
        """Whether ``t``, alone in its step, runs on the loop's thread (:meth:`_run_inline`). Not a sync
        node with a cache: the calls it makes look the cache up on the loop."""
        return not self.live and (t.node.is_async or (self.inline_sync and self.cache is None))

    async def _hand_over(self, t: Task, step: int, tasks: list[Task]) -> Task:
        """``t`` failed and its node's error handler takes over (engine.pregel._handlers): its failure
        is stored first (a resume runs the handler, not the node), then the handler's task joins the step."""
        record = failure_writes(t)
        if self.record:
            await self.writer.put_writes(self._parent_id, record, t.id, task_path_str(t.path))
        h = handler_task(t, t.error, self._parent_id, step)
        take_over(t, None if self.record else record)
        tasks.append(h)
        return h

    async def _run_inline(self, t: Task, step: int) -> None:
        """A lone task, on the loop's thread (a sync node under the sync face too)."""
        self._blocked = not t.node.is_async
        try:
            await self._run_task(t, step, inline=True)
        finally:
            self._blocked = False
        self._finished(t, step)
        if self.record and t.error is None and not t.interrupts and not t.paused:
            # Stored with the step's version, in the same write: no wait of its own.
            self._writes.append((t.id, t.writes or [(NO_WRITES, None)], task_path_str(t.path)))
            t.saved = True

    def _finished(self, t: Task, step: int, cached: bool = False) -> None:
        if self.writer.delta_channels and t.writes:  # messages to a DeltaChannel get their ids before they are stored
            t.writes = stamp_ids(self.writer.delta_channels, list(t.writes))
        err, ints = t.error, t.interrupts
        if ints and self._wants[InterruptEvent]:
            for i in ints:
                self.emit(InterruptEvent(i.id, t.name, t.id, i.value, i.response_schema))
        if self._wants[TaskFinished] and not t.paused:  # a subgraph's breakpoint: the task has not finished
            self.emit(
                TaskFinished(
                    step,
                    t.id,
                    t.name,
                    update=None if err or ints else task_update(t.writes, self.state_keys),
                    error=str(err) if err else None,
                    error_type=type(err).__name__ if err else None,
                    interrupts=tuple(ints),
                    cached=cached,
                    exception=err,
                    values=self.current_values() if ints and self.current_values is not None else None,
                    result=None if err or ints or self.result_keys is None else task_update(t.writes, self.result_keys),
                )
            )

    def _gated(self, t: Task, step: int) -> Coroutine[Any, Any, Any]:
        """A task beside others in its step, within the run's ``max_concurrency`` if it has one."""
        run = self._run_task(t, step, inline=False, gated=self.gate is not None)
        return run if self.gate is None else within(self.gate, run)

    async def _run_task(self, t: Task, step: int, *, inline: bool, gated: bool = False) -> None:
        if t.node.bare:
            # START's task: its input's writes; no user code runs, so no context (~8 µs a run)
            # and, traced, a span (the run's first node span) that need not be made current.
            span = self.trace.task(t.name, t.id)
            started = time.perf_counter()
            try:
                t.writes = t.node.writer(t.input, t.state, {})
            except Exception as e:  # the input is not one of the graph's (the run ends with it)
                t.error = e
            self.trace.task_done(span, t.name, started, t.error, ())
            return
        ctx = TaskContext(
            task_id=t.id,
            node=t.name,
            step=step,
            config=self.task_config(t, step),
            store=self.store,
            context=self.context,
            checkpoint_id=self._parent_id or "",
            run_id=self.run_id,
            control=self.control,
            state=t.state,
            state_keys=t.node.state_keys,
            sync_call=self.inline_sync,
            node_error=t.node_error,
        )
        if t.resume:
            ctx.resume = list(t.resume)
        ctx.null_resume = self.null_resume
        ctx.calls = CallScope(self, step, self._parent_id, self._statuses, t.state, loop=self._loop,
                              inline=inline and not t.node.is_async, gated=gated)
        if self.nest is not None:
            ctx.nest = Lazy(self.nest, t, step, ctx, inline)
        ctx.delegate, ctx.seen_by = self.delegate, self.seen_by
        if self._wants[CustomEvent]:

            def custom(payload: Any) -> None:
                if not stale():  # an attempt that timed out and goes on sends nothing (engine.pregel._timeout)
                    self.emit_threadsafe(CustomEvent(step, t.id, t.name, payload))

            ctx.custom = custom
        if self._wants[MessageChunk]:

            def message(chunk: Any, metadata: dict[str, Any] | None = None) -> None:
                if not stale():
                    self.emit_threadsafe(MessageChunk(step, t.id, t.name, chunk, dict(metadata or {})))

            ctx.message = message
        if self._wants[ToolEvent]:

            def tools(payload: Any) -> None:
                if not stale():
                    self.emit_threadsafe(ToolEvent(step, t.id, t.name, payload))

            ctx.tools = tools
        # The node's span is current while it runs, so spans it makes (an LLM client's) nest under it.
        span = self.trace.task(t.name, t.id)
        started = time.perf_counter()
        current = self.trace.enter(span)
        try:
            await run_attempts(t, ctx, span, inline=inline)
            if ctx.calls.held:
                await store_held(ctx.calls)
        finally:
            tel.restore(current)
            self.trace.task_done(span, t.name, started, t.error, t.interrupts)
            ctx.nest = None  # its Lazy holds ctx: no cycle left for the collector
        if self.cache is not None:
            await keep_writes(self.cache, t)
