"""What the run routes answer besides events: a run as LangGraph's ``Run`` object, and a finished run's result.

Pure, over the run records (:class:`engine.host.RunRecord`) and the final
event a run sends (``RunFinished``), so the routes (:mod:`server.http._runs`)
stay a line of work each.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from engine.host import RunRecord, default_assistant_id
from graphwire_proto.v1 import graphwire_pb2 as pb
from server.http._shapes import interrupt

__all__ = ["STATUSES", "result_of", "run_json", "status_of"]

#: A record's status as LangGraph names a run's ("pending", "running", "error", "success", "timeout", "interrupted").
#: A run that stopped at interrupts succeeded (its thread is the one "interrupted"); a run is "interrupted" when it
#: was cancelled, by a caller or by a run that replaced it, as on LangGraph's server.
_STATUS = {
    "PENDING": "pending", "RUNNING": "running", "RECOVERING": "running", "SUCCESS": "success", "ERROR": "error",
    "INTERRUPTED": "success", "CANCELLED": "interrupted", "ROLLED_BACK": "interrupted",
}  # fmt: skip
STATUSES = frozenset(_STATUS.values()) | {"timeout"}
_STRATEGY = {
    pb.MULTITASK_STRATEGY_REJECT: "reject", pb.MULTITASK_STRATEGY_ENQUEUE: "enqueue",
    pb.MULTITASK_STRATEGY_INTERRUPT: "interrupt", pb.MULTITASK_STRATEGY_ROLLBACK: "rollback",
}  # fmt: skip
_DURABILITY = {pb.DURABILITY_ASYNC: "async", pb.DURABILITY_SYNC: "sync", pb.DURABILITY_EXIT: "exit"}
_REQUESTS: dict[str, type[Any]] = {"Invoke": pb.InvokeRequest, "Resume": pb.ResumeRequest, "Fork": pb.ForkRequest}


def status_of(record: RunRecord) -> str:
    return _STATUS.get(record.status, "running")


def _when(t: datetime) -> str:
    return t.isoformat()


def run_json(record: RunRecord) -> dict[str, Any]:
    """``record`` as LangGraph's ``Run``.

    The assistant and strategy are read from the call the record keeps (a run
    that keeps its events: background, resumable, ``on_disconnect=continue``);
    for any other run the assistant is its graph's default one.
    """
    request = _REQUESTS[record.call].FromString(record.request) if record.request and record.call in _REQUESTS else None
    assistant = getattr(request, "assistant_id", "") or default_assistant_id(record.graph)
    if assistant == record.graph:  # named by its graph's name: that graph's default assistant, whose id LangGraph answers
        assistant = default_assistant_id(record.graph)
    strategy = getattr(request, "multitask_strategy", 0)
    if not strategy:
        strategy = pb.MULTITASK_STRATEGY_ENQUEUE if getattr(request, "enqueue", False) else pb.MULTITASK_STRATEGY_REJECT
    metadata: dict[str, Any] = {"graph_id": record.graph}  # as LangGraph's server labels a run
    if request is not None and request.config.metadata_json:
        metadata.update(json.loads(request.config.metadata_json))
    out = {
        "run_id": record.run_id, "thread_id": record.caller_thread, "assistant_id": assistant,
        "created_at": _when(record.started_at), "updated_at": _when(record.ended_at or record.started_at),
        "status": status_of(record), "metadata": metadata, "multitask_strategy": _STRATEGY[strategy],
        "kwargs": _kwargs(request), "langsmith_session_name": None,
    }  # fmt: skip
    if record.status in ("CANCELLED", "ROLLED_BACK"):
        out["cancel_reason"] = f"replaced by run {record.replaced_by}" if record.replaced_by else "cancelled"
    return out


def _json(text: str) -> Any:
    return json.loads(text) if text else None


def _kwargs(request: Any) -> dict[str, Any] | None:
    """The run's arguments as LangGraph's ``Run.kwargs`` has them, from the call its record keeps (None: not kept).

    What the call holds: ``input``, ``command`` (a resume's answers, or a Command), ``config``
    (``configurable``, ``metadata``, ``tags``, ``recursion_limit``, as given with the assistant's),
    ``context``, ``interrupt_before``/``interrupt_after`` and ``durability`` (``"async"`` when the call
    gave none, the default it runs with; ``checkpoint_during``, its older name, true unless it is
    ``"exit"``). The stream modes and the webhook are the HTTP call's, not the run's: not there
    (LangGraph's server keeps them too)."""
    if request is None:
        return None
    rc = request.config
    config: dict[str, Any] = {"configurable": _json(rc.configurable_json) or {}, "metadata": _json(rc.metadata_json) or {}}
    if rc.tags:
        config["tags"] = list(rc.tags)
    if rc.HasField("recursion_limit"):
        config["recursion_limit"] = rc.recursion_limit
    command: Any = None
    if isinstance(request, pb.ResumeRequest):
        answers = {k: json.loads(v) for k, v in request.resumes_json.items()}
        command = {"resume": answers if answers else _json(request.resume_json)}
    elif isinstance(request, pb.InvokeRequest):
        command = _json(request.command_json)
    durability = _DURABILITY.get(rc.durability, "async")  # (none given: a run's default, as LangGraph's)
    return {
        "input": _json(request.input_json) if isinstance(request, pb.InvokeRequest) else None, "command": command,
        "config": config, "context": _json(rc.context_json) or {},
        "interrupt_before": list(rc.interrupt_before) or None, "interrupt_after": list(rc.interrupt_after) or None,
        "durability": durability, "checkpoint_during": durability != "exit",
    }  # fmt: skip


def result_of(final: pb.RunEvent | None) -> Any:
    """What ``/runs/wait`` and ``/join`` answer for a run that ended with ``final``: its state, with
    ``__interrupt__`` when it stopped at interrupts, or ``{"__error__": {error, message}}``."""
    if final is None:
        return {}
    f = final.run_finished
    if f.reason in (pb.FINISH_REASON_ERROR, pb.FINISH_REASON_RECURSION_LIMIT):
        return {"__error__": {"error": f.error.type or "Error", "message": f.error.message}}
    if f.reason == pb.FINISH_REASON_CANCELLED:
        return {"__error__": {"error": "UserInterrupt", "message": f"run {final.run_id} was cancelled"}}
    values = json.loads(f.values_json) if f.values_json else {}
    if f.reason == pb.FINISH_REASON_INTERRUPT and f.interrupts:
        return {**(values if isinstance(values, dict) else {}), "__interrupt__": [interrupt(i, streamed=True) for i in f.interrupts]}
    return values
