"""Runs looked after in bulk or one by one: ``POST /runs/cancel`` (the SDK's ``runs.cancel_many``),
``DELETE /threads/{id}/runs/{run_id}`` (``runs.delete``) and ``GET /runs/{run_id}/stream`` (the JavaScript
SDK's ``runs.joinStream(null, runId)``: a run found by its id alone, a stateless one's included).

* **Cancel many** takes what LangGraph's server takes: ``thread_id`` with ``run_ids`` (those runs of that
  thread), or ``status`` alone ("pending", "running" or "all": every such run of the caller's tenant,
  found through its busy threads), and ``action`` ("interrupt" or "rollback") as a query parameter.
  Each run is cancelled as ``POST /threads/{id}/runs/{run_id}/cancel`` cancels one; runs that already
  ended are left as they are. It answers 204.
* **Delete** removes an ended run: the versions it wrote (as a rollback deletes them, holding the
  thread meanwhile) and its record. A run still going is 409: cancel it first.
"""

from __future__ import annotations

from typing import Literal

import grpc
from fastapi import APIRouter, Query, Request, Response

from engine.host import ACTIVE, RunRecord
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._errors import RpcError
from server._reads import key_of
from server._tenants import TENANT
from server.http._common import Body, call
from server.http._common import service as svc
from server.http._errors import NOT_CANCELLABLE, HttpError, answered
from server.http._run_views import status_of
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
