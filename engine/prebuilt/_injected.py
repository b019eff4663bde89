"""What a ToolNode fills in for a tool, and what a model may never set.

A tool's parameters are of two kinds: those the model fills (its schema shows
them) and those the graph fills: ``InjectedState`` (the state, or one key),
``InjectedStore`` (the graph's store), ``ToolRuntime`` (all of the above and
more), LangChain's ``InjectedToolCallId``, and any other ``InjectedToolArg``
(a user's own ``class Auth(InjectedToolArg)``, filled by whoever calls the
tool). The model never sees the second kind, but nothing stops it from
putting values for them in a tool call, and a prompt injection will. So every
call's arguments lose every injected name before the graph's own values are
added: a parameter the graph does not know how to fill gets the tool's default
(or a "Field required" error the model reads), never the model's value.

Written from LangGraph 1.2.22 / langgraph-prebuilt 1.1.3's observed behaviour
(tests/sidebyside/tool_injection.py): the same names are found (from the
tool's input schema and its function's annotations; a parameter named
``runtime`` gets the ToolRuntime whatever its annotation), an optional
``InjectedState("key")`` whose key is missing is left out, a list state is
the messages, and a tool asking for the store of a graph without one fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, Union, get_args, get_origin, get_type_hints

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, InjectedToolArg
from langchain_core.tools.base import _DirectlyInjectedToolArg, _is_injected_arg_type, get_all_basemodel_annotations
from typing_extensions import TypeVar

from engine._internal._runtime import ExecutionInfo, ServerInfo
from engine._internal._task import CURRENT
from engine._langchain.tools import emit_output_delta

__all__ = ["InjectedState", "InjectedStore", "ToolRuntime", "Injections", "injections_of", "runtime_for", "graph_state", "inject"]

StateT = TypeVar("StateT", default=dict)
ContextT = TypeVar("ContextT", default=None)

#: where LangGraph's nodes find their Runtime in a config (a ToolNode run outside a graph reads it)
RUNTIME_KEY = "__pregel_runtime"

NO_STORE = "Cannot inject store into tools with InjectedStore annotations - please compile your graph with a store."


class InjectedState(InjectedToolArg):
    """Marks a tool argument filled with the graph's state (or one key of it)."""

    def __init__(self, field: str | None = None) -> None:
        self.field = field


class InjectedStore(InjectedToolArg):
    """Marks a tool argument filled with the graph's store (a graph without one fails the call)."""


def _no_writer(_: Any) -> None:
    return None


@dataclass
class ToolRuntime(_DirectlyInjectedToolArg, Generic[ContextT, StateT]):
    """What a tool's ``runtime: ToolRuntime`` parameter receives (no ``Annotated`` needed).

    The node's :class:`~engine.runtime.Runtime` (context, store, stream writer,
    execution info) plus what only a tool call has: the state the call was made
    in, its id, the config and the node's tools. Deriving from LangChain's
    ``_DirectlyInjectedToolArg`` is what keeps the parameter out of the schema
    the model sees.
    """

    state: StateT
    context: ContextT
    config: RunnableConfig
    stream_writer: Callable[[Any], None]
    tool_call_id: str | None
    store: Any
    tools: list[BaseTool] = field(default_factory=list)
    execution_info: ExecutionInfo | None = None
    server_info: ServerInfo | None = None

    def emit_output_delta(self, delta: Any) -> None:
        """Send ``delta`` as a partial output of this tool call on the "tools" stream mode (a
        ``tool-output-delta`` payload); nothing when the run does not stream "tools", so tools
        may call this unconditionally (:mod:`engine._langchain.tools`)."""
        emit_output_delta(delta)


@dataclass(frozen=True, slots=True)
class Injections:
    """One tool's injected parameters, found once when the ToolNode is built.

    Attributes:
        state: parameter -> state key (None: the whole state).
        store: the parameter receiving the store, if any.
        runtime: the parameter receiving the ToolRuntime, if any.
        hidden: every parameter marked injected, whoever fills it: a model's
            value for any of them is dropped.
        optional_state: ``state`` parameters with a default, left out when their key is missing.
    """

    state: dict[str, str | None]
    store: str | None
    runtime: str | None
    hidden: frozenset[str]
    optional_state: frozenset[str]

    @property
    def filled(self) -> frozenset[str]:
        """The parameters the node fills: their validation errors are not the model's to fix."""
        return frozenset({*self.state, *(n for n in (self.store, self.runtime) if n)})


def _marks(hint: Any, kind: type) -> bool:
    """Whether ``hint`` is ``kind`` (class or instance), or holds it in a Union, Annotated or generic alias."""
    if isinstance(hint, kind) or (isinstance(hint, type) and issubclass(hint, kind)):
        return True
    origin = get_origin(hint)
    if origin is Union or origin is Annotated:
        return any(_marks(a, kind) for a in get_args(hint))
    return origin is not None and isinstance(origin, type) and issubclass(origin, kind)


def _mark(hint: Any, kind: type) -> Any:
    """The ``kind`` marker on ``hint`` (an instance, a class, or True), or None; two markers are an error."""
    found = [a for a in get_args(hint) if _marks(a, kind)]
    if len(found) > 1:
        raise ValueError(f"A tool argument should not be annotated with {kind.__name__} more than once. Found: {found}")
    if found:
        return found[0]
    return True if _marks(hint, kind) else None


def _model_fields(schema: Any) -> dict[str, Any]:
    """A tool's input schema's fields (a ``pydantic.v1`` schema has none of that name: AttributeError, as on LangGraph)."""
    fields: dict[str, Any] = schema.model_fields
    return fields


def injections_of(tool: BaseTool) -> Injections:
    """Find ``tool``'s injected parameters in its input schema and its function's annotations.

    Both sources count (the schema wins for a name in both): a tool built with
    an explicit ``args_schema`` can still take an injected parameter its schema
    does not list, and LangChain passes a value for it through.
    """
    schema = tool.get_input_schema()
    func = getattr(tool, "func", None) or getattr(tool, "coroutine", None)
    hints: dict[str, Any] = get_type_hints(func, include_extras=True) if func else {}
    hints.pop("return", None)
    hints.update(get_all_basemodel_annotations(schema))
    state: dict[str, str | None] = {}
    store = runtime = None
    hidden: set[str] = set()
    optional: set[str] = set()
    for name, hint in hints.items():
        if _is_injected_arg_type(hint):
            hidden.add(name)
        if name == "runtime":  # by name, whatever its annotation (as LangGraph)
            runtime = name
        if mark := _mark(hint, InjectedState):
            key = mark.field if isinstance(mark, InjectedState) else None
            state[name] = key
            info = _model_fields(schema).get(name) if key else None
            if info is not None and not info.is_required():
                optional.add(name)
        if _mark(hint, InjectedStore):
            store = name
        if _mark(hint, ToolRuntime):
            runtime = name
    return Injections(state, store, runtime, frozenset(hidden), frozenset(optional))


def runtime_for(call_id: str | None, state: Any, config: RunnableConfig, tools: list[BaseTool]) -> ToolRuntime[Any, Any]:
    """The ToolRuntime of one tool call: the node's Runtime, the call's state, id and config.

    In a graph the Runtime is the running task's. A ToolNode invoked on its
    own takes the one a caller put in its config where LangGraph's nodes look
    for it (``configurable["__pregel_runtime"]``), else none: no context, no store.
    """
    ctx = CURRENT.get()
    rt = ctx.runtime() if ctx is not None else (config.get("configurable") or {}).get(RUNTIME_KEY)
    if rt is None:
        return ToolRuntime(state=state, context=None, config=config, stream_writer=_no_writer,
                           tool_call_id=call_id, store=None, tools=tools)  # fmt: skip
    return ToolRuntime(
        state=state, context=rt.context, config=config, stream_writer=rt.stream_writer, tool_call_id=call_id,
        store=rt.store, tools=tools, execution_info=rt.execution_info, server_info=rt.server_info,
    )  # fmt: skip


def graph_state() -> dict[str, Any]:
    """The state of the graph running the current task, as its channels hold it (empty outside a graph).

    What a ToolNode given bare tool calls (``Send("tools", [call])``, as
    LangChain's ``create_agent`` sends them) shows its tools: as LangGraph
    1.2's, every state key with a value when the task was planned, as a dict.
    """
    ctx = CURRENT.get()
    if ctx is None or ctx.state is None:
        return {}
    return {k: ctx.state[k] for k in ctx.state_keys if k in ctx.state}


def _state_values(inj: Injections, state: Any, tool_name: str, messages_key: str) -> dict[str, Any]:
    if isinstance(state, list):  # the node was given messages: they are the state's messages key
        keys = list(inj.state.values())
        if keys[0] is None or keys == [messages_key]:
            state = {messages_key: state}
        else:
            msg = f"Invalid input to ToolNode. Tool {tool_name} requires graph state dict as input."
            if wanted := ", ".join(k for k in keys if k):
                msg += f" State should contain fields {wanted}."
            raise ValueError(msg)
    out: dict[str, Any] = {}
    for arg, key in inj.state.items():
        if not key:
            out[arg] = state
        elif isinstance(state, dict):
            if key in state:
                out[arg] = state[key]
            elif arg not in inj.optional_state:
                raise KeyError(key)
        elif hasattr(state, key):
            out[arg] = getattr(state, key)
        elif arg not in inj.optional_state:
            raise AttributeError(key)
    return out


def inject(args: dict[str, Any], inj: Injections, runtime: ToolRuntime[Any, Any], tool_name: str, messages_key: str) -> dict[str, Any]:
    """A call's arguments as the tool receives them: the model's, less every injected name, plus the graph's values.

    Raises:
        ValueError: the tool wants the store and the graph has none, or a state
            key of a node given a plain message list.
        KeyError, AttributeError: a required ``InjectedState`` key is missing.
    """
    given = _state_values(inj, runtime.state, tool_name, messages_key) if inj.state else {}
    if inj.store:
        if runtime.store is None:
            raise ValueError(NO_STORE)
        given[inj.store] = runtime.store
    if inj.runtime:
        given[inj.runtime] = runtime
    return {**{k: v for k, v in args.items() if k not in inj.hidden}, **given}

