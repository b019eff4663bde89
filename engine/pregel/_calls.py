"""Tasks a running node calls (the functional API's ``@task``): run, recorded, not run twice.

A call made inside a running task becomes a task of its own in the same
step, as in LangGraph 1.2: it gets a deterministic id (its caller's task id
and the call's place in the caller's order of calls), runs with a context of
its own (so ``interrupt()`` inside it asks and is answered as that task), and
when it returns, its result is stored at once as a pending write of the
version the step started from (``__return__``). When the step runs again (a
resume, or ``invoke(None)`` after an error), the caller runs again from its
first line and each call it makes finds its stored result by id instead of
running again; an unfinished call takes the answers stored for it.

Events: a call's TaskStarted, and its TaskFinished with the returned value
as ``update`` (LangGraph's "updates" chunk ``{name: value}``). A call that
interrupts records its interrupt under its own id and raises it into its
caller, which then stops with the same interrupt (so the interrupt shows on
the caller's task, and a resume is answered to the call). A call found
stored reports its start only (as LangGraph's "tasks" mode). A call with a cache policy (its own, or its
entrypoint's), in a graph with a cache, whose arguments' key is cached
within the ttl does not run: the cached result is stored and returned as if
it had (its TaskFinished marked ``cached``), as in LangGraph; a call that
returns is cached before its result is handed back, so a later call with the
same key, in the same run or another, finds it. Under ``durability="exit"`` calls' writes are stored
when the run ends, if it stops in the step they belong to (an interrupt, an
error), with the version that step started from.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import dataclasses
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol, Sequence

from engine._internal._ids import task_id as make_task_id
from engine._internal._unsupported import WHERE_IT_DIFFERS
from engine.checkpoint.base import INTERRUPT
from engine.errors import GraphInterrupt
from engine.events import Event, TaskFinished, TaskStarted
from engine.pregel._cache import call_cache_key
from engine.pregel._context import CURRENT, TaskContext
from engine.pregel._io import task_namespace
from engine.pregel._nested import Lazy, NestedHost
from engine._langchain.calls import called, open_call
from engine.pregel._retry import backoff, cancelled_from_outside, matching_policy, note_task
from engine.pregel._status import TaskStatus
from engine.pregel._threads import node_threads
from engine.pregel._timeout import timed
from engine.types import CachePolicy, RetryPolicy, TimeoutPolicy

if TYPE_CHECKING:
    from engine.cache.base import BaseCache
    from engine.pregel._writer import VersionWriter

__all__ = ["CallScope", "RETURN", "PUSH", "call", "settle", "cancel", "store_held"]

#: a call's future: an asyncio one for an async caller, a ``concurrent.futures`` one for a sync caller
Future = asyncio.Future[Any] | concurrent.futures.Future[Any]
#: the pending write a finished call's return value is stored under
RETURN = "__return__"
#: the trigger a call's task reports (LangGraph's)
PUSH = "__pregel_push"


class CallsRunner(Protocol):
    """What a task's calls use of their step's :class:`~engine.pregel._runner.StepRunner` (which
    imports this module, so it is named here by what it offers)."""

    writer: VersionWriter
    cache: BaseCache[Any] | None  # the graph's node cache
    gate: asyncio.Semaphore | None  # the run's max_concurrency, or None

    def want(self, kind: type[Event]) -> bool: ...

    def emit(self, ev: Event) -> None: ...


@dataclass(slots=True)
class CallScope:
    """What the calls of one running task need of their step: how to find, run and record them."""

    runner: CallsRunner  # the step's StepRunner
    step: int
    parent_id: str | None  # the version the step started from: calls' writes are stored there
    statuses: dict[str, TaskStatus]
    state: dict[str, Any]  # the planned task's state values (an entrypoint reads ``previous`` there)
    retry_policy: Sequence[RetryPolicy] = ()  # for calls that have none of their own
    cache_policy: CachePolicy | None = None  # likewise (an entrypoint's cache_policy)
    counter: int = 0
    started: list[Future] = field(default_factory=list)  # futures of calls not awaited yet
    loop: asyncio.AbstractEventLoop | None = None
    # the caller is sync code running on the event loop's own thread (the sync face runs a
    # lone sync node inline): its calls run there and then, their writes held until it returns
    inline: bool = False
    held: list[tuple[str, list[tuple[str, Any]]]] = field(default_factory=list)
    # the caller runs within one of the run's max_concurrency slots: its calls run in it too
    # (a call taking a slot of its own while its caller holds one could wait for ever)
    gated: bool = False


def call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], *, name: str, is_async: bool,
         retry_policy: Sequence[RetryPolicy], cache_policy: CachePolicy | None = None, timeout: TimeoutPolicy | None = None) -> Future:
    """Start a call of ``fn`` as a task of the running task; its future.

    In a coroutine (an async caller) the future is an asyncio one (await it);
    elsewhere (a sync caller, on a node thread) a ``concurrent.futures.Future``
    (``.result()`` waits for it).
    """
    ctx = CURRENT.get()
    if ctx is None or ctx.calls is None:
        raise RuntimeError(f"task {name!r} can only be called from inside a running entrypoint, node or task")
    scope: CallScope = ctx.calls
    idx = scope.counter  # taken here, in the caller's order, so ids do not depend on timing
    scope.counter += 1
    call_id = make_task_id(ctx.task_id, "call", idx, name)
    policies = tuple(retry_policy) or tuple(scope.retry_policy)
    cache = cache_policy or scope.cache_policy
    if scope.inline:
        # The runner runs no node inline when the graph has a cache (looking it up takes the loop).
        assert cache is None or scope.runner.cache is None
        return _run_inline(scope, ctx, call_id, fn, args, kwargs, name=name, is_async=is_async, retry_policy=policies)
    coro = _run(scope, ctx, call_id, fn, args, kwargs, name=name, is_async=is_async, retry_policy=policies,
                cache_policy=cache, timeout=timeout)
    if scope.runner.gate is not None and not scope.gated:  # config["max_concurrency"], as LangGraph's executor
        coro = within(scope.runner.gate, coro)
    assert scope.loop is not None
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is scope.loop:
        fut: Future = asyncio.ensure_future(coro)
    else:
        fut = asyncio.run_coroutine_threadsafe(coro, scope.loop)
    scope.started.append(fut)
    return fut


async def within(gate: asyncio.Semaphore, coro: Awaitable[Any]) -> Any:
    """``coro`` run once ``gate`` has a slot (the run's ``max_concurrency``)."""
    async with gate:
        return await coro


async def settle(scope: CallScope, *, quiet: bool = False) -> None:
    """Wait for the calls a task started and did not wait for (as LangGraph's step waits for them).

    An interrupt of one of them is raised here, seen by the caller or not
    (``quiet``: not: the caller is stopping with its own interrupt, and what
    its calls finished is stored, so its next run does not run them again).
    A call's error is not: as in LangGraph, it is raised into its caller,
    which waits for it (and may catch it) or not. A call the caller
    cancelled is not waited for, as in LangGraph.
    """
    while scope.started:
        fut = scope.started.pop(0)
        waited = fut if isinstance(fut, asyncio.Future) else asyncio.wrap_future(fut)
        try:
            await waited
        except asyncio.CancelledError:
            if not fut.cancelled() or cancelled_from_outside():
                raise
        except GraphInterrupt:  # recorded with the call
            if not quiet:
                raise
        except Exception:  # recorded with the call; its caller had it to see
            continue


def cancel(scope: CallScope) -> None:
    for fut in scope.started:
        fut.cancel()
    scope.started.clear()


async def store_held(scope: CallScope) -> None:
    """Store the writes of the calls an inline caller made (see :attr:`CallScope.inline`)."""
    held, scope.held = scope.held, []
    for call_id, writes in held:
        await scope.runner.writer.put_call_writes(scope.parent_id, writes, call_id)


def _child(scope: CallScope, parent: TaskContext, call_id: str, name: str, st: TaskStatus | None) -> TaskContext:
    config = {**parent.config, "metadata": {**parent.config.get("metadata", {}), "langgraph_node": name}}
    ctx = TaskContext(task_id=call_id, node=name, step=scope.step, config=config, store=parent.store,
                      custom=parent.custom, message=parent.message, tools=parent.tools)
    if st is not None and st.resume:
        ctx.resume = list(st.resume)
    if parent.nest is not None:  # a graph run inside the call nests under it, as under a node (LangGraph's namespaces)
        ctx.nest = Lazy(_call_host, parent.nest, ctx, name, call_id)
    ctx.calls = CallScope(scope.runner, scope.step, scope.parent_id, scope.statuses, scope.state, scope.retry_policy,
                          scope.cache_policy, loop=scope.loop, inline=scope.inline, held=scope.held,
                          gated=scope.gated or scope.runner.gate is not None)
    return ctx


def _call_host(caller: Callable[[], NestedHost], ctx: TaskContext, name: str, call_id: str) -> NestedHost:
    """What a graph run inside a ``@task`` call borrows: its caller's host, one namespace down (``caller_ns|name:id``)."""
    host = caller()
    ns = task_namespace(host.parent_ns, host.node, host.task_id)
    return dataclasses.replace(host, parent_ns=ns, node=name, task_id=call_id, task=ctx, nested=0)


def _run_inline(scope: CallScope, parent: TaskContext, call_id: str, fn: Callable[..., Any], args: tuple[Any, ...],
                kwargs: dict[str, Any], *, name: str, is_async: bool, retry_policy: Sequence[RetryPolicy]
                ) -> concurrent.futures.Future[Any]:
    """A call from sync code on the loop's thread: run now, on this thread; a finished future."""
    fut: concurrent.futures.Future[Any] = concurrent.futures.Future()
    st = scope.statuses.get(call_id)
    if st is not None and st.finished:
        if scope.runner.want(TaskStarted):
            scope.runner.emit(TaskStarted(scope.step, call_id, name, (args, kwargs), (PUSH,)))
        fut.set_result(dict(st.writes).get(RETURN))
        return fut
    if is_async:
        raise NotImplementedError(
            f"async task {name!r} called from a sync node the sync face runs on the event loop's thread; "
            f"make the node async, or call the graph with ainvoke/astream; see {WHERE_IT_DIFFERS}"
        )
    runner = scope.runner
    ctx = _child(scope, parent, call_id, name, st)
    if runner.want(TaskStarted):
        runner.emit(TaskStarted(scope.step, call_id, name, (args, kwargs), (PUSH,)))
    attempt = 0
    while True:
        ctx.counter = 0
        ctx.calls.counter = 0
        token = CURRENT.set(ctx)
        lc = open_call(ctx.config, (args, kwargs), ends=True, fn=fn)
        try:
            result = called(lc, fn, args, kwargs)
        except GraphInterrupt as e:
            if runner.writer.saver is not None:
                scope.held.append((call_id, [(INTERRUPT, list(e.interrupts))]))
            fut.set_exception(e)
            return fut
        except Exception as e:
            note_task(e, name, call_id)
            policy = matching_policy(retry_policy, e)
            if policy is not None and attempt + 1 < policy.max_attempts:
                attempt += 1
                time.sleep(backoff(policy, attempt))  # the caller blocks this thread anyway
                continue
            if runner.want(TaskFinished):
                runner.emit(TaskFinished(scope.step, call_id, name, error=str(e), error_type=type(e).__name__, exception=e))
            fut.set_exception(e)
            return fut
        finally:
            CURRENT.reset(token)
        break
    if runner.writer.saver is not None:
        scope.held.append((call_id, [(RETURN, result)]))
    if runner.want(TaskFinished):
        runner.emit(TaskFinished(scope.step, call_id, name, update=result))
    fut.set_result(result)
    return fut


async def _run(scope: CallScope, parent: TaskContext, call_id: str, fn: Callable[..., Any], args: tuple[Any, ...],
               kwargs: dict[str, Any], *, name: str, is_async: bool, retry_policy: Sequence[RetryPolicy],
               cache_policy: CachePolicy | None, timeout: TimeoutPolicy | None = None) -> Any:
    st = scope.statuses.get(call_id)
    runner = scope.runner
    if st is not None and st.finished:
        if runner.want(TaskStarted):  # as LangGraph's "tasks" mode: it starts, its stored result is taken
            runner.emit(TaskStarted(scope.step, call_id, name, (args, kwargs), (PUSH,)))
        return dict(st.writes).get(RETURN)
    cache = runner.cache if cache_policy else None
    key = call_cache_key(fn, cache_policy, args, kwargs) if cache is not None else None
    if runner.want(TaskStarted):  # a cache hit too, as LangGraph's "tasks" mode shows
        runner.emit(TaskStarted(scope.step, call_id, name, (args, kwargs), (PUSH,)))
    if cache is not None and key is not None and key in (found := await cache.aget([key])):
        result = dict(tuple(w) for w in found[key]).get(RETURN)
        await _finish(scope, call_id, name, result, cached=True)
        return result
    ctx = _child(scope, parent, call_id, name, st)
    attempt = 0
    while True:
        ctx.counter = 0
        ctx.calls.counter = 0
        try:
            attempt_ = _attempt(ctx, fn, args, kwargs, is_async)
            result = await (attempt_ if timeout is None else timed(attempt_, timeout, name, ctx))  # an async task's
            await settle(ctx.calls)
        except GraphInterrupt as e:
            cancel(ctx.calls)
            if runner.writer.saver is not None:
                await runner.writer.put_call_writes(scope.parent_id, [(INTERRUPT, list(e.interrupts))], call_id)
            raise
        except asyncio.CancelledError:
            cancel(ctx.calls)
            raise
        except Exception as e:
            cancel(ctx.calls)
            note_task(e, name, call_id)
            policy = matching_policy(retry_policy, e)
            if policy is not None and attempt + 1 < policy.max_attempts:
                attempt += 1
                await asyncio.sleep(backoff(policy, attempt))
                continue
            if runner.want(TaskFinished):
                runner.emit(TaskFinished(scope.step, call_id, name, error=str(e), error_type=type(e).__name__, exception=e))
            raise
        break
    if cache is not None and cache_policy is not None and key is not None:
        await cache.aset({key: ([(RETURN, result)], cache_policy.ttl)})
    await _finish(scope, call_id, name, result)
    return result


async def _finish(scope: CallScope, call_id: str, name: str, result: Any, *, cached: bool = False) -> None:
    runner = scope.runner
    if runner.writer.saver is not None:
        await runner.writer.put_call_writes(scope.parent_id, [(RETURN, result)], call_id)
    if runner.want(TaskFinished):
        runner.emit(TaskFinished(scope.step, call_id, name, update=result, cached=cached))


async def _attempt(ctx: TaskContext, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                   is_async: bool) -> Any:
    token = CURRENT.set(ctx)
    lc = open_call(ctx.config, (args, kwargs), ends=True, fn=fn)  # its models and tools under the run's callbacks
    try:
        if is_async:
            result = await fn(*args, **kwargs)
        else:
            cvs = contextvars.copy_context()
            result = await node_threads().run(cvs.run, lambda: fn(*args, **kwargs))
    except BaseException as e:
        if lc is not None:
            lc.failed(e)
        raise
    finally:
        CURRENT.reset(token)
    return result if lc is None else lc.returned(result)
