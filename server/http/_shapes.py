"""graphwire's protobuf answers as LangGraph's Agent Server JSON (the ``langgraph-sdk`` schema).

Pure functions of one message each: the routes call the gRPC servicer's parts
and hand their answers here, so what a value means is decided once, by the
gRPC side, and only its spelling changes (``graph`` is ``graph_id``, JSON
text fields are JSON values, times are ISO 8601 strings, a thread's pending
interrupts are keyed by the task that raised them).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from graphwire_proto.v1 import graphwire_pb2 as pb

__all__ = ["assistant", "checkpoint", "drawing", "empty_state", "item", "iso", "state", "thread"]

_STATUS = {
    pb.THREAD_STATUS_IDLE: "idle", pb.THREAD_STATUS_BUSY: "busy", pb.THREAD_STATUS_INTERRUPTED: "interrupted",
    pb.THREAD_STATUS_ERROR: "error", pb.THREAD_STATUS_UNSPECIFIED: "idle",
}  # fmt: skip


def _json(text: str, empty: Any = None) -> Any:
    return json.loads(text) if text else empty


def iso(t: Timestamp) -> str | None:
    """A protobuf time as LangGraph writes it: ISO 8601 in UTC (None: unset)."""
    if not t.seconds and not t.nanos:
        return None
    return t.ToDatetime().isoformat() + "+00:00"


def assistant(a: pb.Assistant) -> dict[str, Any]:
    return {
        "assistant_id": a.assistant_id, "graph_id": a.graph, "config": _json(a.config_json, {}), "context": _json(a.context_json, {}),
        "metadata": _json(a.metadata_json, {}), "name": a.name, "description": a.description if a.HasField("description") else None,
        "version": a.version, "created_at": iso(a.created_at), "updated_at": iso(a.updated_at),
    }  # fmt: skip


def assistant_version(a: pb.Assistant) -> dict[str, Any]:
    """One of an assistant's versions, as LangGraph's ``AssistantVersion``: the assistant's fields without
    ``updated_at`` (a version is never changed once made)."""
    out = assistant(a)
    del out["updated_at"]
    return out


def interrupt(i: pb.Interrupt, *, streamed: bool = False) -> dict[str, Any]:
    """An interrupt as LangGraph's server writes it: its value and id in a thread's and a state's lists;
    ``streamed`` (a stream's frames, a run's result) with LangGraph 1.2's ``response_schema`` too (null
    without one)."""
    out = {"value": _json(i.value_json), "id": i.interrupt_id}
    if streamed:
        out["response_schema"] = _json(i.response_schema_json)
    return out


#: The metadata key of a thread made over HTTP without a graph on a server of several graphs: LangGraph's
#: threads name none until their first run, a graphwire thread belongs to one. It is kept under the server's
#: first graph, marked so, until a run binds it to its assistant's (server.http._common.check_run_thread);
#: the HTTP face never shows the key.
UNBOUND = "__graphwire_unbound__"


def thread(t: pb.ThreadInfo, *, values_read: bool = True) -> dict[str, Any]:
    """A thread's record as LangGraph's server writes it. ``values_read``: its values were asked for, so empty
    ones mean no version yet: such a thread (never run) has no ``interrupts`` nor ``error`` there, and ``{}``
    as its config."""
    pending: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for i in t.interrupts:
        pending[i.task_id].append(interrupt(i))
    out = {
        "thread_id": t.thread_id, "created_at": iso(t.created_at), "updated_at": iso(t.updated_at), "metadata": shown_metadata(t.metadata_json),
        "status": _STATUS.get(t.status, "idle"), "values": _json(t.values_json), "interrupts": dict(pending),
        # What LangGraph's server adds: a thread's own config (graphwire keeps none: a run's is its own, an
        # assistant's is the assistant's; the shape is LangGraph's), its last run's error (while it is in
        # "error"), and when its state last changed (its record's update time: every run and state update
        # changes both).
        "config": {"configurable": {}}, "error": {"error": t.error.type, "message": t.error.message} if t.HasField("error") else None,
        "state_updated_at": iso(t.updated_at),
    }  # fmt: skip
    if values_read and not t.values_json and t.status in (pb.THREAD_STATUS_IDLE, pb.THREAD_STATUS_UNSPECIFIED) and not t.HasField("error"):
        del out["interrupts"], out["error"]
        out["config"], out["state_updated_at"] = {}, iso(t.created_at)  # its state has not changed since
    if t.HasField("ttl"):
        out["ttl"] = {"ttl": t.ttl.seconds / 60, "strategy": "keep_latest" if t.ttl.strategy == pb.TTL_STRATEGY_KEEP_LATEST else "delete"}
    return out


def shown_metadata(text: str) -> dict[str, Any]:
    """A thread's metadata as the HTTP face shows it (without :data:`UNBOUND`)."""
    metadata: dict[str, Any] = _json(text, {})
    metadata.pop(UNBOUND, None)
    return metadata


def checkpoint(thread_id: str, checkpoint_id: str | None, ns: str = "", above: dict[str, str] | None = None) -> dict[str, Any]:
    """A version's ``Checkpoint``; a subgraph's (``above``: the versions above it by namespace) with its
    ``checkpoint_map`` too, as LangGraph's server shows a subgraph's state (a graph's own, without)."""
    out: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}
    if above is not None:
        out["checkpoint_map"] = {**above, ns: checkpoint_id}
    return out


def state(thread_id: str, s: pb.StateSnapshot, ns: str = "", above: dict[str, str] | None = None) -> dict[str, Any]:
    """A version as LangGraph's ``ThreadState`` (a subgraph's: ``above``, the versions above it by namespace).

    Its ``metadata`` names the thread as LangGraph's server shows it (``thread_id``; a subgraph's also its
    ``checkpoint_ns`` and the versions above it as ``checkpoint_map``): added here, not stored in every version.
    """
    c = s.checkpoint
    tasks = []
    for t in s.tasks:
        error = None
        if t.HasField("error"):  # as LangGraph's server shows it: the exception's repr
            error = f"{t.error.type}({t.error.message!r})" if t.error.type else t.error.message
        # A subgraph's task, as LangGraph's server has it: its state when asked for (subgraphs), else where
        # its versions are (``{thread_id, checkpoint_ns}``, LangGraph's task state as a config).
        sub = state(thread_id, t.state, t.checkpoint_ns, {**(above or {}), ns: c.checkpoint_id}) if t.HasField("state") else None
        where = {"thread_id": thread_id, "checkpoint_ns": t.checkpoint_ns} if t.checkpoint_ns and sub is None else None
        tasks.append({
            "id": t.task_id, "name": t.node, "path": _json(t.path_json, []), "error": error, "interrupts": [interrupt(i) for i in t.interrupts],
            "checkpoint": where, "state": sub, "result": _json(t.result_json),
        })  # fmt: skip
    metadata = {**_json(s.metadata_json, {}), "thread_id": thread_id}
    if above is not None:
        metadata.update(checkpoint_ns=ns, checkpoint_map=above)
    return {
        "values": _json(s.values_json, {}), "next": list(s.next), "checkpoint": checkpoint(thread_id, c.checkpoint_id, ns, above),
        "metadata": metadata, "created_at": iso(c.created_at),
        "parent_checkpoint": checkpoint(thread_id, c.parent_id, ns, above) if c.parent_id else None, "tasks": tasks,
        "interrupts": [interrupt(i) for i in s.interrupts],
        "checkpoint_id": c.checkpoint_id, "parent_checkpoint_id": c.parent_id or None,  # LangGraph's older spelling, still sent
    }  # fmt: skip


def empty_state(thread_id: str) -> dict[str, Any]:
    """The state of a thread that has no version yet (created, never run): empty, as LangGraph's server answers."""
    return {
        "values": {}, "next": [], "checkpoint": checkpoint(thread_id, None), "metadata": {}, "created_at": None,
        "parent_checkpoint": None, "tasks": [], "interrupts": [], "checkpoint_id": None, "parent_checkpoint_id": None,
    }  # fmt: skip


def item(i: pb.Item, *, searched: bool = False) -> dict[str, Any]:
    out = {
        "namespace": list(i.namespace), "key": i.key, "value": _json(i.value_json, {}), "created_at": iso(i.created_at),
        "updated_at": iso(i.updated_at),
    }  # fmt: skip
    if searched or i.HasField("score"):
        out["score"] = i.score if i.HasField("score") else None  # as LangGraph's server: null unless a query ranked it
    return out


async def drawing(graph: Any, *, xray: int | bool = False) -> dict[str, Any]:
    """A graph's drawing as LangGraph's server gives it: the graph's own ``get_graph(xray=...).to_json()``,
    each node's ``data`` without its ``id`` (the runnable's class path).

    ``xray``: a subgraph's nodes drawn inside it, to that many levels (True: every level).
    """
    drawn: dict[str, Any] = (await graph.aget_graph(xray=xray)).to_json()
    for node in drawn.get("nodes", []):
        if isinstance(node.get("data"), dict):
            node["data"].pop("id", None)
    return drawn
