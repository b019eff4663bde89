"""``AsyncStoreClient``: the server's store (long-term memory), as ``client.store``.

The store keeps JSON objects under a namespace (a tuple of labels, such as
``("memories", user_id)``) and a key, shared by every thread of every graph:
what a node remembers about a user, a caller can show, edit or delete. The
method names are those of LangGraph's SDK (``client.store.put_item`` …).

Like ``AsyncClient``, this is the only place a store method is written: the
blocking ``StoreClient`` in ``_sync_store.py`` is generated from it by
``scripts/gen_sync_client.py``. Requests are built in ``_requests`` and
answers read in ``_decode``; calls go through the client's own plumbing, so
they carry its token, accept ``timeout=`` and ``metadata=``, and raise its
typed errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol

from graphwire import _decode, _requests
from graphwire._channel import CallMetadata
from graphwire._errors import NotFound
from graphwire._types import Item

class Unary(Protocol):
    """One unary call through the client (its channel, metadata and deadline):
    ``unary("PutItem", request, timeout, metadata)`` is the response."""

    async def __call__(self, method: str, request: Any, timeout: float | None, metadata: CallMetadata | None) -> Any: ...


class AsyncStoreClient:
    """The store RPCs of one ``AsyncClient``: ``client.store``.

    ::

        await client.store.put_item(("memories", "user-42"), "tea", {"text": "likes tea"})
        for item in await client.store.search_items(("memories", "user-42")):
            print(item.key, item.value)

    With per-tenant tokens, each tenant sees only its own namespaces.
    """

    def __init__(self, unary: Unary) -> None:
        self._unary = unary

    async def put_item(
        self,
        namespace: Sequence[str],
        /,
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | Sequence[str] | None = None,
        ttl: float | None = None,
        *,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> None:
        """Store ``value`` (a dict) under ``(namespace, key)``, replacing what was there.

        ``index``: the fields to embed for semantic search (None: the
        server's configured ones; False: none). ``ttl``: minutes until the
        item expires (None: the server's default; 0: never).
        """
        request = _requests.put_item(namespace, key, value, index=index, ttl=ttl)
        await self._unary("PutItem", request, timeout, metadata)

    async def get_item(
        self,
        namespace: Sequence[str],
        /,
        key: str,
        *,
        refresh_ttl: bool | None = None,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> Item | None:
        """The item at ``(namespace, key)``, or None when there is none.

        ``refresh_ttl``: whether this read pushes the item's expiry back
        (None: the server's default).
        """
        request = _requests.get_item(namespace, key, refresh_ttl=refresh_ttl)
        try:
            response = await self._unary("GetItem", request, timeout, metadata)
        except NotFound:
            return None
        return _decode.item(response)

    async def search_items(
        self,
        namespace_prefix: Sequence[str],
        /,
        filter: Mapping[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        query: str | None = None,
        refresh_ttl: bool | None = None,
        *,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> list[Item]:
        """Items under ``namespace_prefix`` whose values match ``filter``, a page of ``limit`` from ``offset``.

        ``filter`` compares values exactly (``{"kind": "fact"}``) or with
        ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``. ``query``
        ranks them by similarity (semantic search; the server's store needs
        an index, else ``FailedPrecondition``).
        """
        request = _requests.search_items(
            namespace_prefix, filter=filter, limit=limit, offset=offset, query=query, refresh_ttl=refresh_ttl
        )
        response = await self._unary("SearchItems", request, timeout, metadata)
        return [_decode.item(i) for i in response.items]

    async def delete_item(
        self,
        namespace: Sequence[str],
        /,
        key: str,
        *,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> bool:
        """Delete the item at ``(namespace, key)``; whether there was one."""
        request = _requests.delete_item(namespace, key)
        response = await self._unary("DeleteItem", request, timeout, metadata)
        return bool(response.deleted)

    async def list_namespaces(
        self,
        prefix: Sequence[str] | None = None,
        suffix: Sequence[str] | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
        *,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> list[tuple[str, ...]]:
        """The namespaces holding items, sorted; ``"*"`` in ``prefix``/``suffix`` matches any one label.

        ``max_depth`` cuts each namespace to that many labels (listed once).
        """
        request = _requests.list_namespaces(prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset)
        response = await self._unary("ListNamespaces", request, timeout, metadata)
        return [tuple(ns.labels) for ns in response.namespaces]
