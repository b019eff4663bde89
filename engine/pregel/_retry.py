"""Running one task's node, attempt after attempt, as its retry policies say.

A node's result becomes the task's writes (through the node's writer); an
``interrupt()`` becomes the task's interrupts; an exception a policy
matches is retried after a backoff, up to the policy's ``max_attempts``, and
otherwise becomes the task's error. Each attempt runs with a fresh
interrupt counter, so a retried node asks its questions again from the
first; under a timeout (:mod:`engine.pregel._timeout`) an attempt that runs
too long fails with ``NodeTimeoutError``. The run's cancellation is never
caught; a node that raises ``CancelledError`` itself fails with
``NodeCancelledError``, as LangGraph's. A node returning
``Command(graph=Command.PARENT)`` ends its task with a
:class:`~engine.errors.ParentCommand` (its run, a subgraph's, stops there);
a node whose subgraph raised one applies the command as its own result.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import random
import time
from typing import Any, Sequence

from engine._internal._sync import call_off_loop, in_a_task
from engine.errors import GraphInterrupt, NodeCancelledError, ParentCommand
from engine.pregel._algo import Task
from engine.pregel._context import CURRENT, TaskContext
from engine.pregel._spec import WRITTEN_BEFORE
from engine.pregel._threads import node_threads
from engine.pregel._timeout import sync_timeout_refused, timed
from engine.types import RetryPolicy

__all__ = ["run_attempts", "matching_policy", "backoff", "cancelled_from_outside", "note_task"]


async def run_attempts(t: Task, ctx: TaskContext, span: Any, *, inline: bool) -> None:
    """Run ``t``'s node until it returns, interrupts, or fails past its retries; fill ``t`` in.

    ``inline``: a sync node runs on the calling thread (the sync face, one task
    alone) rather than on the engine's node threads.
    """
    node = t.node
    timeout = t.timeout or node.timeout
    attempt = 0
    ctx.first_attempt_time = time.time()
    while True:
        ctx.counter = 0
        ctx.pushed = None  # a retried attempt pushes its messages again
        ctx.attempt = attempt + 1
        token = CURRENT.set(ctx)
        try:
            args = (t.input, ctx.config) if node.accepts_config else (t.input,)
            proc = functools.partial(node.proc, store=ctx.store) if node.accepts_store and node.proc else node.proc
            try:
                if proc is None:
                    result = t.input
                elif timeout is not None:
                    if not node.is_async:  # a Send's timeout to a sync node (add_node's is refused at compile)
                        raise sync_timeout_refused(t.name)
                    result = await timed(proc(*args), timeout, t.name, ctx)
                elif node.is_async:
                    result = await in_a_task(proc(*args))
                elif inline:
                    result = call_off_loop(proc, *args)
                else:
                    cvs = contextvars.copy_context()
                    result = await node_threads().run(cvs.run, proc, *args)
            except ParentCommand as e:
                if e.orphan:  # from a graph the node ran on its own: it has no parent graph
                    raise
                # A subgraph this node ran handed its parent (this graph) a Command: as if the node returned it.
                result = e.command
            try:
                writes = node.writer(result, t.state, ctx.config)
                if type(writes) is not list and asyncio.iscoroutine(writes):
                    writes = await in_a_task(writes)
            except BaseException as e:
                _close_run(ctx, e)
                raise
            if ctx.lc is not None:
                _close_run(ctx, None)
            t.writes = ctx.pushed + writes if ctx.pushed else writes
            return
        except GraphInterrupt as e:
            t.interrupts = e.interrupts
            if ctx.took_null:  # its answers so far, the run's null answer among them, are kept with its question
                t.resume, t.took_null = list(ctx.resume), True
            t.paused = not e.interrupts  # a subgraph stopped at one of its static breakpoints
            return
        except ParentCommand as e:  # this node's Command(graph=PARENT): for the graph above, never retried
            t.error = e
            return
        except asyncio.CancelledError as e:
            if cancelled_from_outside():
                raise
            # As LangGraph: the node raised CancelledError itself, a failure like any other.
            t.error = NodeCancelledError(t.name)
            t.error.__cause__ = e
            return
        except Exception as e:
            note_task(e, t.name, t.id)
            policy = matching_policy(node.retry_policy, e)
            if policy is not None and attempt + 1 < policy.max_attempts:
                attempt += 1
                span.add_event("retry", {"attempt": attempt, "exception.type": type(e).__name__, "exception.message": str(e)})
                await _wait(backoff(policy, attempt), node.is_async or not ctx.sync_call, inline)
                continue
            t.error = e
            t.writes = getattr(e, WRITTEN_BEFORE, t.writes)  # a router that raised: what its node wrote before it
            return
        finally:
            CURRENT.reset(token)


def note_task(error: BaseException, name: str, task_id: str) -> None:
    """Name the task on its failure, as LangGraph's does on each attempt's (``__notes__``, in every traceback;
    a subgraph's failure carries the inner task's and the outer's)."""
    error.add_note(f"During task with name '{name}' and id '{task_id}'")


async def _wait(seconds: float, on_loop: bool, inline: bool) -> None:
    """The backoff before a retry. A sync node under the sync face waits in ``time.sleep`` on its
    thread, as LangGraph's sync runner does (so a test patching ``time.sleep`` sees the waits)."""
    if on_loop:
        await asyncio.sleep(seconds)
    elif inline:
        time.sleep(seconds)
    else:
        await node_threads().run(time.sleep, seconds)


def cancelled_from_outside() -> bool:
    """Whether the running task is being cancelled (the run is), rather than a node raising CancelledError."""
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return task is not None and (cancelling is None or cancelling() > 0)


def _close_run(ctx: TaskContext, error: BaseException | None) -> None:
    """The node's LangChain run (if its callbacks made one) ends after its writer, as LangGraph's."""
    lc, ctx.lc = ctx.lc, None
    if lc is not None:
        lc.close(error)


def matching_policy(policies: Sequence[RetryPolicy] | None, exc: Exception) -> RetryPolicy | None:
    """The first policy whose ``retry_on`` (exception classes, or a predicate) matches ``exc``."""
    for p in policies or ():
        r = p.retry_on
        if isinstance(r, type) or isinstance(r, Sequence):
            if isinstance(exc, r if isinstance(r, type) else tuple(r)):
                return p
        elif callable(r) and r(exc):
            return p
    return None


def backoff(p: RetryPolicy, attempt: int) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based), jitter included."""
    wait = min(p.max_interval, p.initial_interval * p.backoff_factor ** (attempt - 1))
    return wait + (random.uniform(0, 1) if p.jitter else 0.0)  # as LangGraph's: up to a second more
