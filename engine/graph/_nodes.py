"""What ``add_node`` accepts, made into what the loop calls.

LangGraph 1.2 takes a plain or async function of the state, optionally with
parameters it fills in by name: ``config`` (the task's RunnableConfig, when
unannotated or annotated ``RunnableConfig``), ``writer`` (the custom stream
writer), ``runtime`` (the task's :class:`~engine.runtime.Runtime`, whatever
its annotation), ``previous`` (``runtime.previous``: None in a StateGraph),
``store`` (the graph's store, passed by the loop) and ``error`` annotated
``NodeError`` (in an error handler, the failure it handles). Any
langchain-core Runnable (an LCEL chain, a ``RunnableLambda``, a chat model
with tools bound) is a node too, invoked with the task's config. This module
turns each into a :class:`NodeCall`: ``proc(input, config)`` (or
``proc(input)`` when nothing needs the config) and whether it is async.

With langchain-core installed, every node runs with the task's config as
LangChain's current config (``var_child_runnable_config``), so a chat model
or chain called inside a plain function, without passing ``config``, still
gets the run's callbacks, tags and metadata, and in stream mode "messages"
the engine's handler (:mod:`engine._langchain.stream`) that turns its tokens
into message chunks, as LangGraph's does. Messages a node returns that no
model streamed are sent to "messages" mode too, as LangGraph sends them.
"""

from __future__ import annotations

import copy
import dis
import functools
import inspect
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable

from engine._internal._task import get_stream_writer, node_error_of_task, runtime_of_task
from engine.errors import GraphDefinitionError, NodeError
from engine._langchain import messages as langchain_messages, runnable_class, runnables
from engine.types import END, START, StreamWriter

__all__ = ["NodeCall", "called_subgraph", "node_call", "is_runnable", "router_function", "subgraph_call"]



@dataclass(frozen=True, slots=True)
class NodeCall:
    proc: Callable[..., Any]
    is_async: bool
    accepts_config: bool
    # the loop passes ``store=`` (a wrapper hands it on to the function)
    accepts_store: bool = False


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


def is_runnable(action: Any) -> bool:
    """Whether ``action`` is a langchain-core Runnable (False without langchain-core)."""
    runnable = runnable_class()
    return runnable is not None and isinstance(action, runnable)


def _annotation_names(p: inspect.Parameter) -> str:
    a = p.annotation
    return a if isinstance(a, str) else f"{getattr(a, '__name__', '')} {a!r}"


def _injected(fn: Any, name: str) -> dict[str, str]:
    """The parameters LangGraph fills in that ``fn`` takes: name -> what to inject."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    out: dict[str, str] = {}
    for kw, p in params.items():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        empty = p.annotation is p.empty
        text = "" if empty else _annotation_names(p)
        if kw == "config" and (empty or "RunnableConfig" in text):
            out[kw] = "config"
        elif kw == "config":  # as LangGraph: not filled in, and a warning (it used to take any type)
            warnings.warn(
                f"The 'config' parameter should be typed as 'RunnableConfig' or 'RunnableConfig | None', not '{p.annotation}'. ",
                UserWarning,
                stacklevel=5,
            )
        elif kw == "writer" and (empty or "StreamWriter" in text or p.annotation == StreamWriter):
            out[kw] = "writer"
        elif kw in ("runtime", "previous"):  # as LangGraph: by name, whatever the annotation
            out[kw] = kw
        elif kw == "error" and p.annotation in (NodeError, "NodeError"):  # an error handler's failure (None elsewhere)
            out[kw] = kw
    return out


def _accepts_store(fn: Any) -> bool:
    """Whether ``fn`` takes the graph's store: a ``store`` parameter, untyped or typed ``BaseStore``
    (``Optional`` too), as LangGraph injects it (another type keeps it the caller's)."""
    try:
        param = inspect.signature(fn).parameters.get("store")
    except (TypeError, ValueError):
        return False
    if param is None or param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
        return False
    from engine.store.base import BaseStore

    return param.annotation in (param.empty, BaseStore, "BaseStore", BaseStore | None, "Optional[BaseStore]", "BaseStore | None")


def _callable_function(action: Any) -> Any:
    """The function of a LangGraph ``RunnableCallable`` (``engine._internal._runnable``) to run as a node
    function (its sync one if it has one, as LangGraph's sync calls run), or None: not one, or one that
    passes extra arguments or explodes its input (run as a Runnable)."""
    if type(action).__module__ != "engine._internal._runnable" or action.kwargs or action.explode_args:
        return None
    return action.func if action.func is not None else action.afunc


def async_call(name: str, action: Any, trace: Any = None) -> NodeCall | None:
    """How an async run calls ``action`` when it is a LangGraph ``RunnableCallable`` with both faces: its
    async function (LangGraph runs ``afunc`` under ``ainvoke``/``astream`` and ``func`` under ``invoke``;
    LangChain's ``create_agent`` model node with async-only middleware has no working sync face); None
    for anything else, which runs alike in both."""
    if _callable_function(action) is None or action.func is None or action.afunc is None:
        return None
    face = copy.copy(action)
    face.func = None
    return node_call(name, face, trace)


def _invoking_returned_runnables(fn: Any) -> Any:
    """``fn``, and a Runnable it returns invoked on the same input with the task's config (a
    ``RunnableCallable``'s ``recurse=True``); its signature stays ``fn``'s (parameters filled in by name)."""
    from engine._internal._task import CURRENT

    def config() -> Any:
        ctx = CURRENT.get()
        return None if ctx is None else ctx.config

    if _is_async(fn):

        @functools.wraps(fn)
        async def arun(state: Any, *args: Any, **kwargs: Any) -> Any:
            out = await fn(state, *args, **kwargs)
            return await out.ainvoke(state, config()) if is_runnable(out) else out

        return arun

    @functools.wraps(fn)
    def run(state: Any, *args: Any, **kwargs: Any) -> Any:
        out = fn(state, *args, **kwargs)
        return out.invoke(state, config()) if is_runnable(out) else out

    return run


def router_function(path: Any) -> Any:
    """What a conditional edge calls for ``path``: a ``RunnableCallable``'s function (its ``invoke``
    when the function takes parameters filled in by name), anything else as it is."""
    fn = _callable_function(path)
    if fn is None:
        return path
    return path.invoke if path.func_accepts else fn


def _runnable_map(name: str, action: dict[str, Any]) -> Any:
    """A dict of Runnables (or functions) as a node, as LangGraph coerces it: LangChain's
    ``RunnableParallel``, which runs each on the input and returns a dict of their results."""
    lc = runnables()
    if lc is None:
        raise GraphDefinitionError(f"node {name!r} is a dict: a map of Runnables needs langchain-core: pip install 'langchain-core>=1,<2'")
    return lc.RunnableParallel(action)


def node_call(name: str, action: Any, trace: Any = None) -> NodeCall:
    """How the loop calls the node ``action`` (a function or a Runnable); ``trace``: its
    :class:`~engine.types.TracePolicy` (what its run records in the caller's callbacks)."""
    if (fn := _callable_function(action)) is not None:
        action = _invoking_returned_runnables(fn) if action.recurse else fn
    if isinstance(action, dict):
        action = _runnable_map(name, action)
    if is_runnable(action):
        return NodeCall(_runnable_proc(name, action, trace=trace), True, True)
    if not callable(action):
        raise GraphDefinitionError(f"node {name!r} must be a function or a Runnable, not {type(action).__name__}")
    injected = _injected(action, name)
    is_async = _is_async(action)
    store = _accepts_store(action)
    extra = {kw: what for kw, what in injected.items() if kw != "config"}
    if langchain_messages() is None:
        if not extra:
            return NodeCall(action, is_async, "config" in injected, store)
        return NodeCall(_with_kwargs(action, injected, is_async), is_async, True, store)
    return NodeCall(_lc_proc(action, injected, is_async, trace), is_async, True, store)


def _kwargs(injected: dict[str, str], config: Any, passed: dict[str, Any]) -> dict[str, Any]:
    """The injected arguments of one call; ``passed`` is what the loop gave (``store``)."""
    out = dict(passed)
    for kw, what in injected.items():
        if what == "config":
            out[kw] = config
        elif what == "writer":
            out[kw] = get_stream_writer()
        elif what == "runtime":
            out[kw] = runtime_of_task()
        elif what == "previous":  # the functional API's previous return value; None in a StateGraph
            out[kw] = runtime_of_task().previous
        elif what == "error":
            out[kw] = node_error_of_task()
    return out


def _with_kwargs(fn: Any, injected: dict[str, str], is_async: bool) -> Callable[..., Any]:
    if is_async:

        async def acall(state: Any, config: Any, **passed: Any) -> Any:
            return await fn(state, **_kwargs(injected, config, passed))

        return acall

    def call(state: Any, config: Any, **passed: Any) -> Any:
        return fn(state, **_kwargs(injected, config, passed))

    return call


def _lc_proc(fn: Any, injected: dict[str, str], is_async: bool, trace: Any = None) -> Callable[..., Any]:
    """``fn`` run under LangChain's current config, its new messages sent to "messages" mode."""
    from engine._langchain import stream as _lc_stream  # needs langchain-core, which the caller checked

    if is_async:

        async def acall(state: Any, config: Any, **passed: Any) -> Any:
            child, task = _lc_stream.child_config(config, state, trace)
            token = _lc_stream.enter(child, task)
            try:
                result = await fn(state, **_kwargs(injected, child, passed))
            except BaseException as e:
                task.failed(e)
                raise
            finally:
                _lc_stream.leave(token)
            return task.returned(result)

        return acall

    def call(state: Any, config: Any, **passed: Any) -> Any:
        child, task = _lc_stream.child_config(config, state, trace)
        token = _lc_stream.enter(child, task)
        try:
            result = fn(state, **_kwargs(injected, child, passed)) if injected or passed else fn(state)
        except BaseException as e:
            task.failed(e)
            raise
        finally:
            _lc_stream.leave(token)
        return task.returned(result)

    return call


def _runnable_proc(name: str, runnable: Any, *, streams: bool = True, trace: Any = None) -> Callable[..., Any]:
    """``runnable`` as a node; ``streams``: for a caller streaming events it runs by ``astream``."""
    from engine._langchain import stream as _lc_stream  # needs langchain-core, which the caller checked

    async def call(state: Any, config: Any) -> Any:
        child, task = _lc_stream.child_config(config, state, trace)
        try:
            result = await _lc_stream.run_node_runnable(runnable, state, child, task, streams=streams)
        except BaseException as e:
            task.failed(e)
            raise
        return task.returned(result)

    return call


#: values no graph hides in: when every name a function reaches holds one, its code is not walked
_LEAVES = (str, bytes, int, float, bool, complex, type(None))


def _reached(fn: Any) -> list[Any]:
    """The values ``fn`` reaches from outside its own scope: its closure's cells, the globals it names,
    and each value along an attribute path its code (or a nested def's, lambda's or comprehension's)
    loads from one of those (``CHAIN.payload.payload``). As LangGraph's, it over-approximates."""
    fn = getattr(fn, "__func__", fn)
    wrapped = getattr(fn, "__wrapped__", None)
    if callable(wrapped):
        fn = getattr(wrapped, "__func__", wrapped)
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):
        return []
    cells: dict[str, Any] = {}
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            cells[name] = cell.cell_contents
        except ValueError:  # a cell not filled yet
            continue
    named = getattr(fn, "__globals__", {})
    globals_ = {n: named[n] for n in code.co_names if n in named}
    found = list(cells.values())
    if all(type(v) in _LEAVES for v in (*cells.values(), *globals_.values())):
        return found
    found.extend(globals_.values())
    codes = [code]
    for c in codes:
        codes.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        value: Any = None
        for ins in dis.get_instructions(c):
            if ins.opname == "LOAD_GLOBAL":
                value = globals_.get(ins.argval)
            elif ins.opname == "LOAD_DEREF":
                value = cells.get(ins.argval)
            elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and value is not None:
                try:
                    value = getattr(value, ins.argval, None)
                except Exception:  # a property that fails: no path through it
                    value = None
                if value is not None:
                    found.append(value)
            else:
                value = None  # anything else ends a path: ``a, b.c`` is not ``a.c``
    return found


def named_node(node: Any, action: Any) -> tuple[str, Any]:
    """``add_node``'s name and action: ``add_node(fn)`` names the node after ``fn`` (a compiled graph
    after its name); a name is a non-empty string, not START or END, without the namespace separators."""
    if action is None:
        if isinstance(node, str):
            raise GraphDefinitionError(f"add_node({node!r}) needs a function")
        action = node
        if _is_compiled(action):
            node = action.name
        else:
            node = action.get_name() if is_runnable(action) else getattr(action, "__name__", None) or type(action).__name__
    if not isinstance(node, str) or not node:
        raise GraphDefinitionError(f"node names are non-empty strings, not {node!r}")
    if node in (START, END):
        raise GraphDefinitionError(f"Node `{node}` is reserved.")
    for ch in ("|", ":"):
        if ch in node:
            raise GraphDefinitionError(f"'{ch}' is a reserved character and is not allowed in the node names.")
    return node, action


def _is_compiled(g: Any) -> bool:
    """Whether ``g`` is a compiled graph (engine.pregel's Pregel, known by what it runs with: this module is below engine.pregel)."""
    return callable(getattr(g, "aevents", None)) and hasattr(g, "spec")


def called_subgraph(fn: Any) -> Any:
    """The compiled graph a node function calls (one its code reaches: a global, a closure's cell, or an
    attribute path from one; through ``__wrapped__``), or None.

    As LangGraph finds a node's subgraph from what its function reaches: such
    a node's task then names the subgraph's namespace in ``get_state``
    (``subgraphs=True`` reads it) and ``get_subgraphs`` lists it. A graph
    compiled with ``checkpointer=False`` keeps no state there, so it is none.
    """
    fn = _callable_function(fn) or fn
    return next((g for g in _reached(fn) if _is_compiled(g) and g.checkpointer is not False), None)


def subgraph_call(graph: Any, trace: Any = None) -> NodeCall:
    """A compiled graph as a node: it runs as a subgraph of the task (see :mod:`engine.pregel._nested`),
    with the task's state as input; its output values are the node's update."""

    if langchain_messages() is None:

        async def call(state: Any, config: Any) -> Any:
            return await graph.ainvoke(state, config)

        return NodeCall(call, True, True)
    return NodeCall(_runnable_proc("", graph, streams=False, trace=trace), True, True)  # its run nests under the node's
