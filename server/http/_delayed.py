"""Delayed runs over HTTP: LangGraph's ``after_seconds`` on a run on a thread (background, stream or wait).

A background run asked for with ``after_seconds`` is checked whole as any
run's body is (its assistant, its thread and the thread's graph too), kept in
the checkpointer's database (:class:`engine.host.DelayedRuns`) with the time it
is due, and answered at once: its ``Run`` in status ``pending``, with the run
id it will run under. :class:`DelayedStarter` starts it when due (called by
:class:`server._delayed_starter.DelayedScheduler`, one replica at a time), as
``POST /threads/{thread_id}/runs`` would then, in its tenant: the multitask
strategy applies at that moment, and a start the thread refuses (busy under
"reject", deleted...) leaves the run in status ``error`` saying why. The run
goes in under the id its caller was given (:data:`server._stream.NAMED_RUN`)
and the request id ``delayed-<run_id>``, so a starter that dies after starting
it and before removing its row (the row is claimed again later) joins the run
instead of starting it twice.

A stream or a wait asked for with ``after_seconds`` is the same delayed run,
joined (:mod:`server.http._runs`): its caller leaving cancels it unless
``on_disconnect`` is "continue". Until it starts, the run routes find it here: ``GET`` (status ``pending``;
``interrupted`` once cancelled, ``error`` when it could not start), the
thread's listing, ``cancel`` (the row ends "cancelled"; one cancelled while its
start is under way is cancelled once started) and ``join`` / ``join_stream``,
which wait for its start.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import grpc

from engine.host import DelayedRun, RunRecord
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._errors import status_for
from server._reads import thread_key
from server._records import now
from server._run_api import CallContext, run_events
from server._stream import NAMED_RUN
from server._tenants import TENANT
from server.http._common import check_run_thread
from server.http._run_body import RunBody, parse_run_body
from server.http._webhooks import keep_webhook

if TYPE_CHECKING:
    from server.service import GraphService

__all__ = ["DelayedStarter", "ask_later", "delayed_json", "ended_result", "pending_of", "queued_behind", "started_record"]

log = logging.getLogger("graphwire.server")
_STATUS = {"pending": "pending", "cancelled": "interrupted", "error": "error"}
#: What a start the thread refuses ends the run with (its row "error"); any other failure (the database
#: down) leaves the row to be claimed again.
_REFUSED = {
    grpc.StatusCode.NOT_FOUND, grpc.StatusCode.ABORTED, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.RESOURCE_EXHAUSTED,
}  # fmt: skip
#: How often a caller joining a run that has not started yet looks again.
_LOOK_AGAIN = 0.2


def delayed_json(row: DelayedRun) -> dict[str, Any]:
    """``row`` as LangGraph's ``Run`` (its assistant and strategy as asked; checked when it was asked for)."""
    body = json.loads(row.body)
    out = {
        "run_id": row.run_id, "thread_id": row.thread_id, "assistant_id": body.get("resolved_assistant") or body["assistant_id"],
        "created_at": row.created_at.isoformat(), "updated_at": row.created_at.isoformat(), "status": _STATUS[row.status],
        "metadata": body.get("metadata") or {}, "multitask_strategy": body.get("multitask_strategy") or "enqueue",
    }  # fmt: skip
    tags = (body.get("config") or {}).get("tags")
    if tags:
        out["kwargs"] = {"config": {"tags": tags}}
    if row.status == "cancelled":
        out["cancel_reason"] = "cancelled"
    return out


async def ask_later(service: GraphService, run: RunBody, body: dict[str, Any], thread_id: str, *, checked: bool = False) -> dict[str, Any]:
    """Keep ``run`` (``body`` as sent) to start ``run.after_seconds`` from now (None: as soon as its thread is
    free: a background run queued behind another, see :func:`queued_behind`); its pending ``Run``."""
    if not checked:
        await check_run_thread(service, run)
    resolved = await service.assistants.resolve(run.request)  # an unknown assistant is 404 now, not at its start
    assistant = json.loads(resolved.config.metadata_json or "{}").get("assistant_id") or run.request.assistant_id
    kept = {k: v for k, v in body.items() if k != "after_seconds"}
    at = now()
    row = DelayedRun(
        str(uuid.uuid4()), TENANT.get() or "", thread_id, json.dumps({**kept, "resolved_assistant": assistant}),
        at + timedelta(seconds=run.after_seconds or 0), at,
    )  # fmt: skip
    await service.delayed.aadd(row)
    return delayed_json(row)


async def queued_behind(service: GraphService, run: RunBody, thread_id: str, graph: str | None) -> bool:
    """Whether a background run on ``thread_id`` (of ``graph``, as :func:`check_run_thread` found it: None, not
    there yet) must wait its turn, so is answered ``pending`` at once (as on LangGraph's server) rather than when
    it starts: its strategy is "enqueue" and the thread has a run going (on any replica) or a queued run due
    before it."""
    if graph is None or run.request.multitask_strategy != pb.MULTITASK_STRATEGY_ENQUEUE:
        return False
    if await service.records.store.aactive(thread_key(graph, thread_id)):
        return True
    at = now()
    return any(r.status == "pending" and r.not_before <= at for r in await service.delayed.alist(TENANT.get() or "", thread_id))


async def pending_of(service: GraphService, thread_id: str, run_id: str) -> DelayedRun | None:
    """``run_id``'s row when it is a delayed run of the caller's ``thread_id`` (and tenant) not started yet."""
    row = await service.delayed.aget(run_id)
    if row is None or row.thread_id != thread_id or row.tenant != (TENANT.get() or ""):
        return None
    return row


async def started_record(service: GraphService, row: DelayedRun) -> RunRecord | DelayedRun:
    """The record of ``row``'s run once it has started; or its row, when it ended without starting (or is
    gone without a record: its thread deleted)."""
    while True:
        record = await service.records.store.aget(row.run_id)
        if record is not None:
            return record
        found = await service.delayed.aget(row.run_id)
        if found is None:  # started (or removed) between the two reads
            return await service.records.store.aget(row.run_id) or row
        if found.status != "pending":
            return found
        await asyncio.sleep(_LOOK_AGAIN)


def ended_result(row: DelayedRun) -> dict[str, Any]:
    """What ``/join`` answers for a delayed run that ended without starting (as a failed or cancelled run's)."""
    if row.status == "cancelled":
        return {"__error__": {"error": "UserInterrupt", "message": f"run {row.run_id} was cancelled before it started"}}
    return {"__error__": {"error": "Error", "message": row.message or f"run {row.run_id} did not start"}}


class DelayedStarter:
    """Starts delayed runs on ``service`` when due (see the module's doc)."""

    def __init__(self, service: GraphService) -> None:
        self.service = service

    async def __call__(self, row: DelayedRun) -> None:
        tenant, named = TENANT.set(row.tenant or None), NAMED_RUN.set(row.run_id)
        try:
            await self._start(row)
        finally:
            NAMED_RUN.reset(named)
            TENANT.reset(tenant)

    async def _start(self, row: DelayedRun) -> None:
        body = {k: v for k, v in json.loads(row.body).items() if k != "resolved_assistant"}
        assert row.thread_id is not None
        try:
            run = parse_run_body(body, row.thread_id, background=True)
            run.request.request_id = f"delayed-{row.run_id}"
            await check_run_thread(self.service, run)
            first = None
            async for e in run_events(self.service, run.request, langgraph_api=True):  # a background call ends right after RunStarted
                first = first or e
        except Exception as exc:  # noqa: BLE001 - sorted below: refused (the run's end) or not (tried again)
            code, message = status_for(exc)
            if code not in _REFUSED and not isinstance(exc, ValueError):
                raise
            log.warning("delayed run %s could not start: %s", row.run_id, message)
            await self.service.delayed.aend(row.run_id, "error", message)
            return
        if first is not None and run.webhook is not None and first.HasField("run_started"):
            await keep_webhook(self.service, run.webhook, first.run_id)
        cancelled = await self.service.delayed.aget(row.run_id)
        await self.service.delayed.adone(row.run_id)
        if cancelled is not None and cancelled.status == "cancelled":  # cancelled while it was starting
            cancel = pb.CancelRunRequest(graph=first.run_started.graph if first else "", thread_id=row.thread_id, run_id=row.run_id)
            await self.service.thread_rpcs.CancelRun(cancel, CallContext())
