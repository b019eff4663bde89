"""The run records the inspector's calls time line reads, over a server's own.

The same records and the same conversion ``ListRuns`` answers with
(:mod:`server._durable`), for the calling tenant's thread (``thread_key``
reads the tenant the inspector's guard set), so the page shows every
replica's runs exactly as a client would list them. The page reads them
every second while a run is open, so it asks for what it draws: the newest
:data:`DRAWN` runs, without their final states (a listing's page reads no
more rows than it returns, whatever the thread's length).
"""

from __future__ import annotations

from typing import Protocol

from graphwire_proto.v1 import graphwire_pb2 as pb
from server._records import Records
from server._reads import thread_key

__all__ = ["DRAWN", "ServiceRuns"]

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
