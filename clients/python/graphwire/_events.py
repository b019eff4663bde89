"""Run events, as ``stream()`` yields them.

One class per case of ``RunEvent.event`` in the proto, named as the engine
names its own events, so code that reads in-process events reads these the
same way. Every event carries ``seq`` (its place in the run) and ``run_id``;
payloads are decoded JSON. Match on the class::

    match event:
        case InterruptEvent(value=question):
            ...
        case RunFinished(reason=FinishReason.END, values=values):
            ...
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from graphwire._types import (
    CheckpointRef,
    ErrorInfo,
    EventKind,
    FinishReason,
    Interrupt,
)

__all__ = [
    "Event",
    "TaskRef",
    "RunStarted",
    "StepStarted",
    "StepFinished",
    "TaskStarted",
    "TaskFinished",
    "ValuesEvent",
    "CustomEvent",
    "MessageChunk",
    "CallbackEvent",
    "CheckpointSaved",
    "InterruptEvent",
    "RunFinished",
]


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all run events.

    Attributes:
        seq: Strictly increasing within the run, from 1 (gaps when
            ``event_kinds=`` filtered events out).
        run_id: The run the event belongs to.
        namespace: Where it happened: ``()`` for the graph called; for an
            event of a subgraph running in one of its tasks, one
            ``"node:task_id"`` per level, outermost first (LangGraph's
            ``stream(subgraphs=True)`` namespace).
    """

    kind: ClassVar[EventKind]

    seq: int
    run_id: str
    namespace: tuple[str, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True, slots=True)
class TaskRef:
    """A task of a step: its id and the node it runs."""

    task_id: str
    node: str


@dataclass(frozen=True, slots=True)
class RunStarted(Event):
    """The run began. Always the first event."""

    kind = EventKind.RUN_STARTED

    thread_id: str
    graph: str
    checkpoint_id: str | None  # the version it starts from; None for a new thread


@dataclass(frozen=True, slots=True)
class StepStarted(Event):
    """A superstep began; ``tasks`` are about to run concurrently."""

    kind = EventKind.STEP_STARTED

    step: int
    tasks: tuple[TaskRef, ...]


@dataclass(frozen=True, slots=True)
class StepFinished(Event):
    """A superstep ended and its writes were applied."""

    kind = EventKind.STEP_FINISHED

    step: int


@dataclass(frozen=True, slots=True)
class TaskStarted(Event):
    """A task began, with the input its node sees."""

    kind = EventKind.TASK_STARTED

    step: int
    task_id: str
    node: str
    input: Any
    triggers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TaskFinished(Event):
    """A task ended: with its update, an error, interrupts, or ``cached`` (not run)."""

    kind = EventKind.TASK_FINISHED

    step: int
    task_id: str
    node: str
    update: Any
    error: ErrorInfo | None
    interrupts: tuple[Interrupt, ...]
    cached: bool


@dataclass(frozen=True, slots=True)
class ValuesEvent(Event):
    """The thread's full state after a step (``step`` -1: the input applied)."""

    kind = EventKind.VALUES

    step: int
    values: Any


@dataclass(frozen=True, slots=True)
class CustomEvent(Event):
    """Something a node wrote to its stream writer."""

    kind = EventKind.CUSTOM

    step: int
    task_id: str
    node: str
    payload: Any


@dataclass(frozen=True, slots=True)
class MessageChunk(Event):
    """A piece of a message a node is producing (an LLM token, say)."""

    kind = EventKind.MESSAGE_CHUNK

    step: int
    task_id: str
    node: str
    chunk: Any
    metadata: Any

    @property
    def text(self) -> str:
        """The chunk's text, so a token stream prints without knowing content's shapes.

        ``content`` when it is a string (or the chunk itself, when a node
        wrote a bare string), the ``text`` of its text parts when it is a list
        of content blocks, else ``""``: concatenating a message's chunks'
        ``text`` in ``seq`` order gives the message's text. (The TypeScript
        and Go clients' ``text`` is the same.)
        """
        content = self.chunk.get("content") if isinstance(self.chunk, dict) else self.chunk
        if isinstance(content, str):
            return content
        if not isinstance(content, list):
            return ""
        return "".join(
            part if isinstance(part, str) else part["text"]
            for part in content
            if isinstance(part, str)
            or (isinstance(part, dict) and part.get("type", "text") == "text" and isinstance(part.get("text"), str))
        )


@dataclass(frozen=True, slots=True)
class CallbackEvent(Event):
    """A LangChain callback event of the run, as ``astream_events(version="v2")`` gives it (a dict with
    ``event``, ``name``, ``run_id``, ``parent_ids``, ``tags``, ``metadata`` and ``data``): the graph's
    run, its nodes', chat models' tokens, tools'... Sent only to a caller naming ``EventKind.CALLBACK``."""

    kind = EventKind.CALLBACK

    event: Any


@dataclass(frozen=True, slots=True)
class CheckpointSaved(Event):
    """A version of the thread's state was saved."""

    kind = EventKind.CHECKPOINT_SAVED

    checkpoint: CheckpointRef


@dataclass(frozen=True, slots=True)
class InterruptEvent(Event):
    """A node asked a question with ``interrupt(value)``; the run will stop."""

    kind = EventKind.INTERRUPT

    interrupt_id: str
    node: str
    task_id: str
    value: Any
    #: The JSON Schema an answer must match, when the node gave one.
    response_schema: Any = None

    @property
    def interrupt(self) -> Interrupt:
        """The question as the ``Interrupt`` that results and snapshots list."""
        return Interrupt(interrupt_id=self.interrupt_id, node=self.node, task_id=self.task_id, value=self.value, response_schema=self.response_schema)


@dataclass(frozen=True, slots=True)
class RunFinished(Event):
    """The run ended. Always the last event."""

    kind = EventKind.RUN_FINISHED

    reason: FinishReason
    checkpoint: CheckpointRef | None
    values: Any
    error: ErrorInfo | None
    interrupts: tuple[Interrupt, ...]
