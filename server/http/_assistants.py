"""Assistants: ``/assistants`` and its sub-routes, over :class:`server._assistant_rpcs.AssistantRpcs`.

The drawing, schemas and subgraphs of an assistant are its graph's: an
assistant id, or a graph's name (its default assistant, as a run may name it).
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request, Response

from engine.host import default_assistant_id
from graphwire_proto.v1 import graphwire_pb2 as pb
from server.http import _shapes as shape
from server.http._common import Body, Limit, Offset, call, dumps, service
from server.http._errors import HttpError
from server._langgraph_runtime import own_graph
from server.http._schemas import graph_schemas
from server.service import GraphService

__all__ = ["router"]

router = APIRouter(tags=["assistants"])

_SORT = {
    None: pb.ASSISTANT_SORT_BY_UNSPECIFIED, "assistant_id": pb.ASSISTANT_SORT_BY_ASSISTANT_ID, "graph_id": pb.ASSISTANT_SORT_BY_GRAPH,
    "name": pb.ASSISTANT_SORT_BY_NAME, "created_at": pb.ASSISTANT_SORT_BY_CREATED_AT, "updated_at": pb.ASSISTANT_SORT_BY_UPDATED_AT,
}  # fmt: skip
_ORDER = {None: pb.SORT_ORDER_UNSPECIFIED, "asc": pb.SORT_ORDER_ASC, "desc": pb.SORT_ORDER_DESC}
SortBy = Literal["assistant_id", "graph_id", "name", "created_at", "updated_at"]
Fields = Literal["assistant_id", "graph_id", "name", "description", "config", "context", "metadata", "version", "created_at", "updated_at"]


class CreateAssistant(Body):
    graph_id: str
    assistant_id: str | None = None
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    if_exists: Literal["raise", "do_nothing"] | None = None
    name: str | None = None
    description: str | None = None


class PatchAssistant(Body):
    graph_id: str | None = None
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    name: str | None = None
    description: str | None = None


class SearchAssistants(Body):
    metadata: dict[str, Any] | None = None
    graph_id: str | None = None
    name: str | None = None
    limit: Limit = 10
    offset: Offset = 0
    sort_by: SortBy | None = None
    sort_order: Literal["asc", "desc"] | None = None
    select: list[Fields] | None = None


class CountAssistants(Body):
    metadata: dict[str, Any] | None = None
    graph_id: str | None = None
    name: str | None = None


class Versions(Body):
    metadata: dict[str, Any] | None = None
    limit: Limit = 10
    offset: Offset = 0


class Latest(Body):
    version: int


@router.post("/assistants")
async def create_assistant(body: CreateAssistant, request: Request) -> dict[str, Any]:
    svc = service(request)
    message = pb.CreateAssistantRequest(
        graph=body.graph_id, assistant_id=body.assistant_id or "", name=body.name or "", config_json=dumps(body.config),
        context_json=dumps(body.context), metadata_json=dumps(body.metadata),
        if_exists=pb.IF_EXISTS_DO_NOTHING if body.if_exists == "do_nothing" else pb.IF_EXISTS_RAISE,
    )  # fmt: skip
    if body.description is not None:
        message.description = body.description
    return shape.assistant(await call(svc.assistants.CreateAssistant, message))


@router.get("/assistants/{assistant_id}")
async def get_assistant(assistant_id: str, request: Request) -> dict[str, Any]:
    found = await call(service(request).assistants.GetAssistant, pb.GetAssistantRequest(assistant_id=assistant_id))
    return shape.assistant(found)


@router.patch("/assistants/{assistant_id}")
async def patch_assistant(assistant_id: str, body: PatchAssistant, request: Request) -> dict[str, Any]:
    message = pb.UpdateAssistantRequest(assistant_id=assistant_id)
    if body.graph_id is not None:
        message.graph = body.graph_id
    if body.name is not None:
        message.name = body.name
    if body.description is not None:
        message.description = body.description
    for field, value in (("config_json", body.config), ("context_json", body.context), ("metadata_json", body.metadata)):
        if value is not None:
            setattr(message, field, dumps(value))
    return shape.assistant(await call(service(request).assistants.UpdateAssistant, message))


@router.delete("/assistants/{assistant_id}", status_code=204)
async def delete_assistant(assistant_id: str, request: Request, delete_threads: bool = False) -> Response:
    if delete_threads:
        raise HttpError(422, "delete_threads: graphwire keeps a thread apart from the assistant that ran it; delete the threads themselves")
    done = await call(service(request).assistants.DeleteAssistant, pb.DeleteAssistantRequest(assistant_id=assistant_id))
    if not done.deleted:
        raise HttpError(404, f"no assistant {assistant_id!r}")
    return Response(status_code=204)


@router.post("/assistants/search")
async def search_assistants(body: SearchAssistants, request: Request, response: Response) -> list[dict[str, Any]]:
    message = pb.SearchAssistantsRequest(
        graph=body.graph_id or "", name=body.name or "", metadata_json=dumps(body.metadata), sort_by=_SORT[body.sort_by],
        sort_order=_ORDER[body.sort_order], limit=body.limit, offset=body.offset,
    )  # fmt: skip
    found = await call(service(request).assistants.SearchAssistants, message)
    out = [shape.assistant(a) for a in found.assistants]
    if len(out) == body.limit:
        response.headers["X-Pagination-Next"] = str(body.offset + body.limit)
    if body.select:
        out = [{k: a[k] for k in body.select} for a in out]
    return out


@router.post("/assistants/count")
async def count_assistants(body: CountAssistants, request: Request) -> int:
    message = pb.CountAssistantsRequest(graph=body.graph_id or "", name=body.name or "", metadata_json=dumps(body.metadata))
    return int((await call(service(request).assistants.CountAssistants, message)).count)


@router.post("/assistants/{assistant_id}/versions")
async def assistant_versions(assistant_id: str, body: Versions, request: Request) -> list[dict[str, Any]]:
    message = pb.ListAssistantVersionsRequest(assistant_id=assistant_id, metadata_json=dumps(body.metadata), limit=body.limit, offset=body.offset)
    found = await call(service(request).assistants.ListAssistantVersions, message)
    return [shape.assistant_version(v) for v in found.versions]


@router.post("/assistants/{assistant_id}/latest")
async def set_latest(assistant_id: str, body: Latest, request: Request) -> dict[str, Any]:
    message = pb.SetAssistantVersionRequest(assistant_id=assistant_id, version=body.version)
    return shape.assistant(await call(service(request).assistants.SetAssistantVersion, message))


async def _graph_of(svc: GraphService, assistant_id: str) -> str:
    """The graph an assistant (or a graph's name: its default assistant) runs."""
    if assistant_id in svc.graphs:
        assistant_id = default_assistant_id(assistant_id)
    return (await call(svc.assistants.GetAssistant, pb.GetAssistantRequest(assistant_id=assistant_id))).graph


@router.get("/assistants/{assistant_id}/graph")
async def assistant_graph(assistant_id: str, request: Request, xray: int | bool = False) -> dict[str, Any]:
    if not isinstance(xray, bool) and xray <= 0:
        raise HttpError(422, "Invalid xray value")
    svc = service(request)
    name = await _graph_of(svc, assistant_id)
    try:
        return await shape.drawing(own_graph(svc.reads.graph(name).graph), xray=xray)
    except NotImplementedError:
        raise HttpError(422, "The graph does not support visualization") from None


@router.get("/assistants/{assistant_id}/schemas")
async def assistant_schemas(assistant_id: str, request: Request) -> dict[str, Any]:
    svc = service(request)
    name = await _graph_of(svc, assistant_id)
    return graph_schemas(name, svc.reads.graph(name).graph)


@router.get("/assistants/{assistant_id}/subgraphs")
async def assistant_subgraphs(assistant_id: str, request: Request, recurse: bool = False) -> dict[str, Any]:
    return await _subgraphs(request, assistant_id, None, recurse)


@router.get("/assistants/{assistant_id}/subgraphs/{namespace}")
async def assistant_subgraphs_in(assistant_id: str, namespace: str, request: Request, recurse: bool = False) -> dict[str, Any]:
    return await _subgraphs(request, assistant_id, namespace, recurse)


async def _subgraphs(request: Request, assistant_id: str, namespace: str | None, recurse: bool) -> dict[str, Any]:
    svc = service(request)
    name = await _graph_of(svc, assistant_id)
    graph: Any = own_graph(svc.reads.graph(name).graph)
    found = getattr(graph, "get_subgraphs", None)
    if found is None:
        return {}
    return {ns: graph_schemas(None, sub) for ns, sub in found(namespace=namespace, recurse=recurse)}
