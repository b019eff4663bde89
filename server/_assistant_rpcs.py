"""The assistant RPCs, and a run call that names an assistant instead of a graph.

An assistant (:mod:`engine.checkpoint._assistants`) is a named, versioned
configuration of a registered graph. Each handler checks its request
(INVALID_ARGUMENT naming the field), then makes one call on the checkpointer's
:class:`~engine.host.AssistantStore`, scoped to the calling tenant: a tenant's
own assistants are its alone, and every tenant reads the shared ones (each
graph's default assistant, made at start by :meth:`AssistantRpcs.ensure_defaults`)
but changes none.

:meth:`AssistantRpcs.resolve` turns an Invoke, Resume or Fork that names an
assistant into the same request naming its graph, the assistant's config and
context its defaults (the call's own values win, key by key) and its id in
the run's metadata. The rewritten request is the one recorded, retried and
continued, so a run goes on with the assistant it started with. The records
it reads are kept between runs where every change to them is heard
(:mod:`server._assistant_cache`); a change made here forgets them at once.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from collections.abc import Awaitable, Mapping
from typing import Any, Callable, TypeVar

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from engine.host import (
    MAX_METADATA_BYTES, AssistantConflict, AssistantRecord, AssistantSearch, AssistantStore, default_assistant_id,
)  # fmt: skip
from graphwire_proto.v1 import graphwire_pb2 as pb
from server import _requests as req
from server._assistant_cache import AssistantCache
from server._calls import page
from server._errors import RpcError
from server._json import decode_json
from server._tenants import TENANT

__all__ = ["AssistantRpcs"]

R = TypeVar("R")
W = TypeVar("W")

#: The most assistants (or versions) one call returns, and how many unless it says.
MAX_PAGE = 1000
DEFAULT_PAGE = 10
_SORT = {
    pb.ASSISTANT_SORT_BY_UNSPECIFIED: "created_at", pb.ASSISTANT_SORT_BY_ASSISTANT_ID: "assistant_id", pb.ASSISTANT_SORT_BY_GRAPH: "graph",
    pb.ASSISTANT_SORT_BY_NAME: "name", pb.ASSISTANT_SORT_BY_CREATED_AT: "created_at", pb.ASSISTANT_SORT_BY_UPDATED_AT: "updated_at",
}  # fmt: skip
#: The keys of an assistant's config, as LangGraph's: what graphwire applies to a run.
CONFIG_KEYS = ("configurable", "recursion_limit", "tags")


def _tenant() -> str:
    return TENANT.get() or ""


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _object(text: str, field: str) -> dict[str, Any]:
    """A JSON object field (empty: ``{}``), at most run metadata's size."""
    size = len(text.encode())
    if size > MAX_METADATA_BYTES:
        raise RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"{field}: {size} bytes; at most {MAX_METADATA_BYTES}")
    found = decode_json(text, field, default={})
    if not isinstance(found, dict):
        raise req.bad(field, f"must be a JSON object, not {type(found).__name__}")
    return found


def check_config(text: str, field: str = "config_json") -> dict[str, Any]:
    """An assistant's config: only the keys graphwire applies to a run (:data:`CONFIG_KEYS`), each of its kind."""
    found = _object(text, field)
    for key in found:
        if key not in CONFIG_KEYS:
            raise req.bad(f"{field}.{key}", f"graphwire applies only {' and '.join(CONFIG_KEYS)} of an assistant's config")
    if "configurable" in found:
        req.configurable(json.dumps(found["configurable"]), f"{field}.configurable")
        if not isinstance(found["configurable"], dict):
            raise req.bad(f"{field}.configurable", "must be a JSON object")
    limit = found.get("recursion_limit")
    if "recursion_limit" in found and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise req.bad(f"{field}.recursion_limit", "must be an integer of at least 1")
    tags = found.get("tags")
    if "tags" in found and (not isinstance(tags, list) or not all(isinstance(t, str) for t in tags)):
        raise req.bad(f"{field}.tags", "must be a list of strings")
    return found


def _ts(t: datetime) -> Timestamp:
    out = Timestamp()
    out.FromDatetime(t)
    return out


def to_pb(r: AssistantRecord) -> pb.Assistant:
    return pb.Assistant(
        assistant_id=r.assistant_id, graph=r.graph, name=r.name, description=r.description, config_json=json.dumps(r.config),
        context_json=json.dumps(r.context), metadata_json=json.dumps(r.metadata), version=r.version,
        created_at=_ts(r.created_at), updated_at=_ts(r.updated_at),
    )  # fmt: skip


def _limit(request: Any) -> int:
    if not request.HasField("limit"):
        return DEFAULT_PAGE
    if request.limit > MAX_PAGE:
        raise req.bad("limit", f"at most {MAX_PAGE}")
    return int(request.limit)


class AssistantRpcs:
    """The assistant RPCs over ``store``, for the graphs ``graph_names`` returns (an unknown one is NOT_FOUND)."""

    def __init__(
        self, store: AssistantStore, graph_names: Callable[[], list[str]], *, max_response_bytes: int, cache: AssistantCache | None = None
    ) -> None:
        self.store = store
        self.graph_names = graph_names
        self.max_response_bytes = max_response_bytes
        self.cache = cache  # the records runs read (None: each run reads its assistant)

    async def _write(self, change: Awaitable[W]) -> W:
        """A change's store call; then (whether or not it succeeded: it may have) runs read their assistants again."""
        try:
            return await change
        finally:
            if self.cache is not None:
                self.cache.forget()

    async def ensure_defaults(self, named: Mapping[str, tuple[str, str | None]] | None = None) -> None:
        """Each graph's default assistant (shared by every tenant), made once.

        ``named``: a graph's assistant name and description (default: the graph's served name, none), as
        LangGraph's server gives them (the compiled graph's own name, the configuration's description);
        an existing default assistant whose name or description differs from these gets them (a new
        version), as there at each start. Its config, context and metadata are kept as they are.
        """
        now = _now()
        for graph in self.graph_names():
            name, description = (named or {}).get(graph, (graph, None))
            record = AssistantRecord(
                default_assistant_id(graph), graph, now, now, name=name, description=description, metadata={"created_by": "system"}
            )
            found = await self._write(self.store.acreate(record, if_exists="do_nothing"))
            if (found.name, found.description) != (name, description):
                await self._write(self.store.aupdate(found.tenant, found.assistant_id, {"name": name, "description": description}, now))

    def _graph(self, name: str, field: str = "graph") -> str:
        req.ident(name, field)
        known = self.graph_names()
        if name not in known:
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"{field}: unknown graph {name!r} (this server runs: {', '.join(sorted(known)) or 'none'})")
        return name

    async def _get(self, assistant_id: str) -> AssistantRecord:
        req.ident(assistant_id, "assistant_id")
        found = await self.store.aget(_tenant(), assistant_id)
        if found is None:
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"no assistant {assistant_id!r}")
        return found

    def _mine(self, found: AssistantRecord) -> None:
        if found.tenant != _tenant():
            raise RpcError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"assistant {found.assistant_id!r} is shared by every tenant (a graph's default assistant): "
                "create one of your own to change it",
            )

    async def CreateAssistant(self, request: pb.CreateAssistantRequest, context: Any) -> pb.Assistant:
        graph = self._graph(request.graph)
        assistant_id = req.ident(request.assistant_id, "assistant_id") if request.assistant_id else str(uuid.uuid4())
        if assistant_id in self.graph_names():
            raise req.bad("assistant_id", f"{assistant_id!r} is a graph's name, which names that graph's default assistant in a "
                          "run: choose another id (or none: a UUID is made)")  # fmt: skip
        now = _now()
        record = AssistantRecord(
            assistant_id, graph, now, now, tenant=_tenant(), name=request.name or "Untitled",
            description=request.description if request.HasField("description") else None, config=check_config(request.config_json),
            context=_object(request.context_json, "context_json"), metadata=_object(request.metadata_json, "metadata_json"),
        )  # fmt: skip
        if request.if_exists not in (pb.IF_EXISTS_UNSPECIFIED, pb.IF_EXISTS_RAISE, pb.IF_EXISTS_DO_NOTHING):
            raise req.bad("if_exists", f"unknown value {request.if_exists}")
        do_nothing = request.if_exists == pb.IF_EXISTS_DO_NOTHING
        shared = await self.store.aget("", assistant_id) if record.tenant else None
        try:
            if shared is not None:  # a tenant's id may not hide a shared one (a graph's default assistant)
                raise AssistantConflict(assistant_id)
            made = await self._write(self.store.acreate(record, if_exists="do_nothing" if do_nothing else "raise"))
        except AssistantConflict:
            if shared is not None and do_nothing:
                return to_pb(shared)
            raise RpcError(grpc.StatusCode.ALREADY_EXISTS, f"assistant {assistant_id!r} exists (if_exists = IF_EXISTS_DO_NOTHING returns it)") from None
        return to_pb(made)

    async def GetAssistant(self, request: pb.GetAssistantRequest, context: Any) -> pb.Assistant:
        return to_pb(await self._get(request.assistant_id))

    async def UpdateAssistant(self, request: pb.UpdateAssistantRequest, context: Any) -> pb.Assistant:
        changes: dict[str, Any] = {}
        if request.HasField("graph"):
            changes["graph"] = self._graph(request.graph)
        if request.HasField("name"):
            changes["name"] = request.name or "Untitled"
        if request.HasField("description"):
            changes["description"] = request.description
        if request.HasField("config_json"):
            changes["config"] = check_config(request.config_json)
        if request.HasField("context_json"):
            changes["context"] = _object(request.context_json, "context_json")
        if request.HasField("metadata_json"):
            changes["metadata"] = _object(request.metadata_json, "metadata_json")
        self._mine(await self._get(request.assistant_id))
        if not changes:
            raise req.bad("UpdateAssistantRequest", "sets nothing to change (graph, name, description, config_json, context_json or metadata_json)")
        updated = await self._write(self.store.aupdate(_tenant(), request.assistant_id, changes, _now()))
        if updated is None:  # deleted since it was read
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"no assistant {request.assistant_id!r}")
        return to_pb(updated)

    async def SetAssistantVersion(self, request: pb.SetAssistantVersionRequest, context: Any) -> pb.Assistant:
        if request.version < 1:
            raise req.bad("version", "required (1 or more)")
        self._mine(await self._get(request.assistant_id))
        try:
            chosen = await self._write(self.store.aset_version(_tenant(), request.assistant_id, request.version, _now()))
        except KeyError:
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"assistant {request.assistant_id!r} has no version {request.version}") from None
        if chosen is None:
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"no assistant {request.assistant_id!r}")
        return to_pb(chosen)

    async def ListAssistantVersions(self, request: pb.ListAssistantVersionsRequest, context: Any) -> pb.ListAssistantVersionsResponse:
        await self._get(request.assistant_id)
        metadata = _object(request.metadata_json, "metadata_json")
        found = await self.store.aversions(_tenant(), request.assistant_id, metadata=metadata, limit=_limit(request), offset=request.offset)
        return pb.ListAssistantVersionsResponse(versions=self._page([to_pb(r) for r in found]))

    def _search(self, request: pb.SearchAssistantsRequest | pb.CountAssistantsRequest) -> AssistantSearch:
        if not isinstance(request, pb.SearchAssistantsRequest):
            return AssistantSearch(tenant=_tenant(), graph=request.graph or None, name=request.name or None,
                                   metadata=_object(request.metadata_json, "metadata_json") or None)  # fmt: skip
        if request.sort_by not in _SORT:
            raise req.bad("sort_by", f"unknown value {request.sort_by}")
        if request.sort_order not in (pb.SORT_ORDER_UNSPECIFIED, pb.SORT_ORDER_ASC, pb.SORT_ORDER_DESC):
            raise req.bad("sort_order", f"unknown value {request.sort_order}")
        return AssistantSearch(
            tenant=_tenant(), graph=request.graph or None, name=request.name or None, metadata=_object(request.metadata_json, "metadata_json") or None,
            sort_by=_SORT[request.sort_by], descending=request.sort_order != pb.SORT_ORDER_ASC, limit=_limit(request), offset=request.offset,
        )  # fmt: skip

    async def SearchAssistants(self, request: pb.SearchAssistantsRequest, context: Any) -> pb.SearchAssistantsResponse:
        found = await self.store.asearch(self._search(request))
        return pb.SearchAssistantsResponse(assistants=self._page([to_pb(r) for r in found]))

    async def CountAssistants(self, request: pb.CountAssistantsRequest, context: Any) -> pb.CountAssistantsResponse:
        return pb.CountAssistantsResponse(count=await self.store.acount(self._search(request)))

    async def DeleteAssistant(self, request: pb.DeleteAssistantRequest, context: Any) -> pb.DeleteAssistantResponse:
        req.ident(request.assistant_id, "assistant_id")
        found = await self.store.aget(_tenant(), request.assistant_id)
        if found is not None:
            self._mine(found)
        return pb.DeleteAssistantResponse(deleted=await self._write(self.store.adelete(_tenant(), request.assistant_id)))

    def _page(self, items: list[pb.Assistant]) -> list[pb.Assistant]:
        return page(items, self.max_response_bytes, over=lambda n: f"the response is over the size limit after {n} assistants: ask for fewer (limit)")

    # -- runs that name an assistant ------------------------------------------------------------
    async def _read(self, tenant: str, assistant_id: str) -> AssistantRecord | None:
        """``store.aget``, or the record this process read lately while every change is heard (see the cache)."""
        cache = self.cache
        if cache is None:
            return await self.store.aget(tenant, assistant_id)
        found = cache.get(tenant, assistant_id)
        if found is None:
            epoch = cache.epoch
            found = await self.store.aget(tenant, assistant_id)
            if found is not None:
                cache.keep(tenant, assistant_id, found, epoch)
        return found

    async def resolve(self, request: R) -> R:
        """``request`` (Invoke, Resume or Fork) as it runs: naming the assistant's graph, with its defaults."""
        assistant_id = getattr(request, "assistant_id", "")
        if not assistant_id:
            return request
        req.ident(assistant_id, "assistant_id")
        if assistant_id in self.graph_names():  # a graph's name names its default assistant (no assistant has it as its id)
            assistant_id = default_assistant_id(assistant_id)
        found = await self._read(_tenant(), assistant_id)
        if found is None:
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"no assistant {assistant_id!r}")
        graph = request.graph  # type: ignore[attr-defined]
        if graph and graph != found.graph:
            raise req.bad("graph", f"assistant {assistant_id!r} runs graph {found.graph!r}, not {graph!r}: name one of them")
        out = type(request)()
        out.CopyFrom(request)  # type: ignore[attr-defined]
        out.graph = found.graph  # type: ignore[attr-defined]
        rc: pb.RunConfig = out.config  # type: ignore[attr-defined]
        mine = req.configurable(rc.configurable_json, "config.configurable_json") or {}
        defaults = found.config.get("configurable") or {}
        if defaults:
            rc.configurable_json = json.dumps({**defaults, **mine})
        if found.context:
            given = decode_json(rc.context_json, "config.context_json")
            if given is None or isinstance(given, dict):
                rc.context_json = json.dumps({**found.context, **(given or {})})
        if "recursion_limit" in found.config and not rc.HasField("recursion_limit"):
            rc.recursion_limit = found.config["recursion_limit"]
        if found.config.get("tags") and not rc.tags:  # as LangGraph's server: the run's own tags, if any, replace them
            rc.tags.extend(found.config["tags"])
        meta = decode_json(rc.metadata_json, "config.metadata_json", default={})
        if isinstance(meta, dict):
            rc.metadata_json = json.dumps({"assistant_id": found.assistant_id, **meta})
        return out
