"""Threads: ``/threads`` (create, search, count, prune) and ``/threads/{id}`` (get, patch, delete, copy).

Over :class:`server._thread_record_rpcs.ThreadRecordRpcs` and ``DeleteThread``.
A thread's graph is fixed at its creation and found by its id
(:mod:`server.http._common`). Thread TTLs are in minutes, as LangGraph's.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from fastapi import APIRouter, Request, Response

from engine.host import contains
from graphwire_proto.v1 import graphwire_pb2 as pb
from server.http import _shapes as shape
from server.http._common import Body, Limit, Offset, bind, call, dumps, graph_for_new, graph_of, metadata_of, movable, service, thread_of
from server.http._errors import HttpError

__all__ = ["router"]

router = APIRouter(tags=["threads"])

Status = Literal["idle", "busy", "interrupted", "error"]
_STATUS = {"idle": pb.THREAD_STATUS_IDLE, "busy": pb.THREAD_STATUS_BUSY, "interrupted": pb.THREAD_STATUS_INTERRUPTED, "error": pb.THREAD_STATUS_ERROR}
_SORT = {None: pb.THREAD_SORT_BY_UNSPECIFIED, "created_at": pb.THREAD_SORT_BY_CREATED_AT, "updated_at": pb.THREAD_SORT_BY_UPDATED_AT}
Fields = Literal["thread_id", "created_at", "updated_at", "metadata", "status", "values", "interrupts", "ttl"]
#: The most threads one search reads (its offset and limit together).
MAX_READ = 1000
#: Threads read a page while a search filters by values (each one's newest values are read).
_VALUES_PAGE = 100


class PruneThreads(Body):
    thread_ids: list[str] = []
    strategy: Literal["delete", "keep_latest"] = "delete"


class Ttl(Body):
    ttl: float
    strategy: Literal["delete", "keep_latest"] = "delete"


class CreateThread(Body):
    thread_id: str | None = None
    metadata: dict[str, Any] | None = None
    if_exists: Literal["raise", "do_nothing"] | None = None
    ttl: Ttl | None = None


class PatchThread(Body):
    metadata: dict[str, Any] | None = None
    ttl: Ttl | None = None


class CountThreads(Body):
    metadata: dict[str, Any] | None = None
    #: the newest values contain these (as PostgreSQL's jsonb ``@>``): each matching thread's state is read
    values: dict[str, Any] | None = None
    status: Status | None = None


class SearchThreads(CountThreads):
    ids: list[str] | None = None
    limit: Limit = 10
    offset: Offset = 0
    sort_by: Literal["created_at", "updated_at"] | None = None
    sort_order: Literal["asc", "desc"] | None = None
    select: list[Fields] | None = None


def _ttl(ttl: Ttl) -> pb.ThreadTtl:
    if ttl.ttl < 0:
        raise HttpError(422, "ttl.ttl: minutes, at least 0 (0: never expires)")
    strategy = pb.TTL_STRATEGY_KEEP_LATEST if ttl.strategy == "keep_latest" else pb.TTL_STRATEGY_DELETE
    return pb.ThreadTtl(seconds=round(ttl.ttl * 60), strategy=strategy)


def _filter(body: CountThreads, ids: list[str] | None = None) -> pb.ThreadFilter:
    return pb.ThreadFilter(
        metadata_json=dumps(body.metadata or None), statuses=[_STATUS[body.status]] if body.status else [], thread_ids=ids or [],
    )  # fmt: skip


@router.post("/threads")
async def create_thread(body: CreateThread, request: Request) -> dict[str, Any]:
    svc = service(request)
    if body.thread_id:  # an id is one thread over HTTP, whatever graph it is in
        found = await call(svc.thread_records.SearchThreads, pb.SearchThreadsRequest(filter=pb.ThreadFilter(thread_ids=[body.thread_id]), limit=1))
        if found.threads and body.if_exists == "do_nothing":
            return await _get(request, body.thread_id)
        if found.threads:
            raise HttpError(409, f"thread {body.thread_id!r} already exists (if_exists=\"do_nothing\" returns it)")
    graph, named = graph_for_new(svc, body.metadata)
    # As LangGraph's server records a thread's graph; one not named yet gets it from its first run.
    metadata = {**(body.metadata or {}), **({"graph_id": graph} if named else {shape.UNBOUND: True})}
    message = pb.CreateThreadRequest(
        graph=graph, thread_id=body.thread_id or "", metadata_json=dumps(metadata),
        if_exists=pb.IF_EXISTS_DO_NOTHING if body.if_exists == "do_nothing" else pb.IF_EXISTS_RAISE,
    )  # fmt: skip
    if body.ttl is not None:
        message.ttl.CopyFrom(_ttl(body.ttl))
    return shape.thread(await call(svc.thread_records.CreateThread, message))


async def _get(request: Request, thread_id: str) -> dict[str, Any]:
    svc = service(request)
    graph = await graph_of(svc, thread_id)
    found = await call(svc.thread_records.GetThread, pb.GetThreadRequest(graph=graph, thread_id=thread_id, include_values=True))
    return shape.thread(found)


@router.get("/threads/{thread_id}")
async def get_thread(thread_id: str, request: Request) -> dict[str, Any]:
    return await _get(request, thread_id)


@router.patch("/threads/{thread_id}")
async def patch_thread(thread_id: str, body: PatchThread, request: Request) -> Any:
    svc = service(request)
    thread = await thread_of(svc, thread_id)
    graph = thread.graph
    metadata = dict(body.metadata or {})
    named = metadata.get("graph_id", graph)
    if named != graph and isinstance(named, str) and named in svc.graphs:
        kept = metadata_of(thread)
        if await movable(svc, thread, kept):  # made without a graph: named now, as on LangGraph's server
            await bind(svc, thread, named, kept)
            graph = named
    if metadata.get("graph_id", graph) != graph:
        raise HttpError(422, f"metadata.graph_id: thread {thread_id!r} belongs to graph {graph!r}, which does not change")
    message = pb.UpdateThreadRequest(graph=graph, thread_id=thread_id, metadata_json=dumps(metadata or None))
    if body.ttl is not None:
        message.ttl.CopyFrom(_ttl(body.ttl))
    done = await call(svc.thread_records.UpdateThread, message)
    if request.headers.get("prefer") == "return=minimal":
        return Response(status_code=204)
    # The thread as LangGraph's server answers a patch: with its values (GetThread's; UpdateThread reads none).
    found = await call(svc.thread_records.GetThread, pb.GetThreadRequest(graph=done.graph, thread_id=thread_id, include_values=True))
    return shape.thread(found)


@router.delete("/threads/{thread_id}", status_code=204)
async def delete_thread(thread_id: str, request: Request) -> Response:
    svc = service(request)
    graph = await graph_of(svc, thread_id)
    await call(svc.thread_rpcs.DeleteThread, pb.DeleteThreadRequest(graph=graph, thread_id=thread_id))
    return Response(status_code=204)


async def _with_values(svc: Any, message: pb.SearchThreadsRequest, values: dict[str, Any], wanted: int | None) -> list[pb.ThreadInfo]:
    """The threads ``message`` finds whose newest values contain ``values``, in its order, the first
    ``wanted`` (None: all): graphwire keeps no thread's values in its record, so each candidate's are
    read, page by page, until enough match."""
    out: list[pb.ThreadInfo] = []
    message.include_values, message.limit = True, _VALUES_PAGE
    while wanted is None or len(out) < wanted:
        page = await call(svc.thread_records.SearchThreads, message)
        out += [t for t in page.threads if t.values_json and contains(json.loads(t.values_json), values)]
        if not page.next_page_token:
            break
        message.page_token = page.next_page_token
    return out if wanted is None else out[:wanted]


@router.post("/threads/search")
async def search_threads(body: SearchThreads, request: Request) -> list[dict[str, Any]]:
    if body.limit + body.offset > MAX_READ:
        raise HttpError(422, f"limit: with offset, at most {MAX_READ} (graphwire pages threads by keyset over gRPC)")
    message = pb.SearchThreadsRequest(
        filter=_filter(body, body.ids), sort_by=_SORT[body.sort_by],
        sort_order=pb.SORT_ORDER_ASC if body.sort_order == "asc" else pb.SORT_ORDER_DESC, limit=body.limit + body.offset,
        include_values=not body.select or "values" in body.select,
    )  # fmt: skip
    svc = service(request)
    if body.values is not None:
        threads = await _with_values(svc, message, body.values, body.limit + body.offset)
    else:
        threads = list((await call(svc.thread_records.SearchThreads, message)).threads)
    out = [shape.thread(t, values_read=message.include_values) for t in threads[body.offset :]]
    if body.select:
        out = [{k: t.get(k) for k in body.select} for t in out]
    return out


@router.post("/threads/count")
async def count_threads(body: CountThreads, request: Request) -> int:
    svc = service(request)
    if body.values is not None:
        return len(await _with_values(svc, pb.SearchThreadsRequest(filter=_filter(body)), body.values, None))
    found = await call(svc.thread_records.CountThreads, pb.CountThreadsRequest(filter=_filter(body)))
    return int(found.count)


@router.post("/threads/{thread_id}/copy")
async def copy_thread(thread_id: str, request: Request) -> dict[str, Any]:
    svc = service(request)
    graph = await graph_of(svc, thread_id)
    made = await call(svc.thread_records.CopyThread, pb.CopyThreadRequest(graph=graph, thread_id=thread_id))
    return shape.thread(made)


@router.post("/threads/prune")
async def prune_threads(body: PruneThreads, request: Request) -> dict[str, int]:
    """Each thread deleted (``delete``) or cut to its newest version (``keep_latest``, with what that version
    still reads), as DeleteThread and PruneThread do it; ``pruned_count``: how many were. An id that names
    no thread of the caller's is passed over, as on LangGraph's server."""
    svc = service(request)
    pruned = 0
    for thread_id in body.thread_ids:
        try:
            graph = await graph_of(svc, thread_id)
        except HttpError as e:
            if e.status != 404:
                raise
            continue
        if body.strategy == "delete":
            await call(svc.thread_rpcs.DeleteThread, pb.DeleteThreadRequest(graph=graph, thread_id=thread_id))
        else:
            try:
                await call(svc.thread_records.PruneThread, pb.PruneThreadRequest(graph=graph, thread_id=thread_id, keep_last=1))
            except HttpError as e:
                if e.status != 404:
                    raise
                continue  # a thread with no version yet: nothing to cut
        pruned += 1
    return {"pruned_count": pruned}
