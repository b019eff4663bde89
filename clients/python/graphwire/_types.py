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

    ``RUN_STARTED`` and ``RUN_FINISHED`` are always sent.
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
