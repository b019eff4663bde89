"""LangGraph's ``RunnableCallable`` under its private path (``langgraph._internal._runnable``).

LangChain 1.x's ``create_agent`` and langgraph-supervisor build their nodes
(and routers) as ``RunnableCallable(func, afunc, trace=False)``: a Runnable
made of a sync function and its async twin, which fills in the parameters a
node may take by name (``config``, ``writer``, ``store``, ``runtime``,
``previous``) as a node function gets them. As a node of a StateGraph the
engine runs its function as it runs any node function (see
:func:`engine.graph._nodes.node_call`); invoked directly (a router, or a
program calling it) it is an ordinary Runnable.

It needs langchain-core (as LangGraph's does).
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Sequence, Union

from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ensure_config, run_in_executor, var_child_runnable_config

from engine._internal._task import CURRENT

__all__ = ["RunnableCallable", "RunnableLike", "coerce_to_runnable", "injected_parameters", "node_config"]

#: What a node may be given as (LangGraph's alias): a Runnable or a function of the state.
RunnableLike = Union[Runnable[Any, Any], Callable[..., Any], Callable[..., Awaitable[Any]]]

_BY_NAME = ("config", "writer", "store", "runtime", "previous")


def injected_parameters(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The parameters of ``fn`` that are filled in by name (as a node function's are)."""
    from engine.graph._nodes import _accepts_store, _injected

    names = list(_injected(fn, getattr(fn, "__name__", "")))
    if _accepts_store(fn):
        names.append("store")
    return tuple(n for n in _BY_NAME if n in names)


#: where LangGraph's nodes find their Runtime in a config (how a caller gives one to a RunnableCallable outside a graph)
_RUNTIME_KEY = "__pregel_runtime"
#: the Runtime's attribute behind each parameter
_ATTRIBUTE = {"writer": "stream_writer", "store": "store", "previous": "previous"}


def _required(fn: Callable[..., Any]) -> frozenset[str]:
    """The injected parameters of ``fn`` with no fallback outside a graph: ``runtime``, ``previous``, and
    a ``store`` that admits no None (as LangGraph's: a missing one is the caller's error)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return frozenset()
    out = {"runtime", "previous"}
    store = params.get("store")
    if store is not None and store.default is store.empty and "None" not in str(store.annotation) and "Optional" not in str(store.annotation):
        out.add("store")
    return frozenset(out)


def _value(name: str, config: RunnableConfig, required: frozenset[str], owner: str | None) -> Any:
    ctx = CURRENT.get()
    if name == "config":
        return config
    if ctx is None:  # outside a running graph: the Runtime the config carries, as LangGraph reads it there
        runtime = (config.get("configurable") or {}).get(_RUNTIME_KEY)
        if runtime is not None:
            return runtime if name == "runtime" else getattr(runtime, _ATTRIBUTE[name])
        if name in required:
            raise ValueError(f"Missing required config key '{_ATTRIBUTE.get(name, 'N/A')}' for '{owner}'.")
        return (lambda _: None) if name == "writer" else None
    if name == "writer":
        return ctx.runtime().stream_writer
    if name == "store":
        return ctx.store
    return ctx.runtime() if name == "runtime" else ctx.runtime().previous


class RunnableCallable(Runnable[Any, Any]):
    """A sync function and (optionally) its async twin as one Runnable.

    ``trace=False`` runs the function without a run of its own in the
    caller's callbacks; ``recurse``: a Runnable the function returns is
    invoked with the same input; ``explode_args``: the input is
    ``(args, kwargs)``. Extra keyword arguments are passed on to every call.
    """

    def __init__(
        self,
        func: Callable[..., Any] | None,
        afunc: Callable[..., Awaitable[Any]] | None = None,
        *,
        name: str | None = None,
        tags: Sequence[str] | None = None,
        trace: bool = True,
        recurse: bool = True,
        explode_args: bool = False,
        **kwargs: Any,
    ) -> None:
        if func is None and afunc is None:
            raise ValueError("At least one of func or afunc must be provided.")
        fn = func if func is not None else afunc
        if name is None:
            name = getattr(fn, "__name__", None)
            name = None if name == "<lambda>" else name
        self.name = name
        self.func, self.afunc = func, afunc
        self.tags = tags
        self.trace, self.recurse, self.explode_args = trace, recurse, explode_args
        self.kwargs = kwargs
        self.func_accepts = injected_parameters(fn)  # type: ignore[arg-type]
        self.func_requires = _required(fn)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"{self.get_name()}(tags={self.tags!r}, recurse={self.recurse!r}, explode_args={self.explode_args!r})"

    def _call_args(self, input: Any, config: RunnableConfig, extra: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        kwargs = {**self.kwargs, **extra, **{n: _value(n, config, self.func_requires, self.name) for n in self.func_accepts if n not in extra}}
        if self.explode_args:
            args, more = input
            return tuple(args), {**more, **kwargs}
        return (input,), kwargs

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if self.func is None:
            raise TypeError(f'No synchronous function provided to "{self.name}".\nEither initialize with a synchronous function or invoke via the async API (ainvoke, astream, etc.)')
        config = self._config(config)
        args, kw = self._call_args(input, config, kwargs)
        if self.trace:

            def body(_: Any, config: RunnableConfig) -> Any:  # its config: the run's child (named ``config`` so LangChain passes it)
                return self.func(*args, **({**kw, "config": config} if "config" in kw else kw))  # type: ignore[misc]

            out = self._call_with_config(body, input, config)  # type: ignore[arg-type]  # it passes a ``config`` parameter
        else:
            token = var_child_runnable_config.set(config)
            try:
                out = self.func(*args, **kw)
            finally:
                var_child_runnable_config.reset(token)
        if self.recurse and isinstance(out, Runnable):
            return out.invoke(input, config)
        return out

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if self.afunc is None:
            return await run_in_executor(config, self.invoke, input, config, **kwargs)
        config = self._config(config)
        args, kw = self._call_args(input, config, kwargs)

        async def body(_: Any, config: RunnableConfig) -> Any:
            return await self.afunc(*args, **({**kw, "config": config} if "config" in kw else kw))  # type: ignore[misc]

        if self.trace:
            out = await self._acall_with_config(body, input, config)  # type: ignore[arg-type]
        else:
            token = var_child_runnable_config.set(config)
            try:
                out = await self.afunc(*args, **kw)
            finally:
                var_child_runnable_config.reset(token)
        if self.recurse and isinstance(out, Runnable):
            return await out.ainvoke(input, config)
        return out

    def _config(self, config: RunnableConfig | None) -> RunnableConfig:
        config = ensure_config(config)
        if self.tags:
            config["tags"] = [*config.get("tags", []), *self.tags]
        return config


def coerce_to_runnable(thing: Any, *, name: str | None, trace: bool) -> Any:
    """``thing`` (a node or a router as given) as a Runnable, as LangGraph's own helper of that name makes it:
    a Runnable (or anything with ``invoke``, such as a compiled graph) as it is, a generator function as a
    ``RunnableLambda``, another function as a :class:`RunnableCallable` (an async one as its ``afunc``), a
    dict as a ``RunnableParallel``."""
    import inspect

    from langchain_core.runnables import RunnableLambda, RunnableParallel

    if isinstance(thing, Runnable) or hasattr(thing, "invoke"):
        return thing
    if inspect.isasyncgenfunction(thing) or inspect.isgeneratorfunction(thing):
        return RunnableLambda(thing, name=name)
    if callable(thing):
        if inspect.iscoroutinefunction(thing) or inspect.iscoroutinefunction(getattr(thing, "__call__", None)):
            return RunnableCallable(None, thing, name=name, trace=trace)
        return RunnableCallable(thing, name=name, trace=trace)
    if isinstance(thing, dict):
        return RunnableParallel(thing)
    raise TypeError(f"Expected a Runnable, callable or dict. Instead got an unsupported type: {type(thing)}")


def node_config(metadata: dict[str, Any] | None, config: RunnableConfig | None) -> RunnableConfig:
    """``config`` under a node's own metadata, as LangGraph's ``PregelNode.invoke`` merges them
    (``engine.pregel._spec.NodeSpec.invoke``: a node run alone)."""
    from langchain_core.runnables.config import merge_configs

    own: RunnableConfig = {"metadata": metadata} if metadata else {}
    return merge_configs(own, config)
