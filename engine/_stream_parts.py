"""The typed shapes of ``stream(..., version="v2")``'s parts and of the tasks, checkpoints and debug
payloads, under LangGraph's names (``langgraph.types``), for programs that annotate with them.

Annotations only: the engine's parts are plain dicts of these keys (``engine.pregel._v2``).
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar, Union

from typing_extensions import NotRequired, TypedDict

from engine._internal._interrupt import Interrupt
from engine.typing import StateT

__all__ = [
    "CheckpointPayload", "CheckpointStreamPart", "CheckpointTask", "CustomStreamPart", "DebugPayload", "DebugStreamPart",
    "MessagesStreamPart", "TaskPayload", "TaskResultPayload", "TasksStreamPart", "UpdatesStreamPart", "ValuesStreamPart",
]  # fmt: skip


#: a values part's data (LangGraph's OutputT; its default, the state, has no meaning apart from a graph)
OutputT = TypeVar("OutputT")


class TaskPayload(TypedDict):
    """A task's start in the tasks and debug modes."""

    id: str
    name: str
    input: Any
    triggers: list[str]
    metadata: NotRequired[dict[str, Any]]


class TaskResultPayload(TypedDict):
    """A task's end in the tasks and debug modes."""

    id: str
    name: str
    error: str | None
    interrupts: list[dict]
    result: dict[str, Any]


class CheckpointTask(TypedDict):
    """A task of a checkpoint chunk: ``error``, or ``result`` and ``interrupts``, or ``interrupts`` alone."""

    id: str
    name: str
    error: NotRequired[str]
    result: NotRequired[Any]
    interrupts: NotRequired[list[dict]]
    state: Any


class CheckpointPayload(TypedDict, Generic[StateT]):
    """A version, as the checkpoints mode sends it."""

    config: dict[str, Any] | None
    metadata: dict[str, Any]
    values: StateT
    next: list[str]
    parent_config: dict[str, Any] | None
    tasks: list[CheckpointTask]


class _DebugCheckpoint(TypedDict, Generic[StateT]):
    step: int
    timestamp: str
    type: Literal["checkpoint"]
    payload: CheckpointPayload[StateT]


class _DebugTask(TypedDict):
    step: int
    timestamp: str
    type: Literal["task"]
    payload: TaskPayload


class _DebugTaskResult(TypedDict):
    step: int
    timestamp: str
    type: Literal["task_result"]
    payload: TaskResultPayload


#: a chunk of the debug mode
DebugPayload = Union[_DebugCheckpoint[StateT], _DebugTask, _DebugTaskResult]


class ValuesStreamPart(TypedDict, Generic[OutputT]):
    type: Literal["values"]
    ns: tuple[str, ...]
    data: OutputT
    interrupts: tuple[Interrupt, ...]


class UpdatesStreamPart(TypedDict):
    type: Literal["updates"]
    ns: tuple[str, ...]
    data: dict[str, Any]


class MessagesStreamPart(TypedDict):
    type: Literal["messages"]
    ns: tuple[str, ...]
    data: tuple[Any, dict[str, Any]]


class CustomStreamPart(TypedDict):
    type: Literal["custom"]
    ns: tuple[str, ...]
    data: Any


class CheckpointStreamPart(TypedDict, Generic[StateT]):
    type: Literal["checkpoints"]
    ns: tuple[str, ...]
    data: CheckpointPayload[StateT]


class TasksStreamPart(TypedDict):
    type: Literal["tasks"]
    ns: tuple[str, ...]
    data: TaskPayload | TaskResultPayload


class DebugStreamPart(TypedDict, Generic[StateT]):
    type: Literal["debug"]
    ns: tuple[str, ...]
    data: DebugPayload[StateT]
