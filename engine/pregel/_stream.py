"""LangGraph's stream modes, as projections of the run's events.

``stream(..., stream_mode=...)`` yields what LangGraph 1.2 yields for each
mode; a :class:`Projector` maps each :mod:`engine.events` event to zero or
more ``(mode, payload)`` pairs, in order. Richer events (with step, task id,
checkpoint id) are available unprojected from ``aevents()``.

Details kept from LangGraph: an interrupted task yields its own
``{"__interrupt__": (...)}`` chunk in "updates" and the values with it in
"values", as it stops (a static breakpoint yields ``{"__interrupt__": ()}``
at the end); a task whose writes came from pending writes yields its update
with ``"__metadata__": {"cached": True}``; the "checkpoints" mode yields
each version a run saves and, first, the one it continues from, with its
tasks (their results and errors once known); without a checkpointer it
yields nothing. The "tools" mode yields each LangChain tool call's start,
partial outputs, end or error (:mod:`engine._langchain.tools`).
"""

from __future__ import annotations

import dataclasses

from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence

from engine.events import (
    CheckpointLoaded,
    CheckpointSaved,
    CustomEvent,
    Event,
    ForwardedChunk,
    MessageChunk,
    RunFinished,
    TaskFinished,
    TaskStarted,
    ToolEvent,
    ValuesEvent,
)
from engine.pregel._io import with_checkpoint_map
from engine.pregel._spec import TASKS
from engine.pregel.debug import node_task_metadata
from engine.pregel._status import task_result
from engine.types import END, START, Interrupt

_CALL = "__pregel_push"  # the trigger of a @task call's task (engine.pregel._calls.PUSH)

__all__ = ["kinds_for", "modes_for", "Projector", "STREAM_MODES", "print_chunk", "with_output_keys"]

STREAM_MODES = ("values", "updates", "custom", "messages", "checkpoints", "tasks", "debug", "tools")

_CHECKPOINTS = frozenset({CheckpointSaved, CheckpointLoaded})
_KINDS: dict[str, frozenset[type[Event]]] = {
    "values": frozenset({ValuesEvent, TaskFinished}),
    "updates": frozenset({TaskFinished}),
    "custom": frozenset({CustomEvent}),
    "messages": frozenset({MessageChunk}),
    "tools": frozenset({ToolEvent}),
    "checkpoints": _CHECKPOINTS,
    "tasks": frozenset({TaskStarted, TaskFinished}),
    "debug": _CHECKPOINTS | {TaskStarted, TaskFinished},
}


def print_chunk(mode: str, payload: Any, ns: tuple[str, ...]) -> None:
    """One chunk of a printed mode (``print_mode``, ``debug=True``), as LangGraph prints it: bold mode, yellow graph."""
    parts = [f"\033[1m[{mode}]\033[0m"]
    if ns:
        parts.append(f"\033[1;33m[graph={ns}]\033[0m")
    print(" ".join([*parts, repr(payload)]))


def with_output_keys(spec: Any, keys: str | Sequence[str]) -> Any:
    """``spec`` whose values (a call's, and the values stream's) are ``keys``' (``output_keys=``), checked as LangGraph does."""
    for k in [keys] if isinstance(keys, str) else keys:
        if k not in spec.channels:
            raise ValueError(f"Key {k} not in channels")
    keys = keys if isinstance(keys, str) else tuple(keys)
    return dataclasses.replace(spec, output_keys=keys, stream_keys=keys, checkpoint_keys=spec.version_keys)


def kinds_for(modes: Sequence[str]) -> frozenset[type[Event]]:
    out: set[type[Event]] = {RunFinished}
    for m in modes:
        if m not in _KINDS:
            raise ValueError(f"unknown stream_mode {m!r}; expected one of {', '.join(STREAM_MODES)}")
        out |= _KINDS[m] | {ForwardedChunk}
    return frozenset(out)


def modes_for(kinds: frozenset[type[Event]]) -> list[str]:
    """The stream modes whose chunks ``kinds`` make (what a caller asking for them streams); a
    remote graph asks its server for these on behalf of a parent's stream. "tools" is left out: a
    server does not stream it."""
    return [m for m in STREAM_MODES if m != "tools" and _KINDS[m] <= kinds]


def _cfg(thread_id: Any, cid: str | None, ns: str = "") -> dict[str, Any] | None:
    if cid is None:
        return None
    return {"configurable": {"checkpoint_ns": ns, "thread_id": thread_id, "checkpoint_id": cid}}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _interrupt(i: Any) -> dict[str, Any]:
    """An interrupt as LangGraph's payloads hold it (``dataclasses.asdict`` of its Interrupt)."""
    return {"value": i.value, "id": i.id, "response_schema": getattr(i, "response_schema", None)}


def _task(t: Any) -> dict[str, Any]:
    """A checkpoint payload's task, in LangGraph's three shapes (failed; with a result; neither)."""
    if t.error:
        return {"id": t.id, "name": t.name, "error": t.error, "state": t.state}
    ints = tuple(_interrupt(i) for i in t.interrupts)
    if t.result:
        return {"id": t.id, "name": t.name, "result": t.result, "interrupts": ints, "state": t.state}
    return {"id": t.id, "name": t.name, "interrupts": ints, "state": t.state}


class Projector:
    """Turns one run's events into LangGraph stream chunks."""

    def __init__(
        self,
        modes: Sequence[str],
        config: Mapping[str, Any],
        *,
        checkpointer: bool,
        root: bool = False,
        node_metadata: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.modes = frozenset(modes)
        # What a started task shows as its metadata (LangGraph's tasks and debug modes): the caller's
        # metadata and tags, with its node's own metadata (``add_node(metadata=)``) where known.
        self.metadata = config.get("metadata") or {}
        self.tags = config.get("tags")
        self.node_metadata = node_metadata or {}
        self.root = root  # the values are one channel's (an entrypoint's): an interrupt's values chunk holds only it
        thread_id = (config.get("configurable") or {}).get("thread_id")
        # as LangGraph's checkpoint configs: the thread's id as text (a UUID given becomes its string)
        self.thread_id = thread_id if thread_id is None or isinstance(thread_id, str) else str(thread_id)
        self.checkpointer = checkpointer
        self.values: dict[str, Any] = {}  # the run's latest values, for an interrupt's values chunk
        self.calls: set[str] = set()  # ids of the @task calls started (their results are ``__return__`` writes)

    def _result(self, ev: TaskFinished) -> Any:
        """A finished task's writes, as the tasks and debug modes show them: a call's
        ``{"__return__": value}``, an entrypoint's ``{"__end__": value}``, a node's update (to every state key)."""
        update = ev.update if ev.result is None else ev.result
        if ev.error or ev.interrupts:
            return update or {}
        if ev.task_id in self.calls:
            return {"__return__": update}
        if self.root:
            return {END: update}
        if isinstance(update, list) and all(isinstance(one, dict) for one in update):  # several writes to one key: {key: {"$writes": [...]}}
            pairs = [kv for one in update for kv in one.items()]
            return task_result(pairs, {k for k, _ in pairs})
        return update or {}

    def project(self, ev: Event) -> Iterable[tuple[str, Any]]:
        modes = self.modes
        if isinstance(ev, ValuesEvent):
            self.values = ev.values
            if "values" in modes:
                yield "values", ev.values
        elif isinstance(ev, TaskFinished):
            if ev.node == START:
                return
            if ev.interrupts:
                ints = tuple(i if isinstance(i, Interrupt) else Interrupt(i) for i in ev.interrupts)
                if "updates" in modes:
                    yield "updates", {"__interrupt__": ints}
                if "values" in modes:
                    # As LangGraph's: the state the step started from (streamed before or not) and the questions.
                    now = self.values if ev.values is None else ev.values
                    yield "values", {"__interrupt__": ints} if self.root else {**now, "__interrupt__": ints}
            elif "updates" in modes and not ev.error:
                chunk: dict[str, Any] = {ev.node: ev.update}
                if ev.cached:
                    chunk["__metadata__"] = {"cached": True}
                yield "updates", chunk
            if ev.cached:
                return
            result = {
                "id": ev.task_id,
                "name": ev.node,
                "error": ev.exception if ev.error else None,
                "result": self._result(ev),
                "interrupts": [_interrupt(i) for i in ev.interrupts],
            }
            if "tasks" in modes:
                yield "tasks", result
            if "debug" in modes:
                yield "debug", {"step": ev.step, "timestamp": _now(), "type": "task_result", "payload": result}
        elif isinstance(ev, TaskStarted):
            if ev.node == START:
                return
            triggers = tuple(ev.triggers)
            if triggers == (_CALL,):
                self.calls.add(ev.task_id)
            elif triggers == (TASKS,):
                triggers = (_CALL,)  # a Send's task, as LangGraph names its trigger
            payload = {"id": ev.task_id, "name": ev.node, "input": ev.input, "triggers": triggers}
            # a subgraph's task carries its own run's; the root's are made here
            shown = ev.metadata if ev.metadata is not None else node_task_metadata(self.metadata, self.node_metadata.get(ev.node), self.tags)
            if shown:
                payload["metadata"] = shown
            if "tasks" in modes:
                yield "tasks", payload
            if "debug" in modes:
                yield "debug", {"step": ev.step, "timestamp": _now(), "type": "task", "payload": payload}
        elif isinstance(ev, CustomEvent):
            if "custom" in modes:
                yield "custom", ev.payload
        elif isinstance(ev, MessageChunk):
            if "messages" in modes:
                meta = {"langgraph_step": ev.step, "langgraph_node": ev.node, **ev.metadata}
                yield "messages", (ev.chunk, meta)
        elif isinstance(ev, ToolEvent):
            if "tools" in modes:
                yield "tools", ev.payload
        elif isinstance(ev, ForwardedChunk):
            if ev.mode in modes:
                yield ev.mode, ev.payload
        elif isinstance(ev, (CheckpointSaved, CheckpointLoaded)):
            if not self.checkpointer:
                return
            ns = "|".join(ev.ns)  # a subgraph's versions are stored under its namespace
            payload = {
                "config": with_checkpoint_map(_cfg(self.thread_id, ev.checkpoint_id, ns), ev.metadata),
                "parent_config": with_checkpoint_map(_cfg(self.thread_id, ev.parent_id, ns), ev.metadata),
                "values": ev.values,
                "metadata": ev.metadata,
                "next": list(ev.next),
                "tasks": [_task(t) for t in ev.tasks],
            }
            if "checkpoints" in modes:
                yield "checkpoints", payload
            if "debug" in modes:
                yield "debug", {"step": ev.step, "timestamp": _now(), "type": "checkpoint", "payload": payload}
        elif isinstance(ev, RunFinished) and ev.reason == "INTERRUPT" and not ev.interrupts:
            if "updates" in modes:  # a static breakpoint
                yield "updates", {"__interrupt__": ()}
