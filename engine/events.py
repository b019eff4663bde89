"""Run events: what a run reports while it goes, in the order it happens.

``CompiledGraph.aevents()`` yields these; ``stream()``'s LangGraph-shaped modes
and the gRPC server's streamed messages are both projections of them. Each
event carries what a remote caller needs to place it: the step, and where it
belongs to a task, the task id and node.

A run that started ends with exactly one :class:`RunFinished`, whose reason
says how: END, INTERRUPT, ERROR (a node raised), RECURSION_LIMIT, or
CANCELLED (the run's task was cancelled: its written versions landed first,
and after RunFinished the CancelledError goes on). What raises instead is a
call the engine refuses before the first event (unknown checkpoint, nothing
to resume) and a storage failure (:class:`~engine.errors.CheckpointError`):
then no version can record how the run ended, and the host decides what its
caller hears.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Event",
    "RunStarted",
    "StepStarted",
    "StepFinished",
    "TaskStarted",
    "TaskFinished",
    "ValuesEvent",
    "CustomEvent",
    "MessageChunk",
    "ToolEvent",
    "CallbackEvent",
    "ForwardedChunk",
    "CheckpointSaved",
    "CheckpointLoaded",
    "InterruptEvent",
    "RunFinished",
    "FinishReason",
    "NAMED_ONLY",
    "EVERY",
    "wants",
]

FinishReason = Literal["END", "INTERRUPT", "ERROR", "RECURSION_LIMIT", "CANCELLED"]


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all run events.

    ``ns``: where the event happened. ``()`` for the run's own graph; an event
    of a subgraph running in one of its tasks carries the subgraph's namespace,
    one ``node:task_id`` (or ``node``, for a subgraph compiled with
    ``checkpointer=True``) per level, as LangGraph's ``stream(subgraphs=True)``
    names it.
    """

    ns: tuple[str, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True, slots=True)
class RunStarted(Event):
    run_id: str
    thread_id: str | None  # the caller's name of the thread (a host may store it under another key)
    graph: str
    checkpoint_id: str | None  # the version the run starts from (None: new thread)
    trace_id: str = ""  # the run span's trace id (32 hex digits) when tracing is on


@dataclass(frozen=True, slots=True)
class StepStarted(Event):
    step: int
    tasks: tuple[tuple[str, str], ...]  # (task_id, node) in plan order


@dataclass(frozen=True, slots=True)
class StepFinished(Event):
    step: int


@dataclass(frozen=True, slots=True)
class TaskStarted(Event):
    step: int
    task_id: str
    node: str
    input: Any = None
    triggers: tuple[str, ...] = ()
    #: what the "tasks" stream shows as the task's ``metadata``, set on a subgraph's tasks (its run's
    #: config is not the caller's: a graph's own ``with_config`` metadata, an agent's name); None: the
    #: caller's config and the node's metadata give it
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class TaskFinished(Event):
    """A task ended. ``update`` is the node's state update (its writes to
    state keys); ``error`` / ``error_type`` are set when it raised;
    ``interrupts`` when it stopped at ``interrupt()``."""

    step: int
    task_id: str
    node: str
    update: Any = None
    error: str | None = None
    error_type: str | None = None
    interrupts: tuple[Any, ...] = ()
    cached: bool = False  # its writes came from pending writes, the node did not run again
    # the exception itself, for in-process callers (the "tasks" stream mode)
    exception: BaseException | None = field(default=None, compare=False, repr=False)
    #: an interrupted task's: the state its step started from, when the caller wants values (the
    #: "values" stream mode's chunk at an interrupt holds it, as LangGraph's, even when the run
    #: streamed no values before); None otherwise
    values: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    #: its writes to every state key, when the call's output keys narrowed ``update`` to theirs (the
    #: "tasks" and "debug" modes show these, as LangGraph's); None: ``update`` is that
    result: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ValuesEvent(Event):
    step: int
    values: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CustomEvent(Event):
    step: int
    task_id: str
    node: str
    payload: Any


@dataclass(frozen=True, slots=True)
class MessageChunk(Event):
    step: int
    task_id: str
    node: str
    chunk: Any
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolEvent(Event):
    """A LangChain tool call's progress inside a task (LangGraph's stream mode "tools").

    ``payload`` is LangGraph's: ``{"event": "tool-started", "tool_call_id",
    "tool_name", "input"}``, then any number of ``{"event": "tool-output-delta",
    "tool_call_id", "delta"}`` (``ToolRuntime.emit_output_delta``), then
    ``{"event": "tool-finished", "tool_call_id", "output"}`` or
    ``{"event": "tool-error", "tool_call_id", "message"}``. Sent only to a caller
    that names it in its ``kinds`` (:data:`NAMED_ONLY`).
    """

    step: int
    task_id: str
    node: str
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CallbackEvent(Event):
    """A LangChain callback event of the run, as ``astream_events(version="v2")`` gives it (``event``,
    ``name``, ``run_id``, ``parent_ids``, ``tags``, ``metadata``, ``data``): LangGraph's server's "events"
    stream mode. Made by :func:`engine.host.with_callback_events` around a run, for a caller that names
    it in its ``kinds`` (:data:`NAMED_ONLY`)."""

    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ForwardedChunk(Event):
    """A chunk of LangGraph's stream ``mode`` that a run did not make but passes on as it came: a
    ``RemoteGraph`` node's parts from its server (:mod:`engine.pregel.remote`), under the node's
    namespace. Made only for a caller that names it in its ``kinds`` (:data:`NAMED_ONLY`)."""

    mode: str
    payload: Any


@dataclass(frozen=True, slots=True)
class CheckpointSaved(Event):
    checkpoint_id: str
    parent_id: str | None
    step: int
    source: str
    next: tuple[str, ...]
    values: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""
    # the tasks due next (engine.types.PregelTask: id, name, path; results once known)
    tasks: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckpointLoaded(Event):
    """The stored version a run continues from (a resume, or a call with no input).

    Emitted once, before the first step, by a run that saves no version of
    its own first; its ``tasks`` carry what the step already recorded
    (results of finished tasks, errors, interrupts). Not a save: hosts that
    report saved versions leave it out (the stream's "checkpoints" mode
    yields it, as LangGraph yields the version each step starts from); it is
    emitted only to a caller that names it in ``kinds``.
    """

    checkpoint_id: str
    parent_id: str | None
    step: int
    source: str
    next: tuple[str, ...]
    values: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""
    tasks: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class InterruptEvent(Event):
    interrupt_id: str
    node: str
    task_id: str
    value: Any
    #: the JSON Schema an answer must match (``interrupt(value, response_schema=...)``), or None
    response_schema: Any = None


@dataclass(frozen=True, slots=True)
class RunFinished(Event):
    reason: FinishReason
    checkpoint_id: str | None
    values: dict[str, Any] | None = None
    error_type: str | None = None
    error_message: str | None = None
    interrupts: tuple[Any, ...] = ()
    # the exception itself, for in-process callers (invoke re-raises it)
    exception: BaseException | None = field(default=None, compare=False, repr=False)
    #: whether the run streamed a values chunk of its output keys (or was due one: a caller not asking
    #: for them): LangGraph's invoke returns the last such chunk, None when there was none
    shown: bool = field(default=True, compare=False, repr=False)


#: What a run sends only to a caller that names it in its ``kinds``; a caller taking every event
#: (``kinds=None``, as a host streaming to the wire does) gets none of these: the version a run
#: continues from (a save is reported as CheckpointSaved), tool calls' progress (no wire form), and
#: LangChain's callback events (a handler on every runnable of the run: only when asked for), and a
#: remote graph's chunks (already in LangGraph's shapes: for ``stream()`` only).
NAMED_ONLY: frozenset[type[Event]] = frozenset({CheckpointLoaded, ToolEvent, CallbackEvent, ForwardedChunk})
#: What ``kinds=None`` stands for: every event but the named-only ones.
EVERY: frozenset[type[Event]] = frozenset({
    RunStarted, StepStarted, StepFinished, TaskStarted, TaskFinished, ValuesEvent, CustomEvent, MessageChunk,
    CheckpointSaved, InterruptEvent, RunFinished,
})  # fmt: skip


def wants(kinds: frozenset[type[Event]] | None, kind: type[Event]) -> bool:
    """Whether a caller asking for ``kinds`` (None: every event but the named-only ones) gets events of ``kind``."""
    return kind in kinds if kinds is not None else kind not in NAMED_ONLY
