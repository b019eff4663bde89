"""``@task``: a function whose calls are tasks of the running step, with their results recorded.

Calling a task function inside an entrypoint (or a graph node, or another
task) starts it and returns a future at once: ``.result()`` waits for it in
sync code, ``await`` in async code. Its result is stored as the call
finishes, so when the caller runs again (after an interrupt, or an error) a
finished call returns its stored result without running again. See
:mod:`engine.pregel._calls` for how.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

from engine._internal._deprecated import renamed
from engine.pregel._cache import call_namespace
from engine.pregel._calls import call
from engine.pregel._timeout import sync_timeout_refused
from engine.types import CachePolicy, RetryPolicy, TimeoutPolicy

__all__ = ["task", "TaskFunction"]


def policies(policy: RetryPolicy | Sequence[RetryPolicy] | None) -> tuple[RetryPolicy, ...]:
    if policy is None:
        return ()
    if isinstance(policy, RetryPolicy):
        return (policy,)
    return tuple(policy)


def refuse_generators(fn: Any, what: str) -> None:
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise NotImplementedError(f"Generators are not supported in the Functional API ({what} {fn!r})")


class TaskFunction:
    """A function made a task by ``@task``; calling it returns a future of its result."""

    def __init__(self, func: Callable[..., Any], *, name: str | None, retry_policy: tuple[RetryPolicy, ...],
                 cache_policy: CachePolicy | None = None, timeout: TimeoutPolicy | None = None) -> None:
        refuse_generators(func, "task")
        self.func = func
        # as LangGraph's: a functools.partial is named after the function it wraps
        self.name = name or getattr(func, "__name__", None) or getattr(getattr(func, "func", None), "__name__", None) or type(func).__name__
        self.retry_policy = retry_policy
        self.cache_policy = cache_policy
        self.is_async = inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(getattr(func, "__call__", None))
        if timeout is not None and not self.is_async:
            raise sync_timeout_refused(self.name, kind="Task")
        self.timeout = timeout
        functools.update_wrapper(self, func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return call(self.func, args, kwargs, name=self.name, is_async=self.is_async, retry_policy=self.retry_policy,
                    cache_policy=self.cache_policy, timeout=self.timeout)

    def clear_cache(self, cache: Any) -> None:
        """Forget this task's cached results in ``cache`` (nothing to do for a task without a cache policy)."""
        if self.cache_policy is not None:
            cache.clear([call_namespace(self.func)])

    async def aclear_cache(self, cache: Any) -> None:
        if self.cache_policy is not None:
            await cache.aclear([call_namespace(self.func)])


def task(
    __func_or_none__: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
    cache_policy: CachePolicy | None = None,
    timeout: Any = None,
    retry: RetryPolicy | Sequence[RetryPolicy] | None = None,
) -> Any:
    """Make a function a task, as LangGraph 1.2's ``@task`` (bare, or with options).

    ``retry_policy`` retries a call that raises (``retry`` is LangGraph's older
    name). ``cache_policy``: in a graph with a cache (``entrypoint(cache=)``,
    ``compile(cache=)``), a call whose ``key_func(*args, **kwargs)`` was seen
    within the ttl returns the cached result without running. ``timeout`` (a
    :class:`~engine.types.TimeoutPolicy`, or seconds): each attempt of an async
    task's call is cancelled past it (:mod:`engine.pregel._timeout`); a sync
    task with one is refused.
    """
    limit = TimeoutPolicy.coerce(timeout)
    if retry is not None:
        renamed("retry", "retry_policy")
    pol = policies(retry_policy if retry_policy is not None else retry)

    def decorate(fn: Callable[..., Any]) -> TaskFunction:
        return TaskFunction(fn, name=name, retry_policy=pol, cache_policy=cache_policy, timeout=limit)

    return decorate(__func_or_none__) if __func_or_none__ is not None else decorate
