"""Proto messages → the client's values. Pure functions; no I/O."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from datetime import UTC
from typing import Any

from graphwire._events import (
    CallbackEvent,
    CheckpointSaved,
    CustomEvent,
    Event,
    InterruptEvent,
    MessageChunk,
    RunFinished,
    RunStarted,
    StepFinished,
    StepStarted,
    TaskFinished,
    TaskRef,
    TaskStarted,
    ValuesEvent,
)
from graphwire._payload import decode
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire._types import (
    Thread,
    ThreadStatus,
    Assistant,
    CheckpointRef,
    ErrorInfo,
    FinishReason,
    GraphEdge,
    GraphInfo,
    GraphNode,
    Interrupt,
    Item,
    OnDisconnect,
    RunInfo,
    RunPage,
    RunStatus,
    StateSnapshot,
    TaskState,
    TurnRefused,
)

__all__ = [
    "checkpoint_ref",
    "error_info",
    "event",
    "graph_info",
    "interrupt",
    "item",
    "optional_checkpoint_ref",
    "run_info",
    "run_page",
    "state_snapshot",
    "turn_refused",
]

_FINISH_REASONS: Mapping[int, FinishReason] = {
    pb.FINISH_REASON_END: FinishReason.END,
    pb.FINISH_REASON_INTERRUPT: FinishReason.INTERRUPT,
    pb.FINISH_REASON_ERROR: FinishReason.ERROR,
    pb.FINISH_REASON_RECURSION_LIMIT: FinishReason.RECURSION_LIMIT,
    pb.FINISH_REASON_CANCELLED: FinishReason.CANCELLED,
}


# Looked up by name: a stub older than the run records has none of these enums.
_RUN_STATUSES: Mapping[str, RunStatus] = {
    "RUN_STATUS_PENDING": RunStatus.PENDING,
    "RUN_STATUS_RUNNING": RunStatus.RUNNING,
    "RUN_STATUS_INTERRUPTED": RunStatus.INTERRUPTED,
    "RUN_STATUS_SUCCESS": RunStatus.SUCCESS,
    "RUN_STATUS_ERROR": RunStatus.ERROR,
    "RUN_STATUS_CANCELLED": RunStatus.CANCELLED,
    "RUN_STATUS_RECOVERING": RunStatus.RECOVERING,
    "RUN_STATUS_ROLLED_BACK": RunStatus.ROLLED_BACK,
}
_ON_DISCONNECT: Mapping[str, OnDisconnect] = {
    "ON_DISCONNECT_CANCEL": OnDisconnect.CANCEL,
    "ON_DISCONNECT_CONTINUE": OnDisconnect.CONTINUE,
}


def _enum_name(message: Any, field: str) -> str:
    number = getattr(message, field)
    values = message.DESCRIPTOR.fields_by_name[field].enum_type.values_by_number
    return values[number].name if number in values else ""


def _time(message: Any, field: str) -> Any:
    return getattr(message, field).ToDatetime(tzinfo=UTC) if message.HasField(field) else None


def run_info(message: Any) -> RunInfo:
    """A ``pb.RunInfo`` as a ``RunInfo``."""
    return RunInfo(
        run_id=message.run_id,
        thread_id=message.thread_id,
        graph=message.graph,
        status=_RUN_STATUSES.get(_enum_name(message, "status"), RunStatus.UNSPECIFIED),
        request_id=message.request_id or None,
        replica=message.replica,
        attempts=message.attempts,
        started_at=_time(message, "started_at"),
        ended_at=_time(message, "ended_at"),
        checkpoint_id=message.checkpoint_id or None,
        call=message.call,
        call_args=decode(message.call_json),
        reason=_FINISH_REASONS.get(message.reason, FinishReason.UNSPECIFIED) if message.reason else None,
        error=error_info(message),
        interrupts=_interrupts(message.interrupts),
        last_seq=message.last_seq,
        on_disconnect=_ON_DISCONNECT.get(_enum_name(message, "on_disconnect")),
        background=message.background,
        values=decode(message.values_json) if message.values_json else None,
        replaced_by=message.replaced_by or None,
        replaces=message.replaces or None,
    )


def run_page(message: pb.ListRunsResponse) -> RunPage:
    """A ``pb.ListRunsResponse`` as a ``RunPage``."""
    return RunPage(runs=tuple(run_info(r) for r in message.runs), next_before=message.next_before or None)


def checkpoint_ref(message: pb.CheckpointRef) -> CheckpointRef:
    return CheckpointRef(
        checkpoint_id=message.checkpoint_id,
        parent_id=message.parent_id or None,
        step=message.step,
        source=message.source,
        next=tuple(message.next),
        created_at=(message.created_at.ToDatetime(tzinfo=UTC) if message.HasField("created_at") else None),
    )


def optional_checkpoint_ref(message: Any, field: str = "checkpoint") -> CheckpointRef | None:
    return checkpoint_ref(getattr(message, field)) if message.HasField(field) else None


def error_info(message: Any, field: str = "error") -> ErrorInfo | None:
    """The ``ErrorInfo`` in ``message.<field>``, or None when unset."""
    if not message.HasField(field):
        return None
    error = getattr(message, field)
    return ErrorInfo(type=error.type, message=error.message)


def interrupt(message: pb.Interrupt) -> Interrupt:
    return Interrupt(
        interrupt_id=message.interrupt_id,
        node=message.node,
        task_id=message.task_id,
        value=decode(message.value_json),
        response_schema=decode(message.response_schema_json) if message.response_schema_json else None,
    )


def _interrupts(messages: Any) -> tuple[Interrupt, ...]:
    return tuple(interrupt(m) for m in messages)


def turn_refused(data: bytes) -> TurnRefused:
    """A refused turn's trailing ``TurnRefused`` (serialized) as a ``TurnRefused``."""
    message = pb.TurnRefused.FromString(data)
    reason = pb.TurnRefusedReason.Name(message.reason).removeprefix("TURN_REFUSED_REASON_").lower()
    return TurnRefused(reason=reason, checkpoint_id=message.checkpoint_id or None, interrupts=_interrupts(message.interrupts))


def state_snapshot(message: pb.StateSnapshot) -> StateSnapshot:
    return StateSnapshot(
        values=decode(message.values_json),
        next=tuple(message.next),
        checkpoint=checkpoint_ref(message.checkpoint),
        metadata=decode(message.metadata_json),
        tasks=tuple(
            TaskState(
                task_id=t.task_id,
                node=t.node,
                interrupts=_interrupts(t.interrupts),
                error=error_info(t),
                result=decode(t.result_json) if t.HasField("result_json") else None,
                checkpoint_ns=t.checkpoint_ns,
                state=state_snapshot(t.state) if t.HasField("state") else None,
                path=tuple(decode(t.path_json)) if t.path_json else (),
            )
            for t in message.tasks
        ),
        interrupts=_interrupts(message.interrupts),
    )


def graph_info(message: pb.GraphInfo) -> GraphInfo:
    return GraphInfo(
        name=message.name,
        description=message.description,
        nodes=tuple(
            GraphNode(name=n.name, metadata=decode(n.metadata_json), subgraph=graph_info(n.subgraph) if n.HasField("subgraph") else None)
            for n in message.nodes
        ),
        edges=tuple(
            GraphEdge(source=e.source, target=e.target, conditional=e.conditional, label=e.label or None)
            for e in message.edges
        ),
    )


# -- run events ---------------------------------------------------------------
# One decoder per case of the RunEvent oneof: (seq, run_id, case message) -> Event.

_EventDecoder = Callable[[int, str, Any], Event]


def _run_started(seq: int, run_id: str, m: pb.RunStarted) -> Event:
    return RunStarted(seq, run_id or m.run_id, m.thread_id, m.graph, m.checkpoint_id or None)


def _step_started(seq: int, run_id: str, m: pb.StepStarted) -> Event:
    return StepStarted(seq, run_id, m.step, tuple(TaskRef(t.task_id, t.node) for t in m.tasks))


def _step_finished(seq: int, run_id: str, m: pb.StepFinished) -> Event:
    return StepFinished(seq, run_id, m.step)


def _task_started(seq: int, run_id: str, m: pb.TaskStarted) -> Event:
    return TaskStarted(seq, run_id, m.step, m.task_id, m.node, decode(m.input_json), tuple(m.triggers))


def _task_finished(seq: int, run_id: str, m: pb.TaskFinished) -> Event:
    return TaskFinished(
        seq,
        run_id,
        m.step,
        m.task_id,
        m.node,
        update=decode(m.update_json),
        error=error_info(m),
        interrupts=_interrupts(m.interrupts),
        cached=m.cached,
    )


def _values(seq: int, run_id: str, m: pb.Values) -> Event:
    return ValuesEvent(seq, run_id, m.step, decode(m.values_json))


def _custom(seq: int, run_id: str, m: pb.Custom) -> Event:
    return CustomEvent(seq, run_id, m.step, m.task_id, m.node, decode(m.payload_json))


def _message_chunk(seq: int, run_id: str, m: pb.MessageChunk) -> Event:
    return MessageChunk(seq, run_id, m.step, m.task_id, m.node, decode(m.chunk_json), decode(m.metadata_json))


def _callback(seq: int, run_id: str, m: pb.CallbackEvent) -> Event:
    return CallbackEvent(seq, run_id, decode(m.event_json))


def _checkpoint_saved(seq: int, run_id: str, m: pb.CheckpointSaved) -> Event:
    return CheckpointSaved(seq, run_id, checkpoint_ref(m.checkpoint))


def _interrupt(seq: int, run_id: str, m: pb.Interrupt) -> Event:
    schema = decode(m.response_schema_json) if m.response_schema_json else None
    return InterruptEvent(seq, run_id, m.interrupt_id, m.node, m.task_id, decode(m.value_json), schema)


def _run_finished(seq: int, run_id: str, m: pb.RunFinished) -> Event:
    return RunFinished(
        seq,
        run_id,
        reason=_FINISH_REASONS.get(m.reason, FinishReason.UNSPECIFIED),
        checkpoint=optional_checkpoint_ref(m),
        values=decode(m.values_json),
        error=error_info(m),
        interrupts=_interrupts(m.interrupts),
    )


_EVENT_DECODERS: Mapping[str, _EventDecoder] = {
    "run_started": _run_started,
    "step_started": _step_started,
    "step_finished": _step_finished,
    "task_started": _task_started,
    "task_finished": _task_finished,
    "values": _values,
    "custom": _custom,
    "message_chunk": _message_chunk,
    "checkpoint_saved": _checkpoint_saved,
    "interrupt": _interrupt,
    "run_finished": _run_finished,
    "callback": _callback,
}


def event(message: pb.RunEvent) -> Event | None:
    """The event a ``RunEvent`` carries; None for a kind this client does not
    know (a newer server's), which callers skip."""
    case = message.WhichOneof("event")
    decoder = _EVENT_DECODERS.get(case) if case else None
    if decoder is None:
        return None
    ev = decoder(message.seq, message.run_id, getattr(message, case))
    if message.namespace:
        ev = dataclasses.replace(ev, namespace=tuple(message.namespace))
    return ev


def item(message: pb.Item) -> Item:
    return Item(
        namespace=tuple(message.namespace),
        key=message.key,
        value=decode(message.value_json),
        created_at=message.created_at.ToDatetime(tzinfo=UTC),
        updated_at=message.updated_at.ToDatetime(tzinfo=UTC),
        score=message.score if message.HasField("score") else None,
    )


_THREAD_STATUSES = {f"THREAD_STATUS_{s.name}": s for s in ThreadStatus if s is not ThreadStatus.UNSPECIFIED}
_TTL_STRATEGIES = {"TTL_STRATEGY_DELETE": "delete", "TTL_STRATEGY_KEEP_LATEST": "keep_latest", "TTL_STRATEGY_UNSPECIFIED": "delete"}


def thread(message: pb.ThreadInfo) -> Thread:
    """A ``pb.ThreadInfo`` as a ``Thread``."""
    ttl = None
    if message.HasField("ttl"):
        ttl = (message.ttl.seconds, _TTL_STRATEGIES.get(_enum_name(message.ttl, "strategy"), "delete"))
    return Thread(
        thread_id=message.thread_id,
        graph=message.graph,
        metadata=decode(message.metadata_json) if message.metadata_json else {},
        created_at=_time(message, "created_at"),
        updated_at=_time(message, "updated_at"),
        status=_THREAD_STATUSES.get(_enum_name(message, "status"), ThreadStatus.UNSPECIFIED),
        interrupts=tuple(interrupt(i) for i in message.interrupts),
        values=decode(message.values_json) if message.values_json else None,
        ttl=ttl,
        expires_at=_time(message, "expires_at"),
        error=error_info(message),
    )


def assistant(message: pb.Assistant) -> Assistant:
    return Assistant(
        assistant_id=message.assistant_id,
        graph=message.graph,
        name=message.name,
        description=message.description if message.HasField("description") else None,
        config=decode(message.config_json),
        context=decode(message.context_json),
        metadata=decode(message.metadata_json),
        version=message.version,
        created_at=message.created_at.ToDatetime(tzinfo=UTC),
        updated_at=message.updated_at.ToDatetime(tzinfo=UTC),
    )

