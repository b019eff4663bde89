"""Plain values the client returns: versions, snapshots, graphs, store items.

They mirror the messages of ``proto/graphwire/v1/graphwire.proto`` (see
there for what each field means), with the ``*_json`` fields already decoded
(and named without the suffix), unset strings as ``None``, repeated fields as tuples and timestamps as aware
``datetime``s. All are frozen: they describe what the server said.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

__all__ = [
    "EventKind",
    "FinishReason",
    "Durability",
    "OnDisconnect",
    "MultitaskStrategy",
    "IfInterrupted",
    "TurnRefused",
    "RunStatus",
    "RunInfo",
    "RunPage",
    "ErrorInfo",
    "Interrupt",
    "CheckpointRef",
    "TaskState",
    "StateSnapshot",
    "GraphNode",
    "GraphEdge",
    "GraphInfo",
    "Item",
]


class EventKind(StrEnum):
    """The kinds of run events a stream can carry (``event_kinds=`` picks them).

    ``RUN_STARTED`` and ``RUN_FINISHED`` are always sent; ``CALLBACK`` only when named.
    """

    RUN_STARTED = "run_started"
    STEP_STARTED = "step_started"
    STEP_FINISHED = "step_finished"
    TASK_STARTED = "task_started"
    TASK_FINISHED = "task_finished"
    VALUES = "values"
    CUSTOM = "custom"
    MESSAGE_CHUNK = "message_chunk"
    CHECKPOINT_SAVED = "checkpoint_saved"
    INTERRUPT = "interrupt"
    RUN_FINISHED = "run_finished"
    #: LangChain's callback events of the run (only when named: they cost a handler on every runnable).
    CALLBACK = "callback"


class FinishReason(StrEnum):
    """Why a run ended. Compares equal to the engine's reason strings."""

    END = "END"
    INTERRUPT = "INTERRUPT"
    ERROR = "ERROR"
    RECURSION_LIMIT = "RECURSION_LIMIT"
    CANCELLED = "CANCELLED"
    #: A reason this client does not know (from a newer server).
    UNSPECIFIED = "UNSPECIFIED"


class Durability(StrEnum):
    """When a run writes the versions it saves (LangGraph's ``durability``)."""

    ASYNC = "async"
    SYNC = "sync"
    EXIT = "exit"


class OnDisconnect(StrEnum):
    """What a run does when its caller's stream ends before it does (``on_disconnect=``)."""

    #: The run is cancelled (the server's default); saved versions stay.
    CANCEL = "cancel"
    #: The run goes on; the client re-joins it (``JoinRun``) after a dropped
    #: connection, and another replica continues it should its replica die.
    CONTINUE = "continue"


class MultitaskStrategy(StrEnum):
    """What a run call does when its thread already has a run (``multitask_strategy=``)."""

    #: Fail at once with ``Aborted`` (the default without ``enqueue``).
    REJECT = "reject"
    #: Wait for the running run to end, then run (as ``enqueue=True``).
    ENQUEUE = "enqueue"
    #: Cancel the running run, keep the versions it saved, then run.
    INTERRUPT = "interrupt"
    #: Cancel the running run, delete the versions it saved, then run.
    ROLLBACK = "rollback"


class IfInterrupted(StrEnum):
    """What an ``invoke`` does when the thread waits at an interrupt (``if_interrupted=``)."""

    #: Start a new turn; the interrupt is dropped (the server's default).
    DROP = "drop"
    #: Refuse with ``FailedPrecondition``, whose ``refused`` carries the pending interrupts.
    REJECT = "reject"


class RunStatus(StrEnum):
    """Where a run is, by its record (``get_run``, ``list_runs``)."""

    PENDING = "pending"
    RUNNING = "running"
    INTERRUPTED = "interrupted"
    SUCCESS = "success"
    ERROR = "error"
    CANCELLED = "cancelled"
    #: Its replica died; another one is about to continue it.
    RECOVERING = "recovering"
    #: Cancelled by a call with ``multitask_strategy="rollback"``; its versions were deleted.
    ROLLED_BACK = "rolled_back"
    #: A status this client does not know (from a newer server).
    UNSPECIFIED = "unspecified"


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """An exception raised inside a run: its class name and message."""

    type: str
    message: str


@dataclass(frozen=True, slots=True)
class Interrupt:
    """A question a node asked with ``interrupt(value)``.

    Answer it with ``resume(..., answer)``, or by ``interrupt_id`` with
    ``resume(..., resumes={interrupt_id: answer})`` when several are pending.
    """

    interrupt_id: str
    node: str
    task_id: str
    value: Any
    #: The JSON Schema an answer must match, when the node gave one (``interrupt(value, response_schema=...)``).
    response_schema: Any = None


@dataclass(frozen=True, slots=True)
class CheckpointRef:
    """Names one saved version of a thread and places it in the history."""

    checkpoint_id: str
    parent_id: str | None  # None for the thread's first version
    step: int  # -1 for an input version
    source: str  # "input", "loop", "update" or "fork"
    next: tuple[str, ...]
    created_at: datetime | None


@dataclass(frozen=True, slots=True)
class TaskState:
    """A task due in a version's next step."""

    task_id: str
    node: str
    interrupts: tuple[Interrupt, ...]
    error: ErrorInfo | None
    #: its writes to the state once it finished (``{}``: none); None until then
    result: Any = None
    #: a subgraph node's task: the namespace its subgraph's versions are under ("" otherwise)
    checkpoint_ns: str = ""
    #: the subgraph's own snapshot (``get_state(subgraphs=True)``), when it has one
    state: "StateSnapshot | None" = None
    #: where it comes from, as LangGraph's ``PregelTask.path`` (``("__pregel_pull", node)``; JSON arrays as lists)
    path: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class StateSnapshot:
    """One version of a thread's state, as ``get_state`` and ``history`` return it."""

    values: Any
    next: tuple[str, ...]
    checkpoint: CheckpointRef
    metadata: Any
    tasks: tuple[TaskState, ...]
    interrupts: tuple[Interrupt, ...]


@dataclass(frozen=True, slots=True)
class RunInfo:
    """A run's record, as every replica sees it (``get_run``, ``list_runs``).

    Attributes:
        call: The RPC that started it: ``"Invoke"``, ``"Resume"``, ``"Fork"``
            or ``"UpdateState"``.
        call_args: What that call asked (decoded JSON, long strings cut):
            ``{"input": ...}``, ``{"resume": ...}``, ``{"checkpoint_id": ...}``...
        replica: The replica running it, or that ran it last.
        attempts: 1, plus one per recovery after its replica died.
        reason: Why it ended; None while it has not.
        checkpoint_id: The thread's newest version when it ended.
        last_seq: The ``seq`` of its last event so far.
        values: The thread's state when it ended (decoded JSON), read by ``get_run`` and by
            ``list_runs(include_values=True)``; None otherwise, and while it runs.
    """

    run_id: str
    thread_id: str
    graph: str
    status: RunStatus
    request_id: str | None
    replica: str
    attempts: int
    started_at: datetime | None
    ended_at: datetime | None
    checkpoint_id: str | None
    call: str
    call_args: Any
    reason: FinishReason | None
    error: ErrorInfo | None
    interrupts: tuple[Interrupt, ...]
    last_seq: int
    on_disconnect: OnDisconnect | None
    background: bool
    values: Any = None
    #: The run that cancelled this one (``multitask_strategy`` interrupt or rollback), if any.
    replaced_by: str | None = None
    #: The run this one cancelled as it started, if any.
    replaces: str | None = None

    @property
    def ended(self) -> bool:
        """Whether the run has ended (a run cancelled by its caller leaving may have no ``reason``)."""
        return self.ended_at is not None or self.reason is not None


@dataclass(frozen=True, slots=True)
class RunPage:
    """A page of a thread's runs, newest first (``list_runs_page``).

    Attributes:
        runs: This page's runs.
        next_before: Where the next page starts (pass it as ``before``); None on the last page.
    """

    runs: tuple[RunInfo, ...]
    next_before: str | None


@dataclass(frozen=True, slots=True)
class GraphNode:
    """A node of a graph (``__start__`` and ``__end__`` included).

    ``subgraph``: when the node is a subgraph (a compiled graph added as a
    node), that graph's own nodes and edges (nested); its versions are read
    with ``get_state(checkpoint_ns=...)`` and ``history(checkpoint_ns=...)``.
    """

    name: str
    metadata: Any
    subgraph: GraphInfo | None = None


@dataclass(frozen=True, slots=True)
class GraphEdge:
    """An edge of a graph; ``conditional`` when a router may take it."""

    source: str
    target: str
    conditional: bool
    label: str | None


@dataclass(frozen=True, slots=True)
class GraphInfo:
    """A graph the server runs. ``edges`` is empty from ``graphs()``; use ``graph(name)``."""

    name: str
    description: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]


@dataclass(frozen=True, slots=True)
class Item:
    """An item of the server's store (long-term memory shared by threads).

    ``value`` is the JSON object stored under ``(namespace, key)``;
    ``score`` is set only in results of a search with a ``query`` (the
    similarity of the item's best-matching embedded field).
    """

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    score: float | None = None


class ThreadStatus(StrEnum):
    """Where a thread is, by its record (``client.threads``)."""

    #: No run holds it; its last run ended at END, was cancelled, or it never ran.
    IDLE = "idle"
    #: A run holds it.
    BUSY = "busy"
    #: Its last run stopped at an interrupt (``Thread.interrupts`` are pending).
    INTERRUPTED = "interrupted"
    #: Its last run ended with an error.
    ERROR = "error"
    #: A status this client does not know (from a newer server).
    UNSPECIFIED = "unspecified"


@dataclass(frozen=True, slots=True)
class Thread:
    """A thread's record (``client.threads``).

    Attributes:
        metadata: Its metadata (a dict; ``update`` merges top-level keys into it).
        interrupts: Pending when ``status`` is INTERRUPTED.
        values: Its newest values, when asked for (``include_values=True``); None otherwise.
        ttl: Seconds after ``updated_at`` at which it expires, and what happens then
            (``"delete"`` or ``"keep_latest"``); None when it never expires.
        expires_at: When it expires; None when it does not.
        error: The error its last run ended with, when ``status`` is ERROR; None otherwise.
    """

    thread_id: str
    graph: str
    metadata: dict[str, Any]
    created_at: datetime | None
    updated_at: datetime | None
    status: ThreadStatus
    interrupts: tuple[Interrupt, ...]
    values: Any = None
    ttl: tuple[int, str] | None = None
    expires_at: datetime | None = None
    error: ErrorInfo | None = None


@dataclass(frozen=True, slots=True)
class ThreadPage:
    """A page of a thread search (``client.threads.search_page``).

    Attributes:
        threads: This page's threads.
        next_page_token: Where the next page starts (pass it as ``page_token``); None on the last page.
    """

    threads: tuple[Thread, ...]
    next_page_token: str | None


@dataclass(frozen=True, slots=True)
class TurnRefused:
    """Why the server refused a chat-safe turn (``FailedPrecondition.refused``).

    Attributes:
        reason: ``"interrupted"`` (``if_interrupted="reject"`` and an interrupt
            is pending) or ``"stale_checkpoint"`` (``expect_checkpoint_id`` is
            not the thread's newest version).
        checkpoint_id: The thread's newest version; None when it has none.
        interrupts: The interrupts pending on that version.
    """

    reason: str
    checkpoint_id: str | None
    interrupts: tuple[Interrupt, ...]


@dataclass(frozen=True, slots=True)
class Assistant:
    """An assistant: a named, versioned configuration of a registered graph (one version of it).

    ``config`` is LangGraph's shape (``{"configurable": {...}, "recursion_limit": N}``), the
    defaults of the runs that name it, as is ``context``; ``metadata`` is the caller's own.
    ``version`` is this version's number; ``updated_at`` when it was made current.
    """

    assistant_id: str
    graph: str
    name: str
    description: str | None
    config: dict[str, Any]
    context: dict[str, Any]
    metadata: dict[str, Any]
    version: int
    created_at: datetime
    updated_at: datetime

