# Generated from graphwire/_async_threads.py by scripts/gen_sync_client.py. DO NOT EDIT.
"""``ThreadsClient``: the blocking ``client.threads``, derived from ``AsyncThreadsClient``.

Each method works as its ``AsyncThreadsClient`` twin does, without ``await``;
see ``_async_client.py`` for why this file is generated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from graphwire import _decode, _requests
from graphwire._sync_store import Unary
from graphwire._channel import CallMetadata
from graphwire._types import Thread, ThreadPage


class ThreadsClient:
    """The thread RPCs of one ``Client``: ``client.threads``.

    ::

        t = client.threads.create("agent", metadata={"user": "u1"})
        page = client.threads.search_page(metadata={"user": "u1"}, status="interrupted")

    With per-tenant tokens, each tenant sees only its own threads.
    """

    def __init__(self, unary: Unary) -> None:
        self._unary = unary

    def create(
        self,
        graph: str,
        thread_id: str | None = None,
        *,
        metadata: Mapping[str, Any] | None = None,
        if_exists: str = "raise",
        ttl: float | None = None,
        ttl_strategy: str = "delete",
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> Thread:
        """Create a thread's record (``thread_id`` None: the server makes one).

        ``if_exists``: ``"raise"`` (``AlreadyExists``) or ``"do_nothing"`` (the existing
        thread). ``ttl``: seconds after its last update at which it expires (None: the
        graph's default), then ``ttl_strategy`` (``"delete"`` or ``"keep_latest"``).
        """
        request = _requests.create_thread(graph, thread_id, metadata, if_exists, ttl, ttl_strategy)
        return _decode.thread(self._unary("CreateThread", request, timeout, call_metadata))

    def get(
        self,
        graph: str,
        thread_id: str,
        *,
        include_values: bool = False,
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> Thread:
        """A thread's record (with its newest values when ``include_values``); ``NotFound`` when none."""
        request = _requests.pb.GetThreadRequest(graph=graph, thread_id=thread_id, include_values=include_values)
        return _decode.thread(self._unary("GetThread", request, timeout, call_metadata))

    def update(
        self,
        graph: str,
        thread_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
        ttl: float | None = None,
        ttl_strategy: str = "delete",
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> Thread:
        """Merge ``metadata`` into the thread's (top-level keys replace theirs); set its ``ttl``
        (seconds; 0: it no longer expires; None: as it is)."""
        request = _requests.update_thread(graph, thread_id, metadata, ttl, ttl_strategy)
        return _decode.thread(self._unary("UpdateThread", request, timeout, call_metadata))

    def search_page(
        self,
        *,
        graph: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        status: Sequence[str] | str | None = None,
        thread_ids: Sequence[str] | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        updated_after: datetime | None = None,
        updated_before: datetime | None = None,
        sort_by: str = "created_at",
        sort_order: str = "desc",
        limit: int = 20,
        page_token: str | None = None,
        include_values: bool = False,
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> ThreadPage:
        """One page of the threads matching every condition given (``metadata``: contained in
        theirs), in ``sort_by`` order (``"created_at"`` or ``"updated_at"``, ``"desc"`` or
        ``"asc"``); pass ``next_page_token`` as ``page_token`` for the next page."""
        where = _requests.thread_filter(graph, metadata, status, thread_ids, created_after, created_before, updated_after, updated_before)
        request = _requests.search_threads(where, sort_by, sort_order, limit, page_token, include_values)
        response = self._unary("SearchThreads", request, timeout, call_metadata)
        return ThreadPage(tuple(_decode.thread(t) for t in response.threads), response.next_page_token or None)

    def search(
        self,
        *,
        graph: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        status: Sequence[str] | str | None = None,
        limit: int = 20,
        sort_by: str = "created_at",
        sort_order: str = "desc",
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> list[Thread]:
        """The first ``limit`` threads matching (see ``search_page`` for every filter and paging)."""
        page = self.search_page(
            graph=graph, metadata=metadata, status=status, limit=limit, sort_by=sort_by, sort_order=sort_order, timeout=timeout,
            call_metadata=call_metadata,
        )  # fmt: skip
        return list(page.threads)

    def count(
        self,
        *,
        graph: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        status: Sequence[str] | str | None = None,
        thread_ids: Sequence[str] | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        updated_after: datetime | None = None,
        updated_before: datetime | None = None,
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> int:
        """How many threads match every condition given (as ``search_page``'s)."""
        where = _requests.thread_filter(graph, metadata, status, thread_ids, created_after, created_before, updated_after, updated_before)
        response = self._unary("CountThreads", _requests.pb.CountThreadsRequest(filter=where), timeout, call_metadata)
        return int(response.count)

    def copy(
        self,
        graph: str,
        thread_id: str,
        new_thread_id: str | None = None,
        *,
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> Thread:
        """A new thread with the same history (every version, the same ids) and metadata."""
        request = _requests.pb.CopyThreadRequest(graph=graph, thread_id=thread_id, new_thread_id=new_thread_id or "")
        return _decode.thread(self._unary("CopyThread", request, timeout, call_metadata))

    def prune(
        self,
        graph: str,
        thread_id: str,
        *,
        keep_last: int = 1,
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> int:
        """Delete the thread's older versions, keeping the newest ``keep_last``; how many were deleted."""
        request = _requests.pb.PruneThreadRequest(graph=graph, thread_id=thread_id, keep_last=keep_last)
        response = self._unary("PruneThread", request, timeout, call_metadata)
        return int(response.deleted)

    def delete(
        self,
        graph: str,
        thread_id: str,
        *,
        timeout: float | None = None,
        call_metadata: CallMetadata | None = None,
    ) -> None:
        """Delete the thread: its versions, runs and record."""
        self._unary("DeleteThread", _requests.delete_thread(graph, thread_id), timeout, call_metadata)
