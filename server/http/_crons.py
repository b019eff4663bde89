"""LangGraph's cron routes: create (on a thread, or stateless), update, delete, search, count.

A cron is kept in the checkpointer's database (:mod:`engine.checkpoint._crons`)
and fired by the scheduler of one replica at a time
(:mod:`server._cron_scheduler`, :mod:`server.http._cron_fire`). Its run
fields (input, config, context, metadata, interrupts, stream options,
multitask strategy, durability) are its ``payload``, checked as a run's body
is when the cron is made or changed, so a bad one is refused then (422
naming the field), not at its firing. Crons are the calling tenant's own: one
of another tenant is 404.
"""

from __future__ import annotations

import dataclasses
import functools
import uuid
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from engine.host import CronRecord, CronSearch, next_fire, parse_schedule, zone_of
from server._records import now
from server._tenants import TENANT
from server.http._common import assistant_id_of, graph_of
from server.http._common import service as svc
from server.http._cron_fire import run_body_of
from server.http._errors import HttpError, answered
from server.http._run_body import parse_run_body

__all__ = ["router"]

router = APIRouter(tags=["crons"])

#: The fields of a cron's run body (its payload), as langgraph-sdk sends them.
RUN_FIELDS = (
    "input", "config", "context", "metadata", "checkpoint_during", "interrupt_before", "interrupt_after", "webhook",
    "multitask_strategy", "stream_mode", "stream_subgraphs", "stream_resumable", "durability",
)  # fmt: skip
#: The cron's own fields.
CRON_FIELDS = ("schedule", "assistant_id", "end_time", "enabled", "timezone", "on_run_completed")
_SORT = ("cron_id", "assistant_id", "thread_id", "next_run_date", "end_time", "created_at", "updated_at")


_answered = functools.partial(answered, invalid=(ValueError,))  # a bad schedule or filter: 422


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


def cron_json(c: CronRecord) -> dict[str, Any]:
    """A cron as LangGraph's ``Cron``."""
    return {
        "cron_id": c.cron_id, "assistant_id": c.assistant_id, "thread_id": c.thread_id, "on_run_completed": c.on_run_completed,
        "end_time": _iso(c.end_time), "schedule": c.schedule, "timezone": c.timezone, "created_at": _iso(c.created_at),
        "updated_at": _iso(c.updated_at), "payload": c.payload, "user_id": c.user_id, "next_run_date": _iso(c.next_run_date),
        "metadata": c.metadata, "enabled": c.enabled,
    }  # fmt: skip


async def _body(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise HttpError(422, "body: not JSON") from None
    if not isinstance(body, dict):
        raise HttpError(422, "body: a JSON object")
    return body


def _tenant() -> str:
    return TENANT.get() or ""


def _time(body: dict[str, Any], name: str) -> datetime | None:
    value = body.get(name)
    if value is None:
        return None
    try:
        t = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        t = None
    if t is None or t.tzinfo is None:
        raise HttpError(422, f"{name}: an ISO-8601 time with its offset, got {value!r}")
    return t


def _check(body: dict[str, Any], *, stateless: bool) -> None:
    """Cron fields of ``body`` checked (422 naming the field)."""
    for key in body:
        if key not in RUN_FIELDS and key not in CRON_FIELDS:
            raise HttpError(422, f"{key}: not a field of a LangGraph cron")
    if "schedule" in body:
        parse_schedule(body["schedule"])
    if body.get("timezone") is not None:
        zone_of(body["timezone"])
    if "enabled" in body and not isinstance(body["enabled"], bool):
        raise HttpError(422, "enabled: true or false")
    done = body.get("on_run_completed")
    if done is not None and (done not in ("delete", "keep") or not stateless):
        raise HttpError(422, "on_run_completed: 'delete' or 'keep', for a stateless cron only")


async def _checked_run(request: Request, cron: CronRecord) -> None:
    """The cron's run body checked as a run's (its assistant resolved, a thread cron's thread of its graph)."""
    service = svc(request)
    run = parse_run_body(run_body_of(cron), cron.thread_id or str(uuid.uuid4()), stateless=cron.thread_id is None, background=True)
    resolved = await service.assistants.resolve(run.request)
    if cron.thread_id is not None:
        graph = await graph_of(service, cron.thread_id)
        if resolved.graph != graph:
            raise HttpError(409, f"thread {cron.thread_id!r} belongs to graph {graph!r}; assistant {cron.assistant_id!r} runs {resolved.graph!r}")


async def _create(request: Request, thread_id: str | None) -> Response:
    body = await _body(request)
    _check(body, stateless=thread_id is None)
    if "schedule" not in body:
        raise HttpError(422, "schedule: required, a cron expression (five fields)")
    if not isinstance(body.get("assistant_id"), str) or not body["assistant_id"]:
        raise HttpError(422, "assistant_id: required, an assistant's id or a graph's name")
    at = now()
    cron = CronRecord(
        cron_id=str(uuid.uuid4()), assistant_id=assistant_id_of(svc(request), body["assistant_id"]), schedule=body["schedule"], created_at=at, updated_at=at,
        next_run_date=None, thread_id=thread_id, tenant=_tenant(), timezone=body.get("timezone"), end_time=_time(body, "end_time"),
        enabled=body.get("enabled", True), on_run_completed=(body.get("on_run_completed") or "delete") if thread_id is None else None,
        payload={k: body[k] for k in RUN_FIELDS if body.get(k) is not None}, metadata=dict(body.get("metadata") or {}),
    )  # fmt: skip
    nxt = next_fire(cron.schedule, at, cron.timezone)
    cron.next_run_date = None if nxt is None or (cron.end_time is not None and nxt > cron.end_time) else nxt
    await _checked_run(request, cron)
    await svc(request).crons.acreate(cron)
    return JSONResponse(cron_json(cron))


async def create_for_thread(thread_id: str, request: Request) -> Response:
    return await _create(request, thread_id)


async def create_stateless(request: Request) -> Response:
    return await _create(request, None)


async def update(cron_id: str, request: Request) -> Response:
    """PATCH: the fields sent replace the cron's (run fields its payload's); a new schedule moves its next date."""
    body = await _body(request)
    if "assistant_id" in body:
        raise HttpError(422, "assistant_id: a cron's assistant is fixed; make a new cron")
    store = svc(request).crons
    current = await store.aget(_tenant(), cron_id)
    if current is None:
        raise HttpError(404, f"cron {cron_id!r} not found")
    _check(body, stateless=current.thread_id is None)
    changes: dict[str, Any] = {k: body[k] for k in ("schedule", "timezone", "enabled", "on_run_completed") if body.get(k) is not None}
    if "end_time" in body:
        changes["end_time"] = _time(body, "end_time")
    payload = {**current.payload, **{k: body[k] for k in RUN_FIELDS if k in body}}
    changes["payload"] = {k: v for k, v in payload.items() if v is not None}
    if body.get("metadata") is not None:
        changes["metadata"] = dict(body["metadata"])
    preview = dataclasses.replace(current, **changes)
    await _checked_run(request, preview)
    found = await store.aupdate(_tenant(), cron_id, changes, now())
    if found is None:
        raise HttpError(404, f"cron {cron_id!r} not found")
    return JSONResponse(cron_json(found))


async def delete(cron_id: str, request: Request) -> Response:
    if not await svc(request).crons.adelete(_tenant(), cron_id):
        raise HttpError(404, f"cron {cron_id!r} not found")
    return Response(status_code=204)


def _search(request: Request, body: dict[str, Any], *, paged: bool) -> CronSearch:
    allowed = {"assistant_id", "thread_id", "enabled", "metadata"} | ({"limit", "offset", "sort_by", "sort_order", "select"} if paged else set())
    for key in body:
        if key not in allowed:
            raise HttpError(422, f"{key}: not a field of a cron {'search' if paged else 'count'}")
    order = body.get("sort_order") or "desc"
    if order not in ("asc", "desc"):
        raise HttpError(422, f"sort_order: 'asc' or 'desc', got {order!r}")
    sort_by = body.get("sort_by") or "created_at"
    if sort_by not in _SORT:
        raise HttpError(422, f"sort_by: one of {', '.join(_SORT)}, got {sort_by!r}")
    limit, offset = body.get("limit", 10), body.get("offset", 0)
    if not isinstance(limit, int) or not isinstance(offset, int) or limit < 1 or offset < 0:
        raise HttpError(422, "limit and offset: whole numbers, limit at least 1, offset at least 0")
    metadata = body.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise HttpError(422, "metadata: a JSON object")
    return CronSearch(
        tenant=_tenant(), assistant_id=assistant_id_of(svc(request), body.get("assistant_id")), thread_id=body.get("thread_id"), enabled=body.get("enabled"),
        metadata=metadata, sort_by=sort_by, descending=order == "desc", limit=limit, offset=offset,
    )  # fmt: skip


async def search(request: Request) -> Response:
    body = await _body(request)
    select = body.get("select")
    if select is not None and (not isinstance(select, list) or any(s not in _FIELDS for s in select)):
        raise HttpError(422, f"select: a list of a cron's fields ({', '.join(_FIELDS)})")
    found = await svc(request).crons.asearch(_search(request, body, paged=True))
    out = [cron_json(c) for c in found]
    if select:
        out = [{k: c[k] for k in select} for c in out]
    return JSONResponse(out)


async def count(request: Request) -> Response:
    return JSONResponse(await svc(request).crons.acount(_search(request, await _body(request), paged=False)))


_FIELDS = (
    "cron_id", "assistant_id", "thread_id", "on_run_completed", "end_time", "schedule", "timezone", "created_at", "updated_at",
    "payload", "user_id", "next_run_date", "metadata", "enabled",
)  # fmt: skip


router.add_api_route("/threads/{thread_id}/runs/crons", _answered(create_for_thread), methods=["POST"])
router.add_api_route("/runs/crons", _answered(create_stateless), methods=["POST"])
router.add_api_route("/runs/crons/search", _answered(search), methods=["POST"])
router.add_api_route("/runs/crons/count", _answered(count), methods=["POST"])
router.add_api_route("/runs/crons/{cron_id}", _answered(update), methods=["PATCH"])
router.add_api_route("/runs/crons/{cron_id}", _answered(delete), methods=["DELETE"])
