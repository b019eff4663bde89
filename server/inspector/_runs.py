"""The run records the inspector's calls time line reads, and the thread records its thread list
reads, over a server's own.

The same records and the same conversion ``ListRuns`` answers with
(:mod:`server._durable`), for the calling tenant's thread (``thread_key``
reads the tenant the inspector's guard set), so the page shows every
replica's runs exactly as a client would list them. The page reads them
every second while a run is open, so it asks for what it draws: the newest
:data:`DRAWN` runs, without their final states (a listing's page reads no
more rows than it returns, whatever the thread's length).
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.host import ThreadQuery
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._records import Records
from server._reads import thread_key
from server._tenants import TENANT
from server._thread_book import ThreadBook

__all__ = ["DRAWN", "ServiceRuns", "ServiceThreads"]

#: How many of a thread's runs the calls time line draws, newest first.
DRAWN = 200


class HasRecords(Protocol):
    """What the inspector reads a service's runs from (a ``GraphService``)."""

    records: Records


class ServiceRuns:
    """:class:`server.inspector._app.RunRecords` over a ``GraphService``'s run records."""

    def __init__(self, service: HasRecords) -> None:
        self._records = service.records
        self.replica = service.records.replica

    async def list_runs(self, graph: str, thread_id: str) -> list[pb.RunInfo]:
        from server._durable import run_info

        found = await self._records.store.alist(thread_key(graph, thread_id), limit=DRAWN)
        return [run_info(r) for r in found]


class ServiceThreads:
    """:class:`server.inspector._app.ThreadRecords` over a ``GraphService``'s thread records (its
    ``threads``), for the calling tenant (the inspector's guard set it), as SearchThreads reads them."""

    def __init__(self, book: ThreadBook) -> None:
        self._book = book

    @staticmethod
    def _row(r: Any) -> dict[str, Any]:
        at = r.updated_at.isoformat().replace("+00:00", "Z")
        return {"thread_id": r.caller_thread, "updated_at": at, "status": r.status, "metadata": r.metadata}

    async def records_of(self, graph: str, thread_ids: list[str]) -> dict[str, dict[str, Any]]:
        if not thread_ids:
            return {}
        query = ThreadQuery(tenant=TENANT.get() or "", graph=graph, caller_ids=tuple(thread_ids), limit=len(thread_ids))
        return {r.caller_thread: self._row(r) for r in await self._book.store.asearch(query)}

    async def search(self, graph: str, *, metadata: dict[str, Any] | None, statuses: tuple[str, ...], limit: int) -> list[dict[str, Any]]:
        query = ThreadQuery(
            tenant=TENANT.get() or "", graph=graph, metadata=metadata, statuses=statuses, sort_by="updated_at", limit=limit
        )
        return [self._row(r) for r in await self._book.store.asearch(query)]
