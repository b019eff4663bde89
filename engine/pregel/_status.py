"""What the pending writes stored on a version say about each task of its step.

A version's pending writes are the log of the step that starts from it:
every task that finished records its writes there (at least the
:data:`~engine.pregel._spec.NO_WRITES` marker, so a task that wrote nothing
still reads as finished); a task that stopped records only *control* writes:
``__interrupt__`` (its latest question), ``__resume__`` (the answers it has
received), ``__error__`` (with ``__error_source_node__`` when its node's error
handler took the failure over). Writes under
:data:`~engine.pregel._spec.NULL_TASK_ID` are input to the step (a
``Command``'s update and goto), not a task's.

The rules, LangGraph 1.2's: a task is finished if and only if it has an
output write (a resume write never makes it finished, nor unfinished); its
interrupts are waiting for an answer only while it is unfinished. Pure: plain
data in, plain data out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from engine.checkpoint.base import ERROR, INTERRUPT, RESUME, SCHEDULED
from engine.pregel._spec import ERROR_SOURCE_NODE, NO_WRITES, NULL_TASK_ID

__all__ = ["CONTROL", "TaskStatus", "read_statuses", "null_writes", "task_result"]

#: Channels that say what happened to a task rather than what it produced.
CONTROL = frozenset((ERROR, INTERRUPT, RESUME, SCHEDULED, ERROR_SOURCE_NODE))


@dataclass(frozen=True, slots=True)
class TaskStatus:
    """One task's record in its step's pending writes."""

    output: tuple[tuple[str, Any], ...] = ()  # output writes in stored order (NO_WRITES included)
    interrupts: tuple[Any, ...] = ()  # the latest interrupts it raised, answered or not
    error: Any = None  # the stored error, if it failed
    resume: tuple[Any, ...] | None = None  # the answers it has received, in order
    handled: bool = False  # failed, and its node's error handler took the failure over (ERROR_SOURCE_NODE)

    @property
    def finished(self) -> bool:
        return bool(self.output)

    @property
    def pending_interrupts(self) -> tuple[Any, ...]:
        return () if self.finished else self.interrupts

    @property
    def writes(self) -> list[tuple[str, Any]]:
        """The task's writes to apply (without the NO_WRITES marker)."""
        return [w for w in self.output if w[0] != NO_WRITES]


def read_statuses(pending_writes: Iterable[Sequence[Any]]) -> dict[str, TaskStatus]:
    """The status of every task with stored writes, by task id (NULL_TASK_ID left out)."""
    output: dict[str, list[tuple[str, Any]]] = {}
    interrupts: dict[str, tuple[Any, ...]] = {}
    errors: dict[str, Any] = {}
    resumes: dict[str, tuple[Any, ...]] = {}
    handled: set[str] = set()
    for task_id, channel, value in pending_writes:
        if task_id == NULL_TASK_ID:
            continue
        out = output.setdefault(task_id, [])
        if channel == INTERRUPT:
            interrupts[task_id] = tuple(value) if isinstance(value, (list, tuple)) else (value,)
        elif channel == ERROR:
            errors.setdefault(task_id, value)
        elif channel == ERROR_SOURCE_NODE:
            handled.add(task_id)
        elif channel == RESUME:
            resumes[task_id] = tuple(value) if isinstance(value, (list, tuple)) else (value,)
        elif channel not in CONTROL:
            out.append((channel, value))
    return {
        tid: TaskStatus(tuple(out), interrupts.get(tid, ()), errors.get(tid), resumes.get(tid), tid in handled)
        for tid, out in output.items()
    }


def null_writes(pending_writes: Iterable[Sequence[Any]]) -> list[tuple[str, Any]]:
    """The step's input writes (a Command's update and goto), in stored order."""
    return [(channel, value) for task_id, channel, value in pending_writes if task_id == NULL_TASK_ID]


def task_result(writes: Iterable[tuple[str, Any]], keys: Iterable[str] | str) -> Any:
    """A finished task's ``result``: its writes to ``keys`` (the graph's output keys).

    As LangGraph reports it: ``{key: value}``; several writes to one key in
    one task become ``{key: {"$writes": [v1, v2, ...]}}``; ``{}`` when it
    wrote none.
    """
    if isinstance(keys, str):  # one channel (an entrypoint's END, a root state): the value written to it
        values = [v for k, v in writes if k == keys]
        return values[0] if len(values) == 1 else {"$writes": values} if values else None
    wanted = keys if isinstance(keys, (set, frozenset, dict)) else frozenset(keys)
    result: dict[str, Any] = {}
    many: set[str] = set()
    for channel, value in writes:
        if channel not in wanted:
            continue
        if channel not in result:
            result[channel] = value
        elif channel in many:
            result[channel]["$writes"].append(value)
        else:
            result[channel] = {"$writes": [result[channel], value]}
            many.add(channel)
    return result
