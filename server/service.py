"""The GraphService: the gRPC face, each RPC handed to the part that does it.

The service is composed, not mixed in: :class:`GraphService` builds its parts
whole, each handed what it needs, and its methods are one line each.

* :class:`~server._run_rpcs.RunRpcs`: Invoke, Resume, Fork (a request parsed
  once, :mod:`server._parse`; its run streamed, :mod:`server._stream`);
* :class:`~server._thread_rpcs.ThreadRpcs`: GetState, ListHistory,
  UpdateState, ListGraphs, GetGraph, CancelRun, DeleteThread;
* :class:`~server._thread_record_rpcs.ThreadRecordRpcs`: CreateThread, GetThread,
  UpdateThread, SearchThreads, CountThreads, CopyThread, PruneThread (the records
  of :class:`~server._thread_book.ThreadBook`, which the runs keep current);
* :class:`~server._durable.DurableRpcs`: GetRun, ListRuns, JoinRun;
* :class:`~server._store_rpcs.StoreRpcs`: the store's items;
* :class:`~server._assistant_rpcs.AssistantRpcs`: assistants, and the run
  calls that name one (resolved to their graph before they are parsed);
* :class:`~server._continuing.Continuations`: a retried or orphaned durable
  run, joined, continued or ended, on the one decision of
  :mod:`server._going_on` (the :class:`~server._recovery.RunSweeper` finds the
  orphans);
* below them the thread slots (:class:`~server._runs.RunManager`, with
  leases), the run records (:class:`~server._records.Records`), the reads
  (:class:`~server._reads.Reads`) and the hub the inspector watches.

The parts decide what is theirs: the service holds no state of its own and
decides nothing. The server (:mod:`server.app`) starts what runs in the
background (the relay, the sweeper) and tears everything down through one
exit stack. Handlers raise and never catch: :class:`server._calls.Calls`
(an interceptor) turns every failure into its status through the one table
(:func:`server._errors.status_for`).
"""

from __future__ import annotations

import asyncio
from typing import Mapping

import grpc

from engine.checkpoint.base import BaseCheckpointSaver
from engine.host import MessageBus, RunRecord, assistants_of, crons_of, delayed_of, threads_of, webhooks_of
from engine.store.base import BaseStore
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from server._assistant_cache import AssistantCache
from server._assistant_rpcs import AssistantRpcs
from server._cancel import CancelRelay
from server._continuing import Continuations
from server._durable import DurableRpcs
from server._hub import RunHub
from server._leases import ThreadLeases
from server._parse import Parser, RunCall
from server._reads import Reads, thread_key
from server._records import Records
from server._recovery import RunSweeper
from server._registry import GraphEntry
from server._replace import TurnKeeper
from server._run_rpcs import RunRpcs
from server._runs import RunManager
from server._store_rpcs import StoreRpcs
from server._stream import RunEvents, Streams
from server._thread_book import ThreadBook, TtlRule
from server._thread_record_rpcs import ThreadRecordRpcs
from server._thread_rpcs import ThreadRpcs
from server._thread_sweep import ThreadSweeper
from server.config import DEFAULT_MAX_UNSENT_BYTES

__all__ = ["GraphService", "thread_key"]

#: Seconds between sweeps for orphaned runs (with leases, at most the lease's length).
SWEEP_SECONDS = 5.0


class GraphService(pb_grpc.GraphServiceServicer):
    """The gRPC GraphService over ``graphs`` and their ``checkpointer`` (see the module's doc).

    Args:
        graphs: the graphs served, by name.
        checkpointer: their saver.
        store: the store the store RPCs serve (the server's tenant-scoped one).
        records: the run records (:func:`server._records.records_for`).
        leases: thread leases, when the checkpointer has them (replicas share it).
        hub: run progress for the inspector's watchers.
        default_recursion_limit: a run's limit when its request sets none.
        max_history: the most versions ListHistory returns.
        max_response_bytes: the largest response sent (under the server's send limit).
        max_unsent_bytes: how far a caller may fall behind its run's events.
        thread_ttl: each graph's default thread TTL (``[thread_ttl]``).
        thread_sweep_seconds: seconds between sweeps of expired threads.
        version_linger_seconds: how long an engine run's versions may wait to be written together
            (:func:`server._parse.lingers`; 0: each at once).
    """

    def __init__(
        self,
        graphs: Mapping[str, GraphEntry],
        checkpointer: BaseCheckpointSaver,
        *,
        store: BaseStore,
        records: Records,
        leases: ThreadLeases | None = None,
        hub: RunHub | None = None,
        default_recursion_limit: int | None = None,
        max_history: int = 1000,
        max_response_bytes: int = 16 * 1024 * 1024 - 1024,
        max_unsent_bytes: int = DEFAULT_MAX_UNSENT_BYTES,
        thread_ttl: Mapping[str, TtlRule] | None = None,
        thread_sweep_seconds: float = 60.0,
        version_linger_seconds: float = 0.0,
    ) -> None:
        self.graphs = dict(graphs)
        self.checkpointer = checkpointer
        self.max_response_bytes = max_response_bytes
        self.records = records
        self.runs = RunManager(leases)
        self.hub = hub if hub is not None else RunHub()
        # Reads shared with the inspector; run progress published to its watchers.
        self.reads = Reads(self.graphs, checkpointer, max_history=max_history)
        # Thread records, in the checkpointer's database (one store for the service: a memory one is per opening).
        self.threads = ThreadBook(threads_of(checkpointer), thread_ttl)
        messages = getattr(checkpointer, "messages", None)
        # CancelRun (and a run call's INTERRUPT or ROLLBACK) reaches runs on other replicas through the database.
        self.relay = CancelRelay(messages, self.runs, leases.owner) if leases is not None and isinstance(messages, MessageBus) else None
        turns = TurnKeeper(records, self.runs, checkpointer, self.relay)
        self.streams = Streams(
            self.runs, self.hub, records, turns, max_response_bytes=max_response_bytes, max_unsent_bytes=max_unsent_bytes,
            threads=self.threads,
        )  # fmt: skip
        parse = Parser(
            self.reads, default_recursion_limit=default_recursion_limit, watched_kinds=self.hub.engine_kinds, linger=version_linger_seconds
        )
        self.durable = DurableRpcs(records, parse, max_response_bytes=max_response_bytes)
        self.continuations = Continuations(
            records, self.runs, graphs=self.graphs, parse=parse.run, detach=self._detach, join=self.durable.join
        )
        self.crons = crons_of(checkpointer)  # schedules, fired by server._cron_scheduler (with the HTTP API)
        self.webhooks = webhooks_of(checkpointer)  # runs' webhooks to send (server._webhook_sender)
        self.delayed = delayed_of(checkpointer)  # runs waiting to start (after_seconds: server._delayed_starter)
        assistants = assistants_of(checkpointer)
        # The assistants runs name, kept while the relay hears every change to them (PostgreSQL announces each).
        cache = AssistantCache() if self.relay is not None and getattr(assistants, "announces", False) else None
        if cache is not None and self.relay is not None:
            self.relay.watch("assistants", cache)
        self.assistants = AssistantRpcs(assistants, lambda: sorted(self.graphs), max_response_bytes=max_response_bytes, cache=cache)
        self.run_rpcs = RunRpcs(parse, records, self.streams, self.continuations, resolve=self.assistants.resolve)
        self.continuations.threads = self.threads
        self.thread_rpcs = ThreadRpcs(
            parse, self.reads, self.runs, records, relay=self.relay, max_response_bytes=max_response_bytes, threads=self.threads
        )
        self.thread_records = ThreadRecordRpcs(parse, self.reads, self.runs, records, self.threads)
        self.store_rpcs = StoreRpcs(store, max_response_bytes=max_response_bytes)
        sweep = min(leases.ttl, SWEEP_SECONDS) if leases is not None else SWEEP_SECONDS
        self.sweeper = RunSweeper(records, self.continuations.take_orphan, sweep)
        self.thread_sweeper = ThreadSweeper(
            self.threads, self.runs, records, checkpointer, leases=leases.store if leases is not None else None,
            owner=records.replica, interval=thread_sweep_seconds,
        )  # fmt: skip

    def _detach(self, run: RunCall, record: RunRecord, events: RunEvents) -> asyncio.Task[None]:
        return self.streams.run_detached(run.entry, run.thread_id, record, events, run.call)

    # -- runs -----------------------------------------------------------------------------------
    async def Invoke(self, request: pb.InvokeRequest, context: grpc.aio.ServicerContext) -> None:
        await self.run_rpcs.serve(request, context)

    async def Resume(self, request: pb.ResumeRequest, context: grpc.aio.ServicerContext) -> None:
        await self.run_rpcs.serve(request, context)

    async def Fork(self, request: pb.ForkRequest, context: grpc.aio.ServicerContext) -> None:
        await self.run_rpcs.serve(request, context)

    # -- threads and graphs ---------------------------------------------------------------------
    async def GetState(self, request: pb.GetStateRequest, context: grpc.aio.ServicerContext) -> pb.StateSnapshot:
        return await self.thread_rpcs.GetState(request, context)

    async def ListHistory(self, request: pb.ListHistoryRequest, context: grpc.aio.ServicerContext) -> pb.ListHistoryResponse:
        return await self.thread_rpcs.ListHistory(request, context)

    async def UpdateState(self, request: pb.UpdateStateRequest, context: grpc.aio.ServicerContext) -> pb.UpdateStateResponse:
        return await self.thread_rpcs.UpdateState(request, context)

    async def ListGraphs(self, request: pb.ListGraphsRequest, context: grpc.aio.ServicerContext) -> pb.ListGraphsResponse:
        return await self.thread_rpcs.ListGraphs(request, context)

    async def GetGraph(self, request: pb.GetGraphRequest, context: grpc.aio.ServicerContext) -> pb.GraphInfo:
        return await self.thread_rpcs.GetGraph(request, context)

    async def CancelRun(self, request: pb.CancelRunRequest, context: grpc.aio.ServicerContext) -> pb.CancelRunResponse:
        return await self.thread_rpcs.CancelRun(request, context)

    async def DeleteThread(self, request: pb.DeleteThreadRequest, context: grpc.aio.ServicerContext) -> pb.DeleteThreadResponse:
        return await self.thread_rpcs.DeleteThread(request, context)

    # -- thread records -------------------------------------------------------------------------
    async def CreateThread(self, request: pb.CreateThreadRequest, context: grpc.aio.ServicerContext) -> pb.ThreadInfo:
        return await self.thread_records.CreateThread(request, context)

    async def GetThread(self, request: pb.GetThreadRequest, context: grpc.aio.ServicerContext) -> pb.ThreadInfo:
        return await self.thread_records.GetThread(request, context)

    async def UpdateThread(self, request: pb.UpdateThreadRequest, context: grpc.aio.ServicerContext) -> pb.ThreadInfo:
        return await self.thread_records.UpdateThread(request, context)

    async def SearchThreads(self, request: pb.SearchThreadsRequest, context: grpc.aio.ServicerContext) -> pb.SearchThreadsResponse:
        return await self.thread_records.SearchThreads(request, context)

    async def CountThreads(self, request: pb.CountThreadsRequest, context: grpc.aio.ServicerContext) -> pb.CountThreadsResponse:
        return await self.thread_records.CountThreads(request, context)

    async def CopyThread(self, request: pb.CopyThreadRequest, context: grpc.aio.ServicerContext) -> pb.ThreadInfo:
        return await self.thread_records.CopyThread(request, context)

    async def PruneThread(self, request: pb.PruneThreadRequest, context: grpc.aio.ServicerContext) -> pb.PruneThreadResponse:
        return await self.thread_records.PruneThread(request, context)

    # -- durable turns --------------------------------------------------------------------------
    async def GetRun(self, request: pb.GetRunRequest, context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return await self.durable.GetRun(request, context)

    async def ListRuns(self, request: pb.ListRunsRequest, context: grpc.aio.ServicerContext) -> pb.ListRunsResponse:
        return await self.durable.ListRuns(request, context)

    async def JoinRun(self, request: pb.JoinRunRequest, context: grpc.aio.ServicerContext) -> None:
        await self.durable.JoinRun(request, context)

    # -- the store ------------------------------------------------------------------------------
    async def PutItem(self, request: pb.PutItemRequest, context: grpc.aio.ServicerContext) -> pb.PutItemResponse:
        return await self.store_rpcs.PutItem(request, context)

    async def GetItem(self, request: pb.GetItemRequest, context: grpc.aio.ServicerContext) -> pb.Item:
        return await self.store_rpcs.GetItem(request, context)

    async def SearchItems(self, request: pb.SearchItemsRequest, context: grpc.aio.ServicerContext) -> pb.SearchItemsResponse:
        return await self.store_rpcs.SearchItems(request, context)

    async def DeleteItem(self, request: pb.DeleteItemRequest, context: grpc.aio.ServicerContext) -> pb.DeleteItemResponse:
        return await self.store_rpcs.DeleteItem(request, context)

    async def ListNamespaces(
        self, request: pb.ListNamespacesRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListNamespacesResponse:
        return await self.store_rpcs.ListNamespaces(request, context)

    # -- assistants -----------------------------------------------------------------------------
    async def CreateAssistant(self, request: pb.CreateAssistantRequest, context: grpc.aio.ServicerContext) -> pb.Assistant:
        return await self.assistants.CreateAssistant(request, context)

    async def GetAssistant(self, request: pb.GetAssistantRequest, context: grpc.aio.ServicerContext) -> pb.Assistant:
        return await self.assistants.GetAssistant(request, context)

    async def UpdateAssistant(self, request: pb.UpdateAssistantRequest, context: grpc.aio.ServicerContext) -> pb.Assistant:
        return await self.assistants.UpdateAssistant(request, context)

    async def SetAssistantVersion(self, request: pb.SetAssistantVersionRequest, context: grpc.aio.ServicerContext) -> pb.Assistant:
        return await self.assistants.SetAssistantVersion(request, context)

    async def ListAssistantVersions(
        self, request: pb.ListAssistantVersionsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListAssistantVersionsResponse:
        return await self.assistants.ListAssistantVersions(request, context)

    async def SearchAssistants(self, request: pb.SearchAssistantsRequest, context: grpc.aio.ServicerContext) -> pb.SearchAssistantsResponse:
        return await self.assistants.SearchAssistants(request, context)

    async def CountAssistants(self, request: pb.CountAssistantsRequest, context: grpc.aio.ServicerContext) -> pb.CountAssistantsResponse:
        return await self.assistants.CountAssistants(request, context)

    async def DeleteAssistant(self, request: pb.DeleteAssistantRequest, context: grpc.aio.ServicerContext) -> pb.DeleteAssistantResponse:
        return await self.assistants.DeleteAssistant(request, context)
