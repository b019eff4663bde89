"""``@entrypoint``: a function made a graph of one node, as LangGraph 1.2's functional API.

The graph has one node, named after the function, triggered by the input
(START); what it returns is written to END (the graph's value: ``invoke``
returns it, snapshots show it) and to ``__previous__`` (what the next call on
the thread receives as ``previous``; ``entrypoint.final(value=, save=)``
returns one and saves the other). A thread's history is LangGraph's: an
"input" version (step -1) and, once the function returns, one "loop" version
(step 0); the results of the tasks it called are pending writes of the input
version, so a resumed call runs the function again from its first line and
its finished tasks return their stored results.

The function takes its input as its first parameter and, by name,
``previous``, ``config``, ``store`` and ``writer``.
"""

from __future__ import annotations

import contextvars
import dataclasses
import inspect
import types
from typing import Any, Callable, Generic, Sequence, TypeVar

from engine._internal._deprecated import renamed
from engine._internal._unsupported import WHERE_IT_DIFFERS
from engine.warnings import LangGraphDeprecatedSinceV10
from engine.channels import BaseChannel, EphemeralValue, LastValue, Topic
from engine.errors import GraphInterrupt
from engine.func._task import policies, refuse_generators
from engine.graph._allowlist import allow_schema_types
from engine.graph._draw import DrawableGraph, Edge, Node
from engine.pregel import Pregel
from engine.pregel._cache import call_namespace
from engine.pregel._calls import cancel, settle
from engine.pregel._context import CURRENT, get_stream_writer
from engine._langchain.calls import open_call
from engine.pregel._spec import TASKS, NodeSpec
from engine.pregel._threads import node_threads
from engine.pregel._timeout import sync_timeout_refused
from engine.types import END, START, CachePolicy, Command, RetryPolicy, Send, TimeoutPolicy

__all__ = ["entrypoint", "EntrypointGraph", "PREVIOUS"]

#: the channel holding what the next call on the thread gets as ``previous``
PREVIOUS = "__previous__"

R = TypeVar("R")
S = TypeVar("S")
_INJECTED = ("previous", "config", "store", "writer", "runtime")


@dataclasses.dataclass(frozen=True, slots=True)
class _Final(Generic[R, S]):
    """``entrypoint.final(value=..., save=...)``: return ``value``, keep ``save`` as the next ``previous``."""

    value: R
    save: S


class EntrypointGraph(Pregel):
    """An entrypoint's graph: run it with invoke/stream/ainvoke/astream, read it with get_state."""

    stream_mode = "updates"  # LangGraph's default for an entrypoint

    def __init__(self, *, entry_name: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entry_name = entry_name

    def get_graph(self, config: Any = None, *, xray: int | bool = False) -> DrawableGraph:
        """START -> the function -> END (the end drawn as conditional, as LangGraph draws it); ``xray`` has nothing to expand."""
        name = self.entry_name
        nodes = {START: Node(START, START), name: Node(name, name), END: Node(END, END)}
        return DrawableGraph(nodes, [Edge(START, name), Edge(name, END, conditional=True)])

    async def aget_graph(self, config: Any = None, *, xray: int | bool = False) -> DrawableGraph:
        return self.get_graph(config, xray=xray)

    def map_command(self, cmd: Command) -> list[tuple[str, Any]]:
        """A ``Command`` given as input: only ``resume`` means something to an entrypoint."""
        if cmd.update or cmd.goto:
            raise NotImplementedError(
                f"Command(update=, goto=) as an entrypoint's input is not supported; see {WHERE_IT_DIFFERS}"
            )
        return []


def _injected(fn: Callable[..., Any]) -> tuple[str, ...]:
    params = list(inspect.signature(fn).parameters.values())
    if not params:
        raise ValueError("Entrypoint function must have at least one parameter")
    names = {p.name for p in params[1:] if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return tuple(n for n in _INJECTED if n in names)


def _proc(fn: Callable[..., Any], injected: tuple[str, ...], retry_policy: tuple[RetryPolicy, ...],
          cache_policy: CachePolicy | None) -> Callable[..., Any]:
    is_async = inspect.iscoroutinefunction(fn)

    async def proc(inp: Any, config: dict[str, Any]) -> Any:
        ctx = CURRENT.get()
        assert ctx is not None and ctx.calls is not None
        scope = ctx.calls
        scope.retry_policy = retry_policy  # the entrypoint's policies are its tasks' defaults, as in LangGraph
        scope.cache_policy = cache_policy
        scope.counter = 0  # each attempt calls its tasks in the same order, so under the same ids
        lc = open_call(config, inp, ends=False)  # its models and tools under the run's callbacks
        kwargs: dict[str, Any] = {}
        for name in injected:
            if name == "previous":
                kwargs[name] = scope.state.get(PREVIOUS)
            elif name == "config":
                kwargs[name] = config if lc is None else lc.config
            elif name == "store":
                kwargs[name] = ctx.store
            elif name == "runtime":  # the run's context, store and writer, and the previous return value
                kwargs[name] = dataclasses.replace(ctx.runtime(), previous=scope.state.get(PREVIOUS))
            else:
                kwargs[name] = get_stream_writer()
        try:
            if is_async:
                result = await fn(inp, **kwargs)
                if inspect.isawaitable(result):  # a returned gather() of task futures, say
                    result = await result
            else:
                # Sync: on a node thread even under the sync face, so that the
                # tasks it waits for can run on the event loop meanwhile.
                result = await node_threads().run(contextvars.copy_context().run, lambda: fn(inp, **kwargs))
            await settle(scope)
        except GraphInterrupt as e:
            # As LangGraph: an interrupt is no failure; the calls already started run to their end
            # (their results stored), so the resumed entrypoint gets them without running them again.
            if lc is not None:
                lc.failed(e)
            await settle(scope, quiet=True)
            raise
        except BaseException as e:
            if lc is not None:
                lc.failed(e)
            cancel(scope)
            raise
        return result if lc is None else lc.returned(result)

    return proc


def _write(result: Any, state: Any, config: Any) -> list[tuple[str, Any]]:
    if isinstance(result, _Final):
        return [(END, result.value), (PREVIOUS, result.save)]
    return [(END, result), (PREVIOUS, result)]


class entrypoint:
    """Make a function a workflow (a graph of one node), as LangGraph 1.2's ``@entrypoint``.

    Args:
        checkpointer: where the thread's versions and its tasks' results are kept.
        store: the long-term store its tasks and ``store`` parameter get.
        cache: where the results of the function and of its tasks with a cache policy are kept.
        cache_policy: with ``cache``, a call of the workflow whose input's key was seen
            within the ttl returns the cached value without running (and the
            default policy of its tasks, as in LangGraph).
        retry_policy: retries of the function (and the default of its tasks).
        context_schema: what a call's ``context=`` is coerced into (``runtime.context``).
        timeout: a :class:`~engine.types.TimeoutPolicy` (or seconds) for each attempt of an async
            function (:mod:`engine.pregel._timeout`); a sync one with a timeout is refused.
    """

    final = _Final

    def __class_getitem__(cls, item: Any) -> Any:  # ``entrypoint[Context]`` in an annotation, as LangGraph's generic class
        return types.GenericAlias(cls, item)

    def __init__(
        self,
        checkpointer: Any = None,
        store: Any = None,
        cache: Any = None,
        context_schema: Any = None,
        cache_policy: CachePolicy | None = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        timeout: Any = None,
        *,
        config_schema: Any = None,
        retry: RetryPolicy | Sequence[RetryPolicy] | None = None,
    ) -> None:
        self.timeout = TimeoutPolicy.coerce(timeout)
        if config_schema is not None:  # LangGraph's older names, taken with its warnings
            renamed("config_schema", "context_schema", since=LangGraphDeprecatedSinceV10)
            context_schema = context_schema if context_schema is not None else config_schema
        if retry is not None:
            renamed("retry", "retry_policy")
            retry_policy = retry_policy if retry_policy is not None else retry
        #: what a call's ``context=`` is coerced into; the entrypoint reads it as ``runtime.context``
        self.context_schema = context_schema
        self.checkpointer = checkpointer
        self.store = store
        self.cache = cache
        self.cache_policy = cache_policy
        self.retry_policy = policies(retry_policy)

    def __call__(self, func: Callable[..., Any]) -> EntrypointGraph:
        refuse_generators(func, "entrypoint")
        injected = _injected(func)
        name = getattr(func, "__name__", None) or type(func).__name__
        if self.timeout is not None and not inspect.iscoroutinefunction(func):
            raise sync_timeout_refused(name)
        node = NodeSpec(
            name=name,
            triggers=(START,),
            read=lambda state: state.get(START),
            proc=_proc(func, injected, self.retry_policy, self.cache_policy),
            writer=_write,
            is_async=True,
            accepts_config=True,
            retry_policy=self.retry_policy,
            state_keys=frozenset((END, PREVIOUS)),
            cache_policy=self.cache_policy,
            cache_ns=(*call_namespace(func), name),
            timeout=self.timeout,
            action=func,
        )
        in_type, out_type, save_type = _types(func)
        channels: dict[str, BaseChannel[Any, Any, Any]] = {
            START: EphemeralValue(in_type, key=START),
            END: LastValue(out_type, key=END),
            PREVIOUS: LastValue(save_type, key=PREVIOUS),
            TASKS: Topic(Send, accumulate=False, key=TASKS),
        }
        stored = _annotations(func)
        for holder in (self.checkpointer, self.cache):
            if holder is not None:
                allow_schema_types(holder, stored)
        graph = EntrypointGraph(
            entry_name=name,
            builder=None,
            nodes={name: node},
            channels=channels,
            input_keys=(START,),
            output_keys=END,
            stream_keys=END,
            state_keys=frozenset((END, PREVIOUS)),
            checkpointer=self.checkpointer,
            store=self.store,
            cache=self.cache,
            context_schema=self.context_schema,
        )
        graph.stored_schemas = tuple(stored)  # for a saver a host sets on it later (Pregel.checkpointer)
        return graph


def _types(fn: Callable[..., Any]) -> tuple[Any, Any, Any]:
    """The entrypoint's input, output and saved types, from its annotations as LangGraph reads them
    (``-> entrypoint.final[R, S]``: R returned, S saved), for its input and output schemas."""
    try:
        sig = inspect.signature(fn, eval_str=True)
    except Exception:  # an annotation that does not resolve: taken as written
        sig = inspect.signature(fn)
    first = next(iter(sig.parameters.values()))
    in_type = Any if first.annotation is first.empty else first.annotation
    ret = sig.return_annotation
    if ret is sig.empty or ret is _Final:
        return in_type, Any, Any
    if getattr(ret, "__origin__", None) is _Final:
        out_type, save_type = ret.__args__
        return in_type, out_type, save_type
    return in_type, ret, ret


def _annotations(fn: Callable[..., Any]) -> list[Any]:
    """The types the function's input and return annotations name (allowed in its checkpoints)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    out = [p.annotation for p in list(sig.parameters.values())[:1] if p.annotation is not p.empty]
    ret = sig.return_annotation
    if ret is not sig.empty:
        out += list(getattr(ret, "__args__", ())) if getattr(ret, "__origin__", None) is _Final else [ret]
    return [a for a in out if not isinstance(a, str)]
