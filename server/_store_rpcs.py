"""The store RPCs: PutItem, GetItem, SearchItems, DeleteItem, ListNamespaces.

Each handler checks its request with the store's own rules first
(INVALID_ARGUMENT naming the field), then makes one call on the server's
:class:`~server._store.TenantStore`, which scopes it to the calling tenant
after those checks: the same object, and so the same scoping, as the
nodes of that tenant's runs use. Semantic search asked of a store without
an index is FAILED_PRECONDITION rather than a query silently ignored (a
node's ``search(query=...)`` there is ignored, as in LangGraph). Failures of
the store itself go through the status table (:mod:`server._errors`): the
database down is UNAVAILABLE, an item that does not decode DATA_LOSS.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable
from typing import Any, Literal, TypeVar, cast

import grpc

from engine.errors import InvalidNamespaceError, StoreError
from engine.store import MAX_TTL_MINUTES, check_ops
from engine.store.base import (
    NOT_PROVIDED,
    BaseStore,
    GetOp,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    SearchOp,
    validate_op_namespace,
)
from graphwire_proto.v1 import graphwire_pb2 as pb
from server import _convert as conv
from server._calls import page
from server._errors import RpcError
from server._json import decode_json
from server._requests import MAX_ID, bad

__all__ = ["MAX_LABELS", "MAX_PAGE", "StoreRpcs"]

log = logging.getLogger("graphwire.server")
T = TypeVar("T")

#: The most labels a namespace may have, and the most items or namespaces one call returns.
MAX_LABELS = 64
MAX_PAGE = 1000


def _labels(labels: Any, field: str) -> tuple[str, ...]:
    out = tuple(labels)
    if len(out) > MAX_LABELS:
        raise bad(field, f"at most {MAX_LABELS} labels")
    for label in out:
        if len(label) > MAX_ID:
            raise bad(field, f"a label is at most {MAX_ID} characters")
    return out


def _key(key: str) -> str:
    if not key:
        raise bad("key", "required")
    if len(key) > MAX_ID:
        raise bad("key", f"at most {MAX_ID} characters")
    if "\x00" in key:
        raise bad("key", "must not contain NUL")
    return key


def _checked(op: Op, field: str) -> Op:
    """``op`` when its labels pass the store's rules; else INVALID_ARGUMENT naming ``field``."""
    try:
        validate_op_namespace(op)
    except InvalidNamespaceError as exc:
        raise bad(field, str(exc)) from None
    return op


def _refresh(request: Any) -> bool | None:
    """The request's ``refresh_ttl``; None: the store's default."""
    return bool(request.refresh_ttl) if request.HasField("refresh_ttl") else None


def _page(request: Any, default: int) -> tuple[int, int]:
    limit = request.limit if request.HasField("limit") else default
    if limit > MAX_PAGE:
        raise bad("limit", f"at most {MAX_PAGE}")
    return limit, request.offset


class StoreRpcs:
    """The store RPCs of :class:`server.service.GraphService`.

    Args:
        store: the server's store, scoped to the calling tenant (its :class:`~server._store.TenantStore`).
        max_response_bytes: the largest response sent (a page of items is cut to it).
    """

    def __init__(self, store: BaseStore, *, max_response_bytes: int) -> None:
        self.store = store
        self.max_response_bytes = max_response_bytes

    def _needs_index(self, field: str, what: str) -> None:
        if getattr(self.store, "index_config", None) is None:
            raise RpcError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"{field}: {what} needs a store index, and this server's store has none (configure [store_index])",
            )

    async def _store_call(self, call: Awaitable[T]) -> T:
        """The store's answer (to a request checked already); its own failures keep their class for the status table."""
        try:
            return await call
        except (StoreError, RpcError):
            raise
        except Exception as exc:  # an embedding function that failed, say: not the caller's mistake
            log.exception("the store failed")
            raise RpcError(grpc.StatusCode.INTERNAL, f"the store failed ({type(exc).__name__}); see the server log") from exc

    async def PutItem(self, request: pb.PutItemRequest, context: grpc.aio.ServicerContext) -> pb.PutItemResponse:
        namespace = _labels(request.namespace, "namespace")
        key = _key(request.key)
        value = decode_json(request.value_json, "value_json")
        if not isinstance(value, dict):
            raise bad("value_json", "required: a JSON object")
        fields = list(request.index_fields)
        if fields and request.no_index:
            raise bad("index_fields", "set index_fields or no_index, not both")
        if fields:
            self._needs_index("index_fields", "embedding chosen fields")
        index: Any = False if request.no_index else (fields or None)
        ttl: Any = NOT_PROVIDED  # the store's default
        if request.HasField("ttl_minutes"):
            minutes = request.ttl_minutes
            if not math.isfinite(minutes) or not 0 <= minutes <= MAX_TTL_MINUTES:
                raise bad(
                    "ttl_minutes",
                    f"a number of minutes >= 0 and at most {MAX_TTL_MINUTES:,.0f} (about 1,900 years; 0: never expires), "
                    f"got {minutes!r}",
                )
            ttl = minutes or None
        _checked(PutOp(namespace, key, value), "namespace")
        await self._store_call(self.store.aput(namespace, key, value, index, ttl=ttl))
        return pb.PutItemResponse()

    async def GetItem(self, request: pb.GetItemRequest, context: grpc.aio.ServicerContext) -> pb.Item:
        namespace = _labels(request.namespace, "namespace")
        key = _key(request.key)
        _checked(GetOp(namespace, key), "namespace")
        found = await self._store_call(self.store.aget(namespace, key, refresh_ttl=_refresh(request)))
        if found is None:
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"no item {key!r} in namespace {list(namespace)}")
        return conv.item(found)

    async def SearchItems(self, request: pb.SearchItemsRequest, context: grpc.aio.ServicerContext) -> pb.SearchItemsResponse:
        prefix = _labels(request.namespace_prefix, "namespace_prefix")
        filter = decode_json(request.filter_json, "filter_json")
        if filter is not None and not isinstance(filter, dict):
            raise bad("filter_json", "must be a JSON object")
        limit, offset = _page(request, 10)
        if request.query:
            self._needs_index("query", "semantic search")
        query = request.query or None
        _checked(SearchOp(prefix), "namespace_prefix")
        try:
            check_ops([SearchOp(prefix, filter, limit, offset, query)])
        except (ValueError, TypeError) as exc:  # labels, limit and offset are checked: what is left is the filter
            raise bad("filter_json", str(exc)) from None
        found = await self._store_call(
            self.store.asearch(
                prefix, query=query, filter=filter, limit=limit, offset=offset, refresh_ttl=_refresh(request)
            )
        )
        most = self.max_response_bytes
        items = page(
            (conv.item(i) for i in found),
            most,
            over=lambda n: (
                f"the {n + 1} first matching items take more than {most} bytes; "
                f"ask for fewer with limit (the first {n} fit) and page with offset"
            ),
        )
        return pb.SearchItemsResponse(items=items)

    async def DeleteItem(self, request: pb.DeleteItemRequest, context: grpc.aio.ServicerContext) -> pb.DeleteItemResponse:
        namespace = _labels(request.namespace, "namespace")
        key = _key(request.key)
        # One batch: its read sees the item as it was before the delete, atomically.
        ops: list[Op] = [GetOp(namespace, key, refresh_ttl=False), PutOp(namespace, key, None)]
        _checked(ops[0], "namespace")
        found, _ = await self._store_call(self.store.abatch(ops))
        return pb.DeleteItemResponse(deleted=found is not None)

    async def ListNamespaces(
        self, request: pb.ListNamespacesRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListNamespacesResponse:
        conditions = []
        fields: tuple[Literal["prefix"], Literal["suffix"]] = ("prefix", "suffix")
        for field in fields:
            path = _labels(getattr(request, field), field)
            if path:
                condition = MatchCondition(field, path)
                _checked(ListNamespacesOp(match_conditions=(condition,)), field)
                conditions.append(condition)
        limit, offset = _page(request, 100)
        max_depth = request.max_depth if request.HasField("max_depth") else None
        op = ListNamespacesOp(match_conditions=tuple(conditions), max_depth=max_depth, limit=limit, offset=offset)
        (found,) = await self._store_call(self.store.abatch([op]))
        namespaces = cast(list[tuple[str, ...]], found)  # a ListNamespacesOp's result
        return pb.ListNamespacesResponse(namespaces=[pb.Namespace(labels=list(ns)) for ns in namespaces])
