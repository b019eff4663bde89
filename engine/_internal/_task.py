"""What a running node can reach: its config, the stream writers, interrupt().

It lives below ``engine.types`` (which re-exports ``interrupt``, as
``langgraph.types`` does) so that neither imports the other.

Each task runs with a :class:`TaskContext` in a context variable, so
``interrupt()`` and ``get_stream_writer()`` work from any depth of a node's
call stack, in async code and in worker threads alike (the context is copied
into the thread).
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

from engine._internal._ids import task_id as _hash_id
from engine._internal._interrupt import Interrupt
from engine.errors import GraphInterrupt

__all__ = ["TaskContext", "interrupt", "get_stream_writer", "get_message_writer", "get_config", "get_store", "runtime_of_task", "node_error_of_task", "CURRENT"]


class Heartbeat(Protocol):
    """An attempt's idle clock under a node timeout (engine.pregel._timeout): calling it is progress."""

    #: refresh_on="auto": a LangChain callback event is progress too
    auto: bool

    def __call__(self) -> None: ...


@dataclass(slots=True)
class TaskContext:
    """Per-task scratchpad.

    ``resume`` holds the answers this task has received, in order; the n-th
    ``interrupt()`` call of the task returns ``resume[n]`` if there is one.
    """

    task_id: str
    node: str
    step: int
    config: dict[str, Any]
    resume: list[Any] = field(default_factory=list)
    counter: int = 0
    #: the run's answer no waiting task took (at most one; engine.pregel._run.RunState.null_resume), shared
    #: by the step's tasks: the first ``interrupt()`` past this task's own answers takes it
    null_resume: list[Any] | None = None
    #: this task took the null answer (its answers are stored with its next interrupt)
    took_null: bool = False
    custom: Callable[[Any], None] | None = None
    message: Callable[[Any, dict[str, Any] | None], None] | None = None
    # sends a "tools" mode payload (engine._langchain.tools) when the call streams tool calls
    tools: Callable[[dict[str, Any]], None] | None = None
    # the graph's store (compile(store=...)), for get_store(), a node's ``store`` parameter
    # and its Runtime's ``store``
    store: Any = None
    # the calls this task makes to ``@task`` functions (engine.pregel._calls.CallScope), set by the runner
    calls: Any = None
    # ``nest()`` -> what a graph run inside this task borrows from the run (engine.pregel._nested)
    nest: Callable[[], Any] | None = None
    # a subgraph run without a saver asks its questions as this (its parent's) task
    delegate: "TaskContext | None" = None
    #: the message ids the "messages" handlers of the tasks around this task's graph sent or were given
    #: (engine._langchain.stream): what this task sends, they count as sent (a graph called in a node function)
    seen_by: tuple[set[str], ...] = ()
    # the call's ``context=`` (coerced into the graph's context_schema), for the Runtime
    context: Any = None
    # the version the task's step started from, the run's id, the attempt (1-based) and when the first began
    checkpoint_id: str = ""
    run_id: str | None = None
    attempt: int = 1
    #: the run's RunControl (``runtime.control``), or None
    control: Any = None
    first_attempt_time: float | None = None
    # the channel values the task was planned with (read-only) and the graph's state keys among them:
    # what a ToolNode given bare tool calls shows its tools as the state (engine.prebuilt._injected.graph_state)
    state: Mapping[str, Any] | None = None
    state_keys: frozenset[str] = frozenset()
    #: the run was called synchronously (invoke/stream): a Runnable with a sync face of its own uses it
    #: where LangGraph's sync run calls ``invoke`` (the engine's ToolNode: its sync wrappers)
    sync_call: bool = False
    _runtime: Any = None
    # the node's LangChain run while it is open (engine._langchain.stream.TaskMessages): its
    # routers run as its children, and the runner closes it once the task's writes are made
    lc: Any = None
    # the node's "messages" mode sender (engine._langchain.stream.TaskMessages) when the call streams
    # messages: push_message sends through it, and what it sent is not sent again when the node returns
    messages: Any = None
    # writes push_message made during this attempt (None: none, the common case, no list made):
    # the task's writes, before those of its return value
    pushed: list[tuple[str, Any]] | None = None
    # an error handler's task: the failure it handles (engine.errors.NodeError), its ``error`` parameter
    node_error: Any = None
    # an attempt under a node timeout: what ``runtime.heartbeat()`` calls (engine.pregel._timeout)
    beat: Heartbeat | None = None

    def runtime(self) -> Any:
        """The task's :class:`~engine.runtime.Runtime` (made once per attempt, when first asked for)."""
        from engine._internal._runtime import ExecutionInfo, Runtime, server_info

        rt = self._runtime
        if rt is None or rt.execution_info.node_attempt != self.attempt:
            configurable = self.config.get("configurable") or {}
            info = ExecutionInfo(
                checkpoint_id=self.checkpoint_id,
                checkpoint_ns=configurable.get("checkpoint_ns", ""),
                task_id=self.task_id,
                thread_id=configurable.get("thread_id"),
                run_id=self.run_id,
                node_attempt=self.attempt,
                node_first_attempt_time=self.first_attempt_time,
            )
            rt = self._runtime = Runtime(
                context=self.context, store=self.store, stream_writer=self.custom or _noop, execution_info=info,
                control=self.control, server_info=server_info(configurable), **({"heartbeat": self.beat} if self.beat else {}),
            )
        return rt


CURRENT: contextvars.ContextVar[TaskContext | None] = contextvars.ContextVar("graphwire_task", default=None)
#: The config of a graph's writers run outside a task (``update_state`` applying an update as a
#: node: its routers run), which :func:`get_config` gives there, as LangGraph's does.
OUTSIDE_CONFIG: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("graphwire_outside_config", default=None)


def _ctx(what: str) -> TaskContext:
    ctx = CURRENT.get()
    if ctx is None:
        raise RuntimeError(f"{what} can only be called from inside a running node")
    return ctx


def interrupt_id(task_id: str, index: int) -> str:
    return _hash_id("interrupt", task_id, index).replace("-", "")


def interrupt(value: Any, *, response_schema: Any = None) -> Any:
    """Stop the run and ask the caller for input; return the answer on resume.

    The first time, this raises :class:`~engine.errors.GraphInterrupt`: the run
    stops and reports ``value``. Resuming with ``Command(resume=answer)`` runs
    the node again from its first line, and this call returns ``answer``.
    Several calls in one node are matched to answers by order.

    ``response_schema`` (as LangGraph's): the type of the answer expected (a
    Pydantic model, TypedDict, dataclass...: the answer is validated into it,
    and a ``pydantic.ValidationError`` that :func:`engine.errors.is_invalid_resume`
    recognises fails the run, so the question can be answered again), or a
    JSON Schema dict (shown, not checked). The interrupt carries it as JSON Schema.
    """
    ctx = _ctx("interrupt()")
    while ctx.delegate is not None:  # a subgraph without checkpoints: its node's questions are its parent task's
        ctx = ctx.delegate
    adapter = None
    if response_schema is not None and not isinstance(response_schema, dict):
        from pydantic import TypeAdapter  # only a node asking for a typed answer needs pydantic

        from engine.graph._allowlist import allow_schema_types

        adapter = TypeAdapter(response_schema)
        # The answer's type is named by the graph's code, as a state schema's are: its saver may store it.
        allow_schema_types(getattr(getattr(getattr(ctx.calls, "runner", None), "writer", None), "saver", None), [response_schema])
    idx = ctx.counter
    ctx.counter += 1
    if idx == len(ctx.resume) and ctx.null_resume:
        ctx.resume.append(ctx.null_resume.pop())
        ctx.took_null = True
    if idx < len(ctx.resume):
        return ctx.resume[idx] if adapter is None else _validated(adapter, ctx.resume[idx], idx)
    schema = adapter.json_schema() if adapter is not None else response_schema
    raise GraphInterrupt([Interrupt(value=value, id=interrupt_id(ctx.task_id, idx), response_schema=schema)])


def _validated(adapter: Any, answer: Any, idx: int) -> Any:
    """``answer`` validated into the type the question asked for; a refusal is marked as an invalid
    resume, with the question's index (its answers from there on are not kept: it is asked again)."""
    from pydantic import ValidationError

    from engine.errors import mark_invalid_resume

    try:
        return adapter.validate_python(answer)
    except ValidationError as e:
        mark_invalid_resume(e)
        e.__dict__["graphwire_answered"] = idx
        raise


def _noop(*_: Any) -> None:
    return None


def get_stream_writer() -> Callable[[Any], None]:
    """A function that sends a custom event to the caller (stream mode "custom")."""
    ctx = CURRENT.get()
    if ctx is None or ctx.custom is None:
        return _noop
    return ctx.custom


def get_message_writer() -> Callable[..., None]:
    """A function ``write(chunk, metadata=None)`` that streams a message token chunk.

    Chunks reach callers of stream mode "messages" (and the server's
    MessageChunk events) while the node is still running.
    """
    ctx = CURRENT.get()
    if ctx is None or ctx.message is None:
        return _noop
    return ctx.message


def runtime_of_task() -> Any:
    """The running task's Runtime (``engine.runtime.get_runtime``)."""
    return _ctx("get_runtime()").runtime()


def node_error_of_task() -> Any:
    """An error handler's failure (``engine.errors.NodeError``); None in another node, as LangGraph's."""
    return _ctx("an error handler").node_error


def get_store() -> Any:
    """The store the running graph was compiled with (``compile(store=...)``), or None without one."""
    return _ctx("get_store()").store


def get_config() -> dict[str, Any]:
    """The running task's config (thread id, checkpoint ns, run metadata); in a router that
    ``update_state`` runs, the update's."""
    outside = OUTSIDE_CONFIG.get() if CURRENT.get() is None else None
    return outside if outside is not None else _ctx("get_config()").config
