"""Runs looked after in bulk or one by one: ``POST /runs/cancel`` (the SDK's ``runs.cancel_many``),
``DELETE /threads/{id}/runs/{run_id}`` (``runs.delete``), ``GET /threads/{id}/runs`` (``runs.list``) and
``GET /runs/{run_id}/stream`` (the JavaScript SDK's ``runs.joinStream(null, runId)``: a run found by its id
alone, a stateless one's included).

* **Cancel many** takes what LangGraph's server takes: ``thread_id`` with ``run_ids`` (those runs of that
  thread), or ``status`` alone ("pending", "running" or "all": every such run of the caller's tenant,
  found through its busy threads), and ``action`` ("interrupt" or "rollback") as a query parameter.
  Each run is cancelled as ``POST /threads/{id}/runs/{run_id}/cancel`` cancels one; runs that already
  ended are left as they are. It answers 204.
* **Delete** removes an ended run: the versions it wrote (as a rollback deletes them, holding the
  thread meanwhile) and its record. A run still going is 409: cancel it first.
* **List** gives a thread's runs (delayed ones not started yet too), newest first, ``select`` their
  fields; a thread the caller has none of is 404, as on LangGraph's server.
"""

from __future__ import annotations

from typing import Literal

import grpc
from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from engine.host import ACTIVE, RunRecord
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._errors import RpcError
from server._reads import key_of, thread_key
from server._tenants import TENANT
from server.http._common import Body, call, thread_of
from server.http._common import service as svc
from server.http._errors import NOT_CANCELLABLE, HttpError, answered
from server.http._delayed import delayed_json
from server.http._run_views import STATUSES, run_json, status_of
from server.http._runs import _record, cancel_run, join_stream

__all__ = ["router"]

router = APIRouter(tags=["runs"])

#: How many busy threads one page of the search for ``status`` reads.
_PAGE = 200


class CancelMany(Body):
    thread_id: str | None = None
    run_ids: list[str] | None = None
    status: Literal["pending", "running", "all"] | None = None


async def _busy_runs(request: Request, status: str) -> list[tuple[str, RunRecord]]:
    """Every active run of the caller's tenant with ``status`` ("all": any), with its thread's id."""
    service = svc(request)
    found: list[tuple[str, RunRecord]] = []
    token = ""
    while True:
        page = await call(
            service.thread_records.SearchThreads,
            pb.SearchThreadsRequest(filter=pb.ThreadFilter(statuses=[pb.THREAD_STATUS_BUSY]), limit=_PAGE, page_token=token),
        )
        for thread in page.threads:
            for record in await service.records.store.aactive(key_of(TENANT.get(), thread.graph, thread.thread_id)):
                if status == "all" or status_of(record) == status:
                    found.append((thread.thread_id, record))
        token = page.next_page_token
        if not token:
            return found


async def cancel_many(body: CancelMany, request: Request, action: str = "interrupt") -> Response:
    if action not in ("interrupt", "rollback"):
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"action: {action!r} is not one of 'interrupt', 'rollback'")
    if body.status is not None:
        if body.thread_id or body.run_ids:
            raise HttpError(422, "status: cancels every run of that status, on every thread; send it without thread_id and run_ids")
        targets = await _busy_runs(request, body.status)
    elif body.thread_id and body.run_ids:
        # Each one the caller's, before any is cancelled.
        targets = [(body.thread_id, await _record(svc(request), body.thread_id, run_id)) for run_id in body.run_ids]
    else:
        raise HttpError(422, "body: thread_id with run_ids, or status alone")
    targets = [(thread_id, record) for thread_id, record in targets if record.status in ACTIVE]
    if not targets:  # as LangGraph's server: nothing to cancel is a 404
        raise HttpError(404, "No runs found to cancel." if body.status is not None else NOT_CANCELLABLE)
    for thread_id, record in targets:
        try:
            await cancel_run(thread_id, record.run_id, request, action=action)
        except HttpError as e:
            if e.status != 404:  # it ended meanwhile: left as it is
                raise
    return Response(status_code=204)


#: the fields a run listing's ``select`` may name, as LangGraph's server takes them
RUN_FIELDS = ("run_id", "thread_id", "assistant_id", "created_at", "updated_at", "status", "metadata", "kwargs",
              "multitask_strategy", "langsmith_session_name")  # fmt: skip


async def list_runs(
    thread_id: str, request: Request, limit: int = Query(10, ge=0), offset: int = Query(0, ge=0), status: str | None = None,
    select: list[str] | None = Query(None),
) -> Response:
    """The thread's runs, newest first (in each graph it has runs in); ``select``: only those fields of each."""
    if status is not None and status not in STATUSES:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"status: {status!r} is not one of {', '.join(sorted(STATUSES))}")
    if unknown := [f for f in select or () if f not in RUN_FIELDS]:
        raise HttpError(422, f"select: {', '.join(map(repr, unknown))} not a run's field ({', '.join(RUN_FIELDS)})")
    service = svc(request)
    found: list[RunRecord] = []
    enough = offset + limit if status is None else None  # each graph's newest runs cover the page
    for graph in sorted(service.graphs):
        found += await service.records.store.alist(thread_key(graph, thread_id), limit=enough, full=True)
    found.sort(key=lambda r: (r.started_at, r.run_id), reverse=True)
    runs = [run_json(r) for r in found]
    waiting = [delayed_json(row) for row in await service.delayed.alist(TENANT.get() or "", thread_id)]
    if waiting:  # delayed runs not started yet
        runs = sorted(runs + waiting, key=lambda r: (r["created_at"], r["run_id"]), reverse=True)
    if status is not None:
        runs = [r for r in runs if r["status"] == status]
    if not found and not waiting:
        await thread_of(service, thread_id)  # as LangGraph's server: an unknown thread is a 404, not no runs
    page = runs[offset : offset + limit]
    return JSONResponse(page if not select else [{k: r.get(k) for k in select} for r in page])


async def delete_run(thread_id: str, run_id: str, request: Request) -> Response:
    service = svc(request)
    record = await _record(service, thread_id, run_id)
    if record.status in ACTIVE:
        raise HttpError(409, f"run {run_id} is {status_of(record)}: cancel it first (POST .../runs/{run_id}/cancel)")
    async with service.runs.slot(record.thread_id, thread_id, f"delete-{run_id}", enqueue=True):
        await service.streams.turns.roll_back(record)
        await service.records.store.adelete(run_id)
    return Response(status_code=204)


async def join_any_stream(
    run_id: str, request: Request, stream_mode: list[str] | None = Query(None), cancel_on_disconnect: bool = False,
    stream_subgraphs: bool = False,
) -> Response:  # fmt: skip
    """``/threads/{id}/runs/{run_id}/stream`` for the caller's run ``run_id``, whatever its thread."""
    found = await svc(request).records.store.aget(run_id)
    if found is None or found.thread_id != key_of(TENANT.get(), found.graph, found.caller_thread):
        raise RpcError(grpc.StatusCode.NOT_FOUND, f"no run {run_id!r}")
    return await join_stream(found.caller_thread, run_id, request, stream_mode, cancel_on_disconnect, stream_subgraphs)


router.add_api_route("/runs/{run_id}/stream", answered(join_any_stream), methods=["GET"])
router.add_api_route("/runs/cancel", answered(cancel_many), methods=["POST"], status_code=204)
router.add_api_route("/threads/{thread_id}/runs/{run_id}", answered(delete_run), methods=["DELETE"], status_code=204)
router.add_api_route("/threads/{thread_id}/runs", answered(list_runs), methods=["GET"])
