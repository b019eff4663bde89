"""Engine values → protobuf messages (one function per message kind)."""

from __future__ import annotations

import ast
import logging
import re
from datetime import datetime
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from engine import events as ev
from engine.host import is_unicode
from engine.pregel import Pregel
from engine.store.base import Item
from engine.types import Interrupt, StateSnapshot
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._json import encode

__all__ = ["run_event", "sendable", "snapshot", "checkpoint_ref", "graph_info", "item", "saved_event", "stored_error", "KIND_OF"]

log = logging.getLogger("graphwire.server")

# engine event class → the EventKind a caller filters on
KIND_OF: dict[type, int] = {
    ev.RunStarted: pb.EVENT_KIND_RUN_STARTED,
    ev.StepStarted: pb.EVENT_KIND_STEP_STARTED,
    ev.StepFinished: pb.EVENT_KIND_STEP_FINISHED,
    ev.TaskStarted: pb.EVENT_KIND_TASK_STARTED,
    ev.TaskFinished: pb.EVENT_KIND_TASK_FINISHED,
    ev.ValuesEvent: pb.EVENT_KIND_VALUES,
    ev.CustomEvent: pb.EVENT_KIND_CUSTOM,
    ev.MessageChunk: pb.EVENT_KIND_MESSAGE_CHUNK,
    ev.CheckpointSaved: pb.EVENT_KIND_CHECKPOINT_SAVED,
    ev.InterruptEvent: pb.EVENT_KIND_INTERRUPT,
    ev.RunFinished: pb.EVENT_KIND_RUN_FINISHED,
    ev.CallbackEvent: pb.EVENT_KIND_CALLBACK,
}
CLASS_OF = {v: k for k, v in KIND_OF.items()}

REASONS = {
    "END": pb.FINISH_REASON_END,
    "INTERRUPT": pb.FINISH_REASON_INTERRUPT,
    "ERROR": pb.FINISH_REASON_ERROR,
    "RECURSION_LIMIT": pb.FINISH_REASON_RECURSION_LIMIT,
    "CANCELLED": pb.FINISH_REASON_CANCELLED,
}


def _ts(iso: str | None) -> Timestamp | None:
    if not iso:
        return None
    t = Timestamp()
    t.FromDatetime(datetime.fromisoformat(iso))
    return t


def checkpoint_ref(
    checkpoint_id: str, parent_id: str | None, step: int, source: str, next: tuple[str, ...], created_at: str | None
) -> pb.CheckpointRef:
    return pb.CheckpointRef(
        checkpoint_id=checkpoint_id,
        parent_id=parent_id or "",
        step=step,
        source=source,
        next=list(next),
        created_at=_ts(created_at),
    )


def item(i: Item) -> pb.Item:
    """A store item (a ``SearchItem``'s score set only when it has one)."""
    created, updated = Timestamp(), Timestamp()
    created.FromDatetime(i.created_at)
    updated.FromDatetime(i.updated_at)
    msg = pb.Item(namespace=list(i.namespace), key=i.key, value_json=encode(i.value), created_at=created, updated_at=updated)
    score = getattr(i, "score", None)
    if score is not None:
        msg.score = score
    return msg


def interrupt(i: Any, node: str = "", task_id: str = "") -> pb.Interrupt:
    if isinstance(i, Interrupt):
        schema = encode(i.response_schema) if i.response_schema is not None else ""
        return pb.Interrupt(interrupt_id=i.id, node=node, task_id=task_id, value_json=encode(i.value), response_schema_json=schema)
    return pb.Interrupt(interrupt_id="", node=node, task_id=task_id, value_json=encode(i))


def _err(type_: str | None, message: str | None) -> pb.ErrorInfo | None:
    if not type_:
        return None
    return pb.ErrorInfo(type=type_, message=message or "")


_REPR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\)", re.DOTALL)


def stored_error(text: Any) -> pb.ErrorInfo:
    """The ErrorInfo of a task error read back from a checkpoint.

    The engine stores a failed task's error as LangGraph does: the text
    ``repr(exc)``, e.g. ``KeyError('messages')``. A run reports the live
    exception as ``type(exc).__name__`` and ``str(exc)`` (``'messages'``); to
    give both the same shape, the repr is split back into its class name and
    its arguments, and the message is what ``str()`` makes of those
    arguments. Only literals are read (``ast.literal_eval``); nothing is
    imported or called. A repr of another shape (a class with its own
    ``__repr__``) keeps its text as the message, under type "Exception".
    """
    text = str(text)
    m = _REPR.fullmatch(text)
    if m is None:
        return pb.ErrorInfo(type="Exception", message=text)
    name, args_text = m.groups()
    try:
        args = ast.literal_eval(f"({args_text},)") if args_text.strip() else ()
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return pb.ErrorInfo(type=name, message=args_text)
    if not isinstance(args, tuple):
        return pb.ErrorInfo(type=name, message=args_text)
    # BaseException.__str__: no argument "", one its str(), several the tuple;
    # KeyError alone shows its one argument's repr.
    if len(args) == 1:
        message = repr(args[0]) if name == "KeyError" else str(args[0])
    else:
        message = str(args) if args else ""
    return pb.ErrorInfo(type=name, message=message)


def sendable(value: Any, what: str) -> str:
    """``value`` as JSON for a run event, or "" (no value) when it cannot cross the wire.

    A node can put in an event what JSON cannot carry: NaN, a map with tuple
    keys, a lone surrogate, a value nested deeper than Python's recursion
    limit. The server's saver refuses such a state value (the run then ends
    ERROR with SerializationError), but a step's events are sent before its
    version is written, and custom events and message chunks are never
    stored. Failing the call for one of them would end the stream without
    its RunFinished (and the run with it); the event goes without that value
    instead, as RunFinished goes without values too large to send, and the
    log says why.
    """
    try:
        text = encode(value)
    except (ValueError, TypeError, RecursionError) as exc:
        log.warning("a run event's %s cannot cross the wire as JSON (%s: %.200s); sent without it", what, type(exc).__name__, exc)
        return ""
    if not is_unicode(text):  # a lone surrogate: protobuf would refuse the string field
        log.warning("a run event's %s holds a lone surrogate, which UTF-8 cannot carry; sent without it", what)
        return ""
    return text


def run_event(e: ev.Event, final_ref: pb.CheckpointRef | None = None, interrupt_nodes: dict[str, tuple[str, str]] | None = None) -> pb.RunEvent:
    """The RunEvent for one engine event (``seq``/``run_id`` set by the caller), with its namespace."""
    msg = _run_event(e, final_ref, interrupt_nodes)
    if e.ns:
        msg.namespace.extend(e.ns)
    return msg


def _run_event(e: ev.Event, final_ref: pb.CheckpointRef | None, interrupt_nodes: dict[str, tuple[str, str]] | None) -> pb.RunEvent:
    if isinstance(e, ev.RunStarted):
        return pb.RunEvent(run_started=pb.RunStarted(run_id=e.run_id, thread_id=e.thread_id or "", graph=e.graph, checkpoint_id=e.checkpoint_id or ""))
    if isinstance(e, ev.StepStarted):
        return pb.RunEvent(step_started=pb.StepStarted(step=e.step, tasks=[pb.TaskRef(task_id=t, node=n) for t, n in e.tasks]))
    if isinstance(e, ev.StepFinished):
        return pb.RunEvent(step_finished=pb.StepFinished(step=e.step))
    if isinstance(e, ev.TaskStarted):
        return pb.RunEvent(
            task_started=pb.TaskStarted(step=e.step, task_id=e.task_id, node=e.node, input_json=sendable(e.input, "task input"), triggers=list(e.triggers))
        )
    if isinstance(e, ev.TaskFinished):
        return pb.RunEvent(
            task_finished=pb.TaskFinished(
                step=e.step,
                task_id=e.task_id,
                node=e.node,
                update_json=sendable(e.update, "update") if e.update is not None else "",
                error=_err(e.error_type, e.error),
                interrupts=[interrupt(i, e.node, e.task_id) for i in e.interrupts],
                cached=e.cached,
            )
        )
    if isinstance(e, ev.ValuesEvent):
        return pb.RunEvent(values=pb.Values(step=e.step, values_json=sendable(e.values, "values")))
    if isinstance(e, ev.CustomEvent):
        return pb.RunEvent(custom=pb.Custom(step=e.step, task_id=e.task_id, node=e.node, payload_json=sendable(e.payload, "custom payload")))
    if isinstance(e, ev.MessageChunk):
        return pb.RunEvent(
            message_chunk=pb.MessageChunk(step=e.step, task_id=e.task_id, node=e.node, chunk_json=sendable(e.chunk, "message chunk"), metadata_json=sendable(e.metadata, "chunk metadata"))
        )
    if isinstance(e, ev.CallbackEvent):
        return pb.RunEvent(callback=pb.CallbackEvent(event_json=sendable(e.payload, "callback event")))
    if isinstance(e, ev.CheckpointSaved):
        ref = checkpoint_ref(e.checkpoint_id, e.parent_id, e.step, e.source, e.next, e.created_at)
        return pb.RunEvent(checkpoint_saved=pb.CheckpointSaved(checkpoint=ref))
    if isinstance(e, ev.InterruptEvent):
        schema = sendable(e.response_schema, "interrupt response_schema") if e.response_schema is not None else ""
        return pb.RunEvent(interrupt=pb.Interrupt(
            interrupt_id=e.interrupt_id, node=e.node, task_id=e.task_id, value_json=sendable(e.value, "interrupt value"), response_schema_json=schema,
        ))  # fmt: skip
    if isinstance(e, ev.RunFinished):
        nodes = interrupt_nodes or {}
        return pb.RunEvent(
            run_finished=pb.RunFinished(
                reason=REASONS[e.reason],
                checkpoint=final_ref,
                values_json=sendable(e.values, "final values") if e.values is not None else "",
                error=_err(e.error_type, e.error_message),
                interrupts=[interrupt(i, *nodes.get(getattr(i, "id", ""), ("", ""))) for i in e.interrupts],
            )
        )
    raise TypeError(f"no wire form for {type(e).__name__}")


def saved_event(state: StateSnapshot) -> ev.CheckpointSaved:
    """The CheckpointSaved event of a version written outside the engine's loop (Fork's update)."""
    meta = dict(state.metadata or {})
    parent = (state.parent_config or {}).get("configurable", {}).get("checkpoint_id")
    cid = state.config["configurable"]["checkpoint_id"]
    step, source = int(meta.get("step", -1)), str(meta.get("source", ""))
    return ev.CheckpointSaved(cid, parent, step, source, tuple(state.next), state.values, meta, state.created_at or "")


def _task_ns(state: Any) -> str:
    """The namespace of a subgraph task's state: its config's, or its nested snapshot's."""
    config = state if isinstance(state, dict) else getattr(state, "config", None) or {}
    return str((config.get("configurable") or {}).get("checkpoint_ns") or "")


def snapshot(s: StateSnapshot) -> pb.StateSnapshot:
    cid = s.config["configurable"].get("checkpoint_id", "")
    parent = (s.parent_config or {}).get("configurable", {}).get("checkpoint_id")
    meta = dict(s.metadata or {})
    tasks = [
        pb.TaskState(
            task_id=t.id,
            node=t.name,
            interrupts=[interrupt(i, t.name, t.id) for i in t.interrupts],
            error=stored_error(t.error) if t.error else None,
            result_json=None if t.result is None else encode(t.result),
            checkpoint_ns=_task_ns(t.state) if t.state else "",
            state=snapshot(t.state) if isinstance(t.state, StateSnapshot) else None,
            path_json=encode(list(t.path)) if getattr(t, "path", None) else "",
        )
        for t in s.tasks
    ]
    return pb.StateSnapshot(
        values_json=encode(s.values),
        next=list(s.next),
        checkpoint=checkpoint_ref(cid, parent, int(meta.get("step", -1)), str(meta.get("source", "")), s.next, s.created_at)
        if cid
        else None,
        metadata_json=encode(meta),
        tasks=tasks,
        interrupts=[i for t in tasks for i in t.interrupts],
    )


def graph_info(name: str, description: str, graph: Pregel, *, full: bool = True) -> pb.GraphInfo:
    """A compiled graph's drawing; ``full``: with its edges and, nested, its subgraphs' (GetGraph), else
    its nodes only (ListGraphs)."""
    drawn = graph.get_graph()
    subgraphs = dict(graph.get_subgraphs()) if full else {}
    meta = drawn.metadata
    return pb.GraphInfo(
        name=name,
        description=description,
        nodes=[
            pb.GraphNode(
                name=n,
                metadata_json=encode(meta.get(n, {})),
                subgraph=graph_info(subgraphs[n].name, "", subgraphs[n]) if n in subgraphs else None,
            )
            for n in drawn.nodes
        ],
        edges=[pb.GraphEdge(source=e.source, target=e.target, conditional=e.conditional, label=e.label or "") for e in drawn.edges]
        if full
        else [],
    )
