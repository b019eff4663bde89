"""The functional API's entrypoint and ``@task`` calls under LangChain, as a StateGraph's function nodes.

A function node runs with the config :func:`engine._langchain.stream.child_config`
makes (``engine.graph._nodes``): LangChain's current config while it runs,
so the models and tools it calls get the run's callbacks, among them the
task's "messages" and "tools" stream mode handlers, and its run named after
it for a caller's callbacks. An entrypoint's function and each task call
run the same way (as on LangGraph, where both are tasks of the graph), so
their models' tokens and their tool calls stream too.

Without langchain-core there is nothing to set up: :func:`open_call` returns None.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

__all__ = ["LangChainCall", "call_inputs", "called", "open_call"]


class LangChainCall:
    """One call's LangChain side, open while the function runs (in the context that opened it)."""

    __slots__ = ("config", "task", "token", "leave", "ends")

    def __init__(self, config: dict[str, Any], task: Any, token: Any, leave: Any, ends: bool) -> None:
        self.config = config  # what the function gets as its ``config`` (and get_config() returns)
        self.task = task
        self.token = token
        self.leave = leave
        self.ends = ends  # its run ends with its return (a task call's; an entrypoint's ends after its writes)

    def returned(self, result: Any) -> Any:
        """``result``, after sending the messages in it no model streamed; LangChain's config restored."""
        self.leave(self.token)
        out = self.task.returned(result)
        if self.ends:
            self.task.close()
        return out

    def failed(self, error: BaseException) -> None:
        self.leave(self.token)
        self.task.failed(error)


@functools.cache
def _lc_stream() -> Any:
    """:mod:`engine._langchain.stream`, imported when first needed (None without langchain-core)."""
    try:
        from engine._langchain import stream as _lc_stream
    except ImportError:
        return None
    return _lc_stream


def open_call(config: dict[str, Any], shown: Any, *, ends: bool, fn: Any = None) -> LangChainCall | None:
    """The running task's LangChain side (``shown``: its input, as its run records it; ``ends``: its run
    ends when it returns, else when the runner has made its writes); None without langchain-core.

    ``fn``: a ``@task`` call's function, ``shown`` its ``(args, kwargs)``: its run records them
    by parameter name, defaults filled in, as LangGraph's (``{"input": 0}``).
    """
    lc = _lc_stream()
    if lc is None:
        return None
    if fn is not None:
        shown = call_inputs(fn, *shown)
    child, task = lc.child_config(config, shown)
    return LangChainCall(child, task, lc.enter(child, task), lc.leave, ends)


def called(lc: LangChainCall | None, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``fn(*args, **kwargs)`` (sync), under ``lc`` if there is one."""
    if lc is None:
        return fn(*args, **kwargs)
    try:
        result = fn(*args, **kwargs)
    except BaseException as e:
        lc.failed(e)
        raise
    return lc.returned(result)


def call_inputs(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A call's arguments by parameter name, defaults filled in, ``**kwargs`` flattened (``self``
    and ``cls`` left out); ``(args, kwargs)`` as they are when they do not fit the signature."""
    sig = _signature(fn)
    if sig is None:
        return (args, kwargs)
    try:
        bound = sig.bind_partial(*args, **kwargs)
    except TypeError:
        return (args, kwargs)
    bound.apply_defaults()
    out = dict(bound.arguments)
    out.pop("self", None)
    out.pop("cls", None)
    for name, param in sig.parameters.items():
        if param.kind is inspect.Parameter.VAR_KEYWORD and name in out:
            out.update(out.pop(name))
    return out


def _signature(fn: Any) -> inspect.Signature | None:
    try:
        return _cached_signature(fn)
    except TypeError:  # not hashable
        try:
            return inspect.signature(fn)
        except (TypeError, ValueError):
            return None


@functools.lru_cache(maxsize=512)
def _cached_signature(fn: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None
