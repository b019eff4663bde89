# Generated from graphwire/_async_assistants.py by scripts/gen_sync_client.py. DO NOT EDIT.
"""``AssistantsClient``: the blocking ``client.assistants``, derived from ``AsyncAssistantsClient``.

Each method works as its ``AsyncAssistantsClient`` twin does, without ``await``;
see ``_async_client.py`` for why this file is generated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from graphwire import _decode
from graphwire._sync_store import Unary
from graphwire._channel import CallMetadata
from graphwire._types import Assistant
from graphwire_proto.v1 import graphwire_pb2 as pb

_SORT = {
    None: pb.ASSISTANT_SORT_BY_UNSPECIFIED, "assistant_id": pb.ASSISTANT_SORT_BY_ASSISTANT_ID, "graph": pb.ASSISTANT_SORT_BY_GRAPH,
    "graph_id": pb.ASSISTANT_SORT_BY_GRAPH, "name": pb.ASSISTANT_SORT_BY_NAME, "created_at": pb.ASSISTANT_SORT_BY_CREATED_AT,
    "updated_at": pb.ASSISTANT_SORT_BY_UPDATED_AT,
}  # fmt: skip


def _json(value: Any, name: str) -> str:
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict, not {type(value).__name__}")
    return json.dumps(dict(value))


def _filter(request: Any, graph: str | None, name: str | None, metadata: Mapping[str, Any] | None) -> Any:
    """A search's or a count's ``request`` with its filters set."""
    request.graph, request.name = graph or "", name or ""
    if metadata:
        request.metadata_json = _json(metadata, "metadata")
    return request


class AssistantsClient:
    """The assistant RPCs of one ``Client``: ``client.assistants``.

    ::

        bot = client.assistants.create("chat", {"configurable": {"model": "small"}}, name="Small")
        result = client.invoke("", "t1", {"messages": [...]}, assistant_id=bot.assistant_id)

    With per-tenant tokens, each tenant sees its own assistants and the graphs' default ones.
    """

    def __init__(self, unary: Unary) -> None:
        self._unary = unary

    def create(
        self,
        graph: str,
        config: Mapping[str, Any] | None = None,
        *,
        context: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        assistant_id: str | None = None,
        if_exists: Literal["raise", "do_nothing"] | None = None,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> Assistant:
        """A new assistant of ``graph`` (version 1). ``if_exists="do_nothing"`` returns the one with
        ``assistant_id`` if there is one; else an existing id raises ``AlreadyExists``."""
        request = pb.CreateAssistantRequest(graph=graph, assistant_id=assistant_id or "", name=name or "")
        if description is not None:
            request.description = description
        for field, value in (("config_json", config), ("context_json", context), ("metadata_json", metadata)):
            if value is not None:
                setattr(request, field, _json(value, field.removesuffix("_json")))
        if if_exists is not None:
            request.if_exists = {"raise": pb.IF_EXISTS_RAISE, "do_nothing": pb.IF_EXISTS_DO_NOTHING}[if_exists]
        return _decode.assistant(self._unary("CreateAssistant", request, timeout, call_metadata))

    def get(self, assistant_id: str, *, timeout: float | None = None, call_metadata: CallMetadata | None = None) -> Assistant:
        """The assistant's current version; ``NotFound`` when there is none."""
        request = pb.GetAssistantRequest(assistant_id=assistant_id)
        return _decode.assistant(self._unary("GetAssistant", request, timeout, call_metadata))

    def update(
        self,
        assistant_id: str,
        *,
        graph: str | None = None,
        config: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> Assistant:
        """A new version, current from now: the fields given replace the current ones (``metadata``
        is merged into it, key by key)."""
        request = pb.UpdateAssistantRequest(assistant_id=assistant_id)
        for field, text in (("graph", graph), ("name", name), ("description", description)):
            if text is not None:
                setattr(request, field, text)
        for field, value in (("config_json", config), ("context_json", context), ("metadata_json", metadata)):
            if value is not None:
                setattr(request, field, _json(value, field.removesuffix("_json")))
        return _decode.assistant(self._unary("UpdateAssistant", request, timeout, call_metadata))

    def set_latest(
        self, assistant_id: str, version: int, *, timeout: float | None = None, call_metadata: CallMetadata | None = None
    ) -> Assistant:
        """Make ``version`` the assistant's current one."""
        request = pb.SetAssistantVersionRequest(assistant_id=assistant_id, version=version)
        return _decode.assistant(self._unary("SetAssistantVersion", request, timeout, call_metadata))

    def get_versions(
        self,
        assistant_id: str,
        metadata: Mapping[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        *,
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> list[Assistant]:
        """The assistant's versions, newest first (those whose metadata contains ``metadata``)."""
        request = pb.ListAssistantVersionsRequest(assistant_id=assistant_id, limit=limit, offset=offset)
        if metadata:
            request.metadata_json = _json(metadata, "metadata")
        response = self._unary("ListAssistantVersions", request, timeout, call_metadata)
        return [_decode.assistant(a) for a in response.versions]

    def search(
        self,
        *,
        graph: str | None = None,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        sort_by: str | None = None,
        sort_order: Literal["asc", "desc"] | None = None,
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> list[Assistant]:
        """Assistants of ``graph``, whose name contains ``name`` (ignoring case) and whose metadata
        contains ``metadata``; sorted by ``sort_by`` (assistant_id, graph, name, created_at (the
        default), updated_at), newest first unless ``sort_order="asc"``."""
        if sort_by not in _SORT:
            raise ValueError(f"sort_by: one of {sorted(k for k in _SORT if k)}")
        request = _filter(pb.SearchAssistantsRequest(), graph, name, metadata)
        request.sort_by = _SORT[sort_by]
        request.sort_order = pb.SORT_ORDER_ASC if sort_order == "asc" else pb.SORT_ORDER_DESC
        request.limit, request.offset = limit, offset
        response = self._unary("SearchAssistants", request, timeout, call_metadata)
        return [_decode.assistant(a) for a in response.assistants]

    def count(
        self,
        *,
        graph: str | None = None,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> int:
        """How many assistants ``search`` with these filters finds (all pages)."""
        request = _filter(pb.CountAssistantsRequest(), graph, name, metadata)
        response = self._unary("CountAssistants", request, timeout, call_metadata)
        return int(response.count)

    def delete(self, assistant_id: str, *, timeout: float | None = None, call_metadata: CallMetadata | None = None) -> bool:
        """Delete the assistant and its versions; whether there was one."""
        response = self._unary("DeleteAssistant", pb.DeleteAssistantRequest(assistant_id=assistant_id), timeout, call_metadata)
        return bool(response.deleted)
