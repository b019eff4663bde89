"""Node timeouts: an async node's attempt cancelled when it runs past its :class:`~engine.types.TimeoutPolicy`.

As LangGraph 1.2's: the attempt runs as a task of its own beside a watch;
``run_timeout`` caps the attempt's whole time, ``idle_timeout`` the time
since its last sign of progress: a ``runtime.heartbeat()`` call, and with
``refresh_on="auto"`` also a custom event or a message chunk it streams, or
any callback event of the LangChain calls it makes (a model's tokens).
Past either, the attempt's task is cancelled and the attempt fails with
:class:`~engine.errors.NodeTimeoutError`, which the node's retry policy may
retry and its error handler may take over. What the attempt would have
written is lost with it (its writes are made from what it returns), and a
node that catches the cancellation and goes on still times out: what it
sends after that (custom events, message chunks, ``push_message``) is
dropped (:func:`stale`), as LangGraph closes a timed-out attempt's writers.

Only async nodes take a timeout: a sync function cannot be stopped in the
process, so a sync node (or ``@task``, ``@entrypoint``) with one is refused
when it is declared or compiled, with LangGraph's message. Cancellation is
cooperative: a node that blocks the event loop is stopped only once it gives
the loop back.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import time
from datetime import timedelta
from typing import Any, Callable, Coroutine, Literal

from engine.errors import NodeTimeoutError
from engine.types import TimeoutPolicy

__all__ = ["runs_sync", "stale", "sync_timeout_refused", "timed"]

_SYNC = "Node timeouts are only supported for async nodes because sync Python execution cannot be safely cancelled in-process."


def sync_timeout_refused(name: str, *, kind: Literal["Node", "Task"] = "Node") -> ValueError:
    """LangGraph's error for a timeout given to a sync node or task."""
    return ValueError(f"{_SYNC} {kind} {name!r} is sync.")


def runs_sync(step: Any) -> bool:
    """Whether a low-level node's step (a function, a Runnable) runs sync code only, as LangGraph's
    ``Pregel`` validation decides it for a node with a timeout: a ``RunnableLambda`` without an async
    function, a wrapped or parallel one with such a step; a Runnable of another kind has an async face."""
    if inspect.isfunction(step) or inspect.ismethod(step):
        return not inspect.iscoroutinefunction(step)
    if type(step).__module__ == "engine._internal._runnable":  # LangGraph's RunnableCallable: (func, afunc)
        return step.afunc is None
    if type(step).__name__ == "RunnableLambda":
        return getattr(step, "afunc", None) is None
    inner = getattr(step, "bound", None)  # RunnableBinding (with_config, bind)
    if inner is not None and inner is not step:
        return runs_sync(inner)
    parts = getattr(step, "steps__", None)  # RunnableParallel
    if isinstance(parts, dict):
        return any(runs_sync(s) for s in parts.values())
    return False


class _Beat:
    """One timed attempt: its last sign of progress (monotonic seconds); ``closed`` once it timed out."""

    __slots__ = ("last", "closed", "auto")

    def __init__(self, auto: bool = True) -> None:
        self.last = time.monotonic()
        self.closed = False
        self.auto = auto  # refresh_on="auto": a LangChain callback event is progress too (engine._langchain.stream)

    def __call__(self) -> None:
        self.last = time.monotonic()


#: the timed attempt the running code belongs to (its task's context, and the tasks and threads it starts)
_ATTEMPT: contextvars.ContextVar[_Beat | None] = contextvars.ContextVar("graphwire_timed_attempt", default=None)


def stale() -> bool:
    """Whether the running code is an attempt that timed out and goes on anyway: what it sends (custom
    events, message chunks, ``push_message``) is dropped, as LangGraph closes a timed-out attempt's writers."""
    attempt = _ATTEMPT.get()
    return attempt is not None and attempt.closed


def _refreshing(send: Callable[..., None] | None, beat: _Beat) -> Callable[..., None]:
    def refresh(*args: Any) -> None:
        beat()
        if send is not None:
            send(*args)

    return refresh


async def timed(aw: Coroutine[Any, Any, Any], policy: TimeoutPolicy, node: str, ctx: Any) -> Any:
    """Await ``aw`` (an attempt of ``node``, whose task context is ``ctx``) within ``policy``.

    Raises:
        NodeTimeoutError: the attempt ran past ``policy``; it was cancelled.
    """
    beat = _Beat(policy.refresh_on == "auto")
    started = beat.last
    saved = ctx.custom, ctx.message, ctx.beat
    ctx.beat = beat
    if policy.refresh_on == "auto":
        ctx.custom = _refreshing(ctx.custom, beat)
        if ctx.message is not None:
            ctx.message = _refreshing(ctx.message, beat)
    context = contextvars.copy_context()
    context.run(_ATTEMPT.set, beat)
    task = asyncio.get_running_loop().create_task(aw, context=context)
    run, idle = policy.run_timeout, policy.idle_timeout
    assert not isinstance(run, timedelta) and not isinstance(idle, timedelta)  # TimeoutPolicy.coerce gave seconds
    try:
        while True:
            now = time.monotonic()
            ends = [t for t in (started + run if run else None, beat.last + idle if idle else None) if t is not None]
            done, _ = await asyncio.wait((task,), timeout=max(0.0, min(ends) - now))
            if done:
                return task.result()
            now = time.monotonic()
            if run and now >= started + run:
                kind: Literal["idle", "run"] = "run"
            elif idle and now >= beat.last + idle:
                kind = "idle"
            else:
                continue  # progress since: the idle deadline moved
            beat.closed = True
            task.cancel()
            task.add_done_callback(_retrieve)  # a node that outlives its cancellation is not awaited
            raise NodeTimeoutError(node, now - started, kind=kind, idle_timeout=idle, run_timeout=run)
    except asyncio.CancelledError:
        task.cancel()  # the run was cancelled: so is the attempt
        raise
    finally:
        ctx.custom, ctx.message, ctx.beat = saved


def _retrieve(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()
