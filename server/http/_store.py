"""The store: ``/store/items`` (put, get, delete), ``/store/items/search`` and ``/store/namespaces``.

Over :class:`server._store_rpcs.StoreRpcs`, the calling tenant's store as
over gRPC. A namespace in a query string is its labels joined by ``.``, as
LangGraph's SDK sends it; TTLs are in minutes.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from graphwire_proto.v1 import graphwire_pb2 as pb
from server.http import _shapes as shape
from server.http._common import Body, Limit, Offset, call, dumps, service
from server.http._errors import HttpError

__all__ = ["router"]

router = APIRouter(tags=["store"])


class PutItem(Body):
    namespace: list[str]
    key: str
    value: dict[str, Any]
    index: bool | list[str] | None = None
    ttl: float | None = None


class DeleteItem(Body):
    namespace: list[str]
    key: str


class SearchItems(Body):
    namespace_prefix: list[str]
    filter: dict[str, Any] | None = None
    limit: Limit = 10
    offset: Offset = 0
    query: str | None = None
    refresh_ttl: bool | None = None


class ListNamespaces(Body):
    prefix: list[str] | None = None
    suffix: list[str] | None = None
    max_depth: int | None = None
    limit: Limit = 100
    offset: Offset = 0


@router.put("/store/items", status_code=204)
async def put_item(body: PutItem, request: Request) -> Response:
    message = pb.PutItemRequest(namespace=body.namespace, key=body.key, value_json=dumps(body.value))
    if body.index is False:
        message.no_index = True
    elif isinstance(body.index, list):
        message.index_fields.extend(body.index)
    if body.ttl is not None:
        message.ttl_minutes = body.ttl
    await call(service(request).store_rpcs.PutItem, message)
    return Response(status_code=204)


@router.get("/store/items")
async def get_item(request: Request, namespace: str, key: str, refresh_ttl: bool | None = None) -> dict[str, Any] | None:
    """The item, or ``null`` when there is none (as LangGraph's server answers: the SDK's ``get_item`` returns None)."""
    message = pb.GetItemRequest(namespace=namespace.split(".") if namespace else [], key=key)
    if refresh_ttl is not None:
        message.refresh_ttl = refresh_ttl
    try:
        return shape.item(await call(service(request).store_rpcs.GetItem, message))
    except HttpError as e:
        if e.status != 404:
            raise
        return None


@router.delete("/store/items", status_code=204)
async def delete_item(body: DeleteItem, request: Request) -> Response:
    await call(service(request).store_rpcs.DeleteItem, pb.DeleteItemRequest(namespace=body.namespace, key=body.key))
    return Response(status_code=204)


@router.post("/store/items/search")
async def search_items(body: SearchItems, request: Request) -> dict[str, Any]:
    message = pb.SearchItemsRequest(
        namespace_prefix=body.namespace_prefix, filter_json=dumps(body.filter), limit=body.limit, offset=body.offset, query=body.query or "",
    )  # fmt: skip
    if body.refresh_ttl is not None:
        message.refresh_ttl = body.refresh_ttl
    found = await call(service(request).store_rpcs.SearchItems, message)
    return {"items": [shape.item(i, searched=True) for i in found.items]}


@router.post("/store/namespaces")
async def list_namespaces(body: ListNamespaces, request: Request) -> dict[str, Any]:
    message = pb.ListNamespacesRequest(prefix=body.prefix or [], suffix=body.suffix or [], limit=body.limit, offset=body.offset)
    if body.max_depth is not None:
        message.max_depth = body.max_depth
    found = await call(service(request).store_rpcs.ListNamespaces, message)
    return {"namespaces": [list(ns.labels) for ns in found.namespaces]}
