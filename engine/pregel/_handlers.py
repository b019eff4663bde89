"""Node error handlers: the task that runs in a failed task's step once its retries are spent.

As LangGraph 1.2's ``add_node(..., error_handler=...)``: a task of a node
with an error handler that fails (not an interrupt, not a Command for the
parent graph) does not end the run. Its error is stored at once as its
pending writes, beside an ``__error_source_node__`` marker naming the node
(so a crash, or a handler that fails, leaves a record a resume reads); then
the handler's task joins the same step: it gets the failed task's input and,
in an ``error`` parameter annotated ``NodeError``, the failure; its writes
(an update, a ``Command`` with a ``goto``) are applied with the step's others.
The failed task counts as finished without writes. A handler that fails
fails the run; a handler has no handler of its own.

A resumed step whose pending writes hold the marker does not run the failed
node again: the handler runs (again, unless it had finished), given the
stored error (its text, as LangGraph's resume gives it).
"""

from __future__ import annotations

import asyncio
from typing import Any

from engine._internal._ids import task_id as make_task_id
from engine.checkpoint.base import ERROR
from engine.errors import GraphBubbleUp, NodeError, is_invalid_resume
from engine.pregel._algo import Task
from engine.pregel._spec import ERROR_SOURCE_NODE, TASKS

__all__ = ["handled_by", "failure_writes", "handler_task", "stops_others", "take_over"]

#: a handler's task is a pushed one, as LangGraph's: the same triggers as a Send's (it marks nothing seen)
_TRIGGERS = (TASKS,)


def handled_by(t: Task) -> bool:
    """Whether ``t`` failed and its node's error handler takes the failure over."""
    return t.error is not None and t.node.error_handler is not None and not isinstance(t.error, GraphBubbleUp)


def stops_others(t: Task) -> bool:
    """Whether ``t``'s failure ends its step at once, cancelling its siblings still running (as LangGraph's):
    not control flow (a Command for the parent), nor an answer its interrupt's schema refused (raised once
    the others finish, so a task answered in the same resume is not cut short and run again)."""
    return t.error is not None and not isinstance(t.error, (GraphBubbleUp, asyncio.CancelledError)) and not is_invalid_resume(t.error)


def failure_writes(t: Task) -> list[tuple[str, Any]]:
    """What a handled failure stores as ``t``'s pending writes, before its handler runs."""
    return [(ERROR, repr(t.error)), (ERROR_SOURCE_NODE, t.name)]


def take_over(t: Task, record: list[tuple[str, Any]] | None = None) -> None:
    """``t`` as a finished task that wrote nothing: its failure is its handler's now. ``record``: its
    :func:`failure_writes` when they are not stored yet (durability "exit": stored if the step stops),
    which applying the step's writes passes over (no channel has their names)."""
    t.error = None
    t.writes = record or []
    t.saved = record is None


def handler_task(failed: Task, error: Any, checkpoint_id: str | None, step: int) -> Task:
    """The handler's task for ``failed`` (its id derived from the failed task's, so a resume plans
    the same one); ``error`` is the exception, or on a resume what was stored of it."""
    handler = failed.node.error_handler
    assert handler is not None  # handled_by, or a stored marker of a node that has one
    return Task(
        id=make_task_id(checkpoint_id or "", step, "node_error_handler", failed.id, handler.name),
        name=handler.name,
        path=(*failed.path[:3], "node_error_handler", False),
        input=failed.input,
        triggers=_TRIGGERS,
        node=handler,
        state=failed.state,
        node_error=NodeError(node=failed.name, error=error),
    )
