"""Engine values → the inspector's JSON (plain dicts; ``server._json.encode`` writes them).

One function per thing the page shows: a graph drawing, a thread, a version
in the row (:func:`version_ref`), and a version opened (:func:`version_detail`).

What "the writes that produced a version" means here, since the store keeps
versions, not the updates between them:

* ``ran``: the nodes that ran to produce it: its parent's ``next`` for a
  "loop" version; nothing for "input" (the caller's input), "fork" (a copy of
  the parent) and "update" (``update_state``);
* ``changes``: what differs between the parent's values and this version's,
  key by key. A list that grew by appending (messages, reducer lists) shows
  the appended items (``appended``); any other change shows the new value
  (``set``), a key that disappeared shows ``removed``. Derived by comparing
  the two versions, so an update that rewrote a key with an equal value
  does not show;
* ``pending_writes``: the writes the checkpointer holds on the parent, per
  task (the node's name resolved from the parent's tasks): a step with
  several tasks saves each finished task's writes there, and an interrupt
  and its resume answer are stored there (channels ``__interrupt__``,
  ``__resume__``).
"""

from __future__ import annotations

import json
from typing import Any

import grpc

from engine.checkpoint.base import CheckpointTuple, ThreadInfo
from engine.graph import DrawableGraph
from engine.pregel import Pregel
from engine.types import StateSnapshot
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._convert import stored_error
from server._errors import RpcError

__all__ = ["graph_view", "interrupts", "run_view", "thread_label", "thread_view", "version_detail", "version_ref", "writes_view"]


def graph_view(name: str, description: str, graph: Pregel) -> dict[str, Any]:
    """A compiled graph's drawing; a subgraph node carries its graph's, nested (``subgraph``; None otherwise)."""
    drawn: DrawableGraph = graph.get_graph()
    subgraphs = dict(graph.get_subgraphs())
    meta = drawn.metadata
    return {
        "name": name,
        "description": description,
        "nodes": [
            {"name": n, "metadata": meta.get(n, {}), "subgraph": graph_view(subgraphs[n].name, "", subgraphs[n]) if n in subgraphs else None}
            for n in drawn.nodes
        ],
        "edges": [
            {"source": e.source, "target": e.target, "conditional": e.conditional, "label": e.label or ""} for e in drawn.edges
        ],
    }


def thread_label(metadata: Any) -> str | None:
    """What the page calls a thread: its record's metadata's ``user`` or ``title``, when it has
    one (the one place that knows where a label comes from); None: the page shows the id."""
    if isinstance(metadata, dict):
        for key in ("user", "title"):
            if isinstance(metadata.get(key), str) and metadata[key]:
                return str(metadata[key])
    return None


def thread_view(
    t: ThreadInfo, running: bool, waiting: dict[str, Any] | None = None, record: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A thread in the list; ``waiting`` is the interrupt its newest version waits at, if any; ``record``
    its thread record (its ``status`` and ``metadata``; None without one). A thread found by a search
    has no ``checkpoint_id`` (null)."""
    metadata = record["metadata"] if record is not None else None
    return {
        "thread_id": t.thread_id,
        "label": thread_label(metadata),
        "checkpoint_id": t.checkpoint_id or None,
        "updated_at": t.updated_at,
        "running": running,
        "waiting": waiting,
        "status": record["status"] if record is not None else None,
        "metadata": record["metadata"] if record is not None else None,
    }


def thread_filter(metadata: str, statuses: list[str]) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    """The thread list's search from its query: ``metadata`` a JSON object (empty: none), ``statuses``
    among idle, busy, interrupted, error; INVALID_ARGUMENT (400) naming what is wrong."""
    wrong = [s for s in statuses if s not in ("idle", "busy", "interrupted", "error")]
    if wrong:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"status: idle, busy, interrupted or error, not {', '.join(map(repr, wrong))}")
    if not metadata.strip():
        return None, tuple(statuses)
    try:
        found = json.loads(metadata)
    except ValueError as e:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"metadata: not JSON: {e}") from None
    if not isinstance(found, dict):
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"metadata: a JSON object, e.g. {{\"user\": \"u1\"}}, not {type(found).__name__}")
    return found, tuple(statuses)


def _enum_suffix(enum: Any, number: int, prefix: str) -> str | None:
    """``RUN_STATUS_RUNNING`` → ``"RUNNING"``; None for the unspecified value (0) or one this server does not know."""
    if number == 0:
        return None
    try:
        return enum.Name(number).removeprefix(prefix)
    except ValueError:
        return None


def _time(message: Any, field: str) -> str | None:
    return getattr(message, field).ToDatetime().isoformat() + "Z" if message.HasField(field) else None


#: Why an ended run returned, by its status, when its record has no RunFinished (its caller left).
_REASON_OF_STATUS = {"success": "END", "interrupted": "INTERRUPT", "error": "ERROR", "cancelled": "CANCELLED"}


def run_view(info: pb.RunInfo) -> dict[str, Any]:
    """A run's record (the ``RunInfo`` GetRun/ListRuns answer) as the calls time line draws it.

    ``reason`` is None exactly while the run is open.
    """
    status = (_enum_suffix(pb.RunStatus, info.status, "RUN_STATUS_") or "UNSPECIFIED").lower()
    reason = _enum_suffix(pb.FinishReason, info.reason, "FINISH_REASON_")
    if reason is None and info.HasField("ended_at"):
        reason = _REASON_OF_STATUS.get(status, "UNSPECIFIED")
    return {
        "run_id": info.run_id,
        "call": info.call,
        "call_args": json.loads(info.call_json) if info.call_json else {},
        "status": status,
        "reason": reason,
        "error": {"type": info.error.type, "message": info.error.message} if info.HasField("error") else None,
        "interrupts": [
            {"interrupt_id": i.interrupt_id, "node": i.node, "value": json.loads(i.value_json) if i.value_json else None}
            for i in info.interrupts
        ],
        "replica": info.replica,
        "attempts": info.attempts,
        "started_at": _time(info, "started_at"),
        "ended_at": _time(info, "ended_at"),
        "checkpoint_id": info.checkpoint_id or None,
        "request_id": info.request_id or None,
        "last_seq": info.last_seq,
    }


def _task_ns(state: Any) -> str | None:
    """A task's subgraph namespace (its ``state`` is the config naming it, or the subgraph's snapshot)."""
    config = state.config if isinstance(state, StateSnapshot) else state
    if not isinstance(config, dict):
        return None
    return (config.get("configurable") or {}).get("checkpoint_ns") or None


def _id(config: dict[str, Any] | None) -> str | None:
    return ((config or {}).get("configurable") or {}).get("checkpoint_id")


def interrupts(s: StateSnapshot) -> list[dict[str, Any]]:
    """The version's pending interrupts: id, node and value."""
    return [{"interrupt_id": i.id, "node": t.name, "value": i.value} for t in s.tasks for i in t.interrupts]


def _error(stored: Any) -> dict[str, str]:
    """A task's stored error in the wire's one shape (ErrorInfo: type and message)."""
    info = stored_error(stored)
    return {"type": info.type, "message": info.message}


def version_ref(s: StateSnapshot) -> dict[str, Any]:
    """A version as the row draws it: identity, parent, step, source, next, pending interrupts."""
    meta = s.metadata or {}
    return {
        "checkpoint_id": _id(s.config),
        "parent_id": _id(s.parent_config),
        "step": meta.get("step"),
        "source": meta.get("source"),
        "next": list(s.next),
        "created_at": s.created_at,
        "interrupts": interrupts(s),
    }


def _changes(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for key, value in after.items():
        if key not in before:
            out.append({"key": key, "kind": "set", "value": value})
            continue
        old = before[key]
        if old == value:
            continue
        if isinstance(old, list) and isinstance(value, list) and len(value) > len(old) and value[: len(old)] == old:
            out.append({"key": key, "kind": "appended", "value": value[len(old) :]})
        else:
            out.append({"key": key, "kind": "set", "value": value})
    out += [{"key": key, "kind": "removed", "value": None} for key in before if key not in after]
    return out


def writes_view(s: StateSnapshot, parent: StateSnapshot | None, parent_saved: CheckpointTuple | None) -> dict[str, Any]:
    source = (s.metadata or {}).get("source")
    nodes = {t.id: t.name for t in parent.tasks} if parent is not None else {}
    pending = [
        {"task_id": w.task_id, "node": nodes.get(w.task_id, ""), "channel": w.channel, "value": w.value}
        for w in ((parent_saved.pending_writes or ()) if parent_saved is not None else ())
    ]
    ran = list(parent.next) if parent is not None and source == "loop" else []
    return {
        "ran": ran,
        # each task of the parent's step that finished: its writes to the state (LangGraph's task.result)
        "results": [
            {"task_id": t.id, "node": t.name, "result": t.result}
            for t in (parent.tasks if parent is not None else ())
            if t.result is not None
        ],
        "changes": _changes(parent.values if parent is not None else {}, s.values),
        "pending_writes": pending,
    }


def version_detail(
    s: StateSnapshot, parent: StateSnapshot | None, parent_saved: CheckpointTuple | None
) -> dict[str, Any]:
    """A version opened: its ref, values, metadata, tasks, and the writes that produced it."""
    return {
        **version_ref(s),
        "values": s.values,
        "metadata": s.metadata or {},
        "tasks": [
            {
                "task_id": t.id,
                "node": t.name,
                "error": _error(t.error) if t.error else None,
                "interrupts": [{"interrupt_id": i.id, "value": i.value} for i in t.interrupts],
                "result": t.result,
                # a subgraph's task: the namespace its versions are stored under (GET /api/history&checkpoint_ns=)
                "checkpoint_ns": _task_ns(t.state),
            }
            for t in s.tasks
        ],
        "writes": writes_view(s, parent, parent_saved),
    }
