"""LangGraph's stream modes, as projections of the run's events.

``stream(..., stream_mode=...)`` yields what LangGraph yields for each mode;
this module maps each :mod:`engine.events` event to zero or more
``(mode, payload)`` pairs. Richer events (with step, task id, checkpoint id)
are available unprojected from ``aevents()``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence

from engine.events import (
    CheckpointSaved,
    CustomEvent,
    Event,
    MessageChunk,
    RunFinished,
    TaskFinished,
    TaskStarted,
    ValuesEvent,
)
from engine.types import START, Interrupt

__all__ = ["kinds_for", "project", "STREAM_MODES"]

STREAM_MODES = ("values", "updates", "custom", "messages", "checkpoints", "tasks", "debug")

_KINDS: dict[str, frozenset[type[Event]]] = {
    "values": frozenset({ValuesEvent}),
    "updates": frozenset({TaskFinished}),
    "custom": frozenset({CustomEvent}),
    "messages": frozenset({MessageChunk}),
    "checkpoints": frozenset({CheckpointSaved}),
    "tasks": frozenset({TaskStarted, TaskFinished}),
    "debug": frozenset({CheckpointSaved, TaskStarted, TaskFinished}),
}


def kinds_for(modes: Sequence[str]) -> frozenset[type[Event]]:
    out: set[type[Event]] = {RunFinished}
    for m in modes:
        if m not in _KINDS:
            raise ValueError(f"unknown stream_mode {m!r}; expected one of {', '.join(STREAM_MODES)}")
        out |= _KINDS[m]
    return frozenset(out)


def _cfg(thread_id: Any, cid: str | None) -> dict[str, Any] | None:
    if cid is None:
        return None
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": cid}}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def project(ev: Event, modes: Sequence[str], config: Mapping[str, Any]) -> Iterable[tuple[str, Any]]:
    thread_id = (config.get("configurable") or {}).get("thread_id")
    if isinstance(ev, ValuesEvent):
        if "values" in modes:
            yield "values", ev.values
    elif isinstance(ev, TaskFinished):
        if ev.node == START:
            return
        if "updates" in modes and not ev.error and not ev.interrupts:
            yield "updates", {ev.node: ev.update}
        result = {"id": ev.task_id, "name": ev.node, "error": ev.error, "result": ev.update, "interrupts": list(ev.interrupts)}
        if "tasks" in modes:
            yield "tasks", result
        if "debug" in modes:
            yield "debug", {"step": ev.step, "timestamp": _now(), "type": "task_result", "payload": result}
    elif isinstance(ev, TaskStarted):
        if ev.node == START:
            return
        payload = {"id": ev.task_id, "name": ev.node, "input": ev.input, "triggers": list(ev.triggers)}
        if "tasks" in modes:
            yield "tasks", payload
        if "debug" in modes:
            yield "debug", {"step": ev.step, "timestamp": _now(), "type": "task", "payload": payload}
    elif isinstance(ev, CustomEvent):
        if "custom" in modes:
            yield "custom", ev.payload
    elif isinstance(ev, MessageChunk):
        if "messages" in modes:
            meta = {"langgraph_step": ev.step, "langgraph_node": ev.node, "task_id": ev.task_id, **ev.metadata}
            yield "messages", (ev.chunk, meta)
    elif isinstance(ev, CheckpointSaved):
        payload = {
            "config": _cfg(thread_id, ev.checkpoint_id),
            "parent_config": _cfg(thread_id, ev.parent_id),
            "values": ev.values,
            "metadata": ev.metadata,
            "next": list(ev.next),
            "created_at": ev.created_at,
        }
        if "checkpoints" in modes:
            yield "checkpoints", payload
        if "debug" in modes:
            yield "debug", {"step": ev.step, "timestamp": _now(), "type": "checkpoint", "payload": payload}
    elif isinstance(ev, RunFinished) and ev.reason == "INTERRUPT":
        ints = tuple(i if isinstance(i, Interrupt) else Interrupt(i) for i in ev.interrupts)
        if "updates" in modes:
            yield "updates", {"__interrupt__": ints}
        if "values" in modes and ints:
            yield "values", {**(ev.values or {}), "__interrupt__": ints}
