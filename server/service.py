"""The GraphService: RPCs → engine calls, engine events → streamed messages.

Handlers validate the request (INVALID_ARGUMENT names the field), take the
thread's run slot (with the thread's lease, when the checkpointer has leases:
the engine gets it as ``lease=``), and project the engine's events onto the
wire. Run semantics live in the engine; this module only adapts. Handlers
raise and never catch: :class:`server._calls.Calls` (an interceptor) turns
every failure into its status through the one table
(:func:`server._errors.status_for`), enters the caller's trace context and
refuses a response too large to send. A run that ended because storage failed
(a write fenced off, the database down) fails its RPC with that status rather
than finishing with ERROR.
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Mapping

import grpc

from engine import events as ev
from engine.checkpoint._runs import MemoryRuns, RunRecord
from engine.checkpoint.base import Lease
from engine.errors import NotFoundError
from engine.pregel._io import RUN_KEY
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from server import _convert as conv
from server import _requests as req
from server._calls import page, too_large
from server._cancel import CancelRelay
from server._durable import DurableRpcs, check_call
from server._errors import RpcError, ThreadBusy
from server._hub import RunHub
from server._leases import ThreadLeases, replica_id
from server._reads import Reads, thread_key
from server._records import Duplicate, Records, now, open_run_store, request_expired
from server._registry import GraphEntry
from server._runs import RunManager
from server._starts import Start, const
from server._store_rpcs import StoreRpcs
from server._stream import RunEvents, Streams
from server.config import DEFAULT_MAX_UNSENT_BYTES

__all__ = ["GraphService", "thread_key"]

# What the server always asks of the engine: it needs them for the final event.
_ALWAYS = frozenset({ev.RunStarted, ev.RunFinished, ev.CheckpointSaved, ev.InterruptEvent})
# How many times a call with a request_id starts (see _run_rpc): again when its thread, found busy,
# came free before any twin recorded a run, or when its id expired as it started.
_STARTS = 3


async def _saved_any(saver: Any, config: dict[str, Any], run_id: str) -> bool:
    """Whether some version of the thread was saved by run ``run_id``."""
    async for _ in saver.alist(config, filter={RUN_KEY: run_id}, limit=1):
        return True
    return False


class GraphService(StoreRpcs, DurableRpcs, pb_grpc.GraphServiceServicer):
    def __init__(
        self,
        graphs: Mapping[str, GraphEntry],
        checkpointer: Any,
        *,
        default_recursion_limit: int | None = None,
        max_history: int = 1000,
        hub: RunHub | None = None,
        leases: ThreadLeases | None = None,
        max_response_bytes: int = 16 * 1024 * 1024 - 1024,
        max_unsent_bytes: int = DEFAULT_MAX_UNSENT_BYTES,
        records: Records | None = None,
    ) -> None:
        self.graphs = dict(graphs)
        self.max_response_bytes = max_response_bytes  # under the server's send limit
        self.checkpointer = checkpointer
        self.runs = RunManager(leases)
        self.records = records if records is not None else Records(open_run_store(checkpointer), leases.owner if leases else replica_id())
        self.relay: CancelRelay | None = None  # set by the server when replicas share leases
        self.run_sweeper: Any = None  # set by the server: takes over runs of dead replicas (server._recovery)
        self.default_recursion_limit = default_recursion_limit
        self.max_history = max_history
        # Reads shared with the inspector; run progress published to its watchers.
        self.reads = Reads(self.graphs, checkpointer, max_history=max_history)
        self.hub = hub if hub is not None else RunHub()
        self.streams = Streams(
            self.runs, self.hub, self.records, max_response_bytes=max_response_bytes, max_unsent_bytes=max_unsent_bytes
        )

    # -- helpers -------------------------------------------------------------
    def _thread(self, request: Any) -> tuple[GraphEntry, str]:
        """The request's graph and (caller's) thread id."""
        entry = self.reads.graph(req.ident(request.graph, "graph"))
        return entry, req.ident(request.thread_id, "thread_id")

    def _run_config(self, entry: GraphEntry, thread_id: str, checkpoint_id: str | None, rc: pb.RunConfig | None) -> dict[str, Any]:
        key = thread_key(entry.name, thread_id)
        return req.run_config(key, checkpoint_id, rc, default_recursion_limit=self.default_recursion_limit)

    async def _version_exists(self, entry: GraphEntry, thread_id: str, config: dict[str, Any]) -> None:
        """NOT_FOUND, naming the caller's ids, before the run takes the slot, for a version the request names.

        One row read (no snapshot built); the run reads the version again, inside its slot.
        """
        if await entry.graph.checkpointer.aget_tuple(config) is None:
            raise NotFoundError(f"thread {thread_id!r} has no checkpoint {config['configurable']['checkpoint_id']!r}")

    async def _run_rpc(self, request: Any, context: grpc.aio.ServicerContext) -> None:
        """Run a graph for Invoke, Resume or Fork; its events are written to ``context`` (see :mod:`server._stream`)."""
        entry, thread_id = self._thread(request)
        call = check_call(request)
        key = thread_key(entry.name, thread_id)
        if call.request_id is not None and call.looks_first:
            found = await self.records.find(key, call.request_id)
            if found is not None:
                await self._again(context, entry, thread_id, found, call)
                return
        start, wanted = await self._starter(entry, thread_id, request)
        for starts_left in reversed(range(_STARTS)):
            found = None
            try:
                await self.streams.serve(context, entry, thread_id, request.enqueue, wanted, start, call)
                return
            except Duplicate as dup:  # a retry (its record's insert found the first attempt's): nothing was sent
                found = dup.first
                if request_expired(found, now(), self.records.retention):  # its run ended longer ago than the window:
                    found = await self.records.find(key, found.request_id or "")  # the id is free, and this a new call
            except ThreadBusy:  # nothing was sent; a retry whose first attempt runs, or is starting, anywhere joins it
                twin = await self._twin(key, call.request_id) if call.request_id is not None else "busy"
                if twin == "busy" or (twin == "free" and not starts_left):
                    raise
                found = twin if isinstance(twin, RunRecord) else None  # "free": the thread is, start again
            if found is not None:
                await self._again(context, entry, thread_id, found, call)
                return
        raise RpcError(
            grpc.StatusCode.ABORTED,
            f"request_id {call.request_id!r}: thread {thread_id!r} changed hands {_STARTS} times as the call started; "
            "nothing of it was applied, and a retry with the same request_id is safe",
        )

    async def _starter(
        self, entry: GraphEntry, thread_id: str, request: Any, again: RunRecord | None = None
    ) -> tuple[RunEvents, frozenset[type] | None]:
        """What a run of ``request`` streams, and the event kinds its caller wants.

        ``again``: the record of the run being continued (its first attempt
        stopped); see :meth:`_continued`.
        """
        rc = request.config if request.HasField("config") else None
        wanted, opts = req.run_options(entry.graph, rc, request.event_kinds)
        engine_kinds = wanted | _ALWAYS | self.hub.engine_kinds() if wanted is not None else None
        if again is not None:
            return self._continued(entry, thread_id, request, rc, again, engine_kinds, opts), wanted
        start = await self._prepare(entry, thread_id, request, rc)
        return self._events_of(entry.graph, thread_id, start, engine_kinds, opts), wanted

    def _continued(
        self, entry: GraphEntry, thread_id: str, request: Any, rc: Any, again: RunRecord, engine_kinds: Any, opts: dict[str, Any]
    ) -> RunEvents:
        """A continued run's events, decided once it holds the thread (another call may take the
        thread between the decision to continue it and then), from what its first attempt saved:

        * the thread's newest version is the run's own: on from there, without input;
        * it saved none: from ``request`` as first sent (its input was never applied);
        * it saved some, and another run went on from the thread after them: not run again
          (its input is in the thread; running it would apply it twice): RunFinished ERROR.
        """
        graph = entry.graph

        async def run(run_id: str, lease: Lease | None) -> AsyncIterator[ev.Event]:
            config = req.config(again.thread_id)
            newest = await graph.checkpointer.aget_tuple(config)
            by = (newest.metadata or {}).get(RUN_KEY) if newest is not None else None  # the run that saved it
            if newest is not None and by == again.run_id:
                start = const(None, self._run_config(entry, thread_id, None, rc))
            elif newest is not None and await _saved_any(graph.checkpointer, config, again.run_id):
                cid = newest.config["configurable"]["checkpoint_id"]
                yield ev.RunFinished("ERROR", cid, error_type="RecoveryError", error_message=(
                    f"run {again.run_id} stopped after applying its input, and run {by} "
                    f"went on from the thread (version {cid}) before it could be continued; it is not run again, "
                    "which would apply its input twice"
                ))  # fmt: skip
                return
            else:
                start = await self._prepare(entry, thread_id, request, rc)
            async for e in self._events_of(graph, thread_id, start, engine_kinds, opts)(run_id, lease):
                yield e

        return run

    async def _prepare(self, entry: GraphEntry, thread_id: str, request: Any, rc: Any) -> Start:
        if isinstance(request, pb.InvokeRequest):
            return await self._prepare_invoke(entry, thread_id, request, rc)
        if isinstance(request, pb.ResumeRequest):
            return await self._prepare_resume(entry, thread_id, request, rc)
        return await self._prepare_fork(entry, thread_id, request, rc)

    @staticmethod
    def _events_of(graph: Any, thread_id: str, start: Start, engine_kinds: Any, opts: dict[str, Any]) -> RunEvents:
        async def run(run_id: str, lease: Lease | None) -> AsyncIterator[ev.Event]:
            inp, config, saved = await start(lease)
            events = graph.aevents(inp, config, kinds=engine_kinds, run_id=run_id, lease=lease, thread_name=thread_id, **opts)
            async for e in events:
                yield e
                if saved is not None and isinstance(e, ev.RunStarted):
                    yield saved  # the version the start wrote (Fork's update), right after RunStarted

        return run

    async def _prepare_invoke(self, entry: GraphEntry, thread_id: str, request: pb.InvokeRequest, rc: Any) -> Start:
        inp = req.invoke_input(entry.graph, request)
        config = self._run_config(entry, thread_id, request.checkpoint_id if request.HasField("checkpoint_id") else None, rc)
        if "checkpoint_id" in config["configurable"]:  # an empty one names none, as before
            await self._version_exists(entry, thread_id, config)
        return const(inp, config)

    async def _prepare_resume(self, entry: GraphEntry, thread_id: str, request: pb.ResumeRequest, rc: Any) -> Start:
        """The Resume planned against the thread as it is when the call arrives (what it answers); its run checks it again."""
        config = self._run_config(entry, thread_id, None, rc)
        args = req.resume_answers(request)
        resume = await entry.graph.aplan_resume(config, answers_name="resumes_json", thread_name=thread_id, **args)
        return const(resume, config)

    async def _prepare_fork(self, entry: GraphEntry, thread_id: str, request: pb.ForkRequest, rc: Any) -> Start:
        cid = req.ident(request.checkpoint_id, "checkpoint_id")
        update = req.fork_update(request)
        as_node = req.as_node(entry.graph, request)
        config = self._run_config(entry, thread_id, cid, rc)
        graph = entry.graph
        if update is req.NO_UPDATE:
            await self._version_exists(entry, thread_id, config)
            return const(None, config)

        async def start(lease: Lease | None) -> tuple[Any, dict[str, Any], ev.CheckpointSaved | None]:
            # Inside the run's slot: the update version and the run are one unit
            # (an unknown version is the update's NOT_FOUND).
            new = await graph.aupdate_state(config, update, as_node=as_node, lease=lease)
            return None, new, conv.saved_event(await graph.aget_state(new, run_ids=True))

        return start

    # -- RPCs ----------------------------------------------------------------
    async def Invoke(self, request: pb.InvokeRequest, context: grpc.aio.ServicerContext) -> None:
        await self._run_rpc(request, context)

    async def Resume(self, request: pb.ResumeRequest, context: grpc.aio.ServicerContext) -> None:
        await self._run_rpc(request, context)

    async def Fork(self, request: pb.ForkRequest, context: grpc.aio.ServicerContext) -> None:
        await self._run_rpc(request, context)

    async def GetState(self, request: pb.GetStateRequest, context: grpc.aio.ServicerContext) -> pb.StateSnapshot:
        cid = request.checkpoint_id if request.HasField("checkpoint_id") else None
        entry, thread_id = self._thread(request)
        cid = req.ident(cid, "checkpoint_id") if cid is not None else None
        ns = req.namespace(request.checkpoint_ns)
        _, state = await self.reads.state(entry.name, thread_id, cid, subgraphs=request.subgraphs, checkpoint_ns=ns)
        return conv.snapshot(state)  # one that does not fit in a message: RESOURCE_EXHAUSTED (server._calls)

    async def ListHistory(self, request: pb.ListHistoryRequest, context: grpc.aio.ServicerContext) -> pb.ListHistoryResponse:
        entry, thread_id = self._thread(request)
        history = await self.reads.history(
            entry.name,
            thread_id,
            filter=req.history_filter(request),
            before=req.ident(request.before, "before") if request.HasField("before") else None,
            limit=request.limit if request.HasField("limit") else None,
            checkpoint_ns=req.namespace(request.checkpoint_ns),
        )
        limit = self.max_response_bytes
        snapshots = page(
            (conv.snapshot(s) for s in history),
            limit,
            alone=lambda snap: too_large(thread_id, snap, limit),  # one version alone is too large: no limit helps
            over=lambda n: (
                f"the {n + 1} newest matching versions of thread {thread_id!r} take more than {limit} bytes; "
                f"ask for fewer with limit (the first {n} fit) and page with before"
            ),
        )
        return pb.ListHistoryResponse(snapshots=snapshots)

    async def UpdateState(self, request: pb.UpdateStateRequest, context: grpc.aio.ServicerContext) -> pb.UpdateStateResponse:
        entry, thread_id = self._thread(request)
        call = check_call(request)
        values = req.update_values(request)
        as_node = req.as_node(entry.graph, request)
        cid = req.ident(request.checkpoint_id, "checkpoint_id") if request.HasField("checkpoint_id") else None
        key = thread_key(entry.name, thread_id)
        async with self.runs.slot(key, thread_id, "update", enqueue=False) as handle:
            record = None
            if call.request_id is not None:
                done, record = await self._update_once(entry, thread_id, call, handle)
                if done is not None:
                    return done
            metadata = {RUN_KEY: record.run_id} if record is not None else None  # the run beside the version
            new = await entry.graph.aupdate_state(req.config(key, cid, metadata=metadata), values, as_node=as_node, lease=handle.lease)
            state = await entry.graph.aget_state(new, run_ids=True)
            if record is not None:
                await self.records.store.aupdate(
                    record.run_id, record.attempts, status="SUCCESS", ended_at=now(), checkpoint_id=state.config["configurable"]["checkpoint_id"]
                )
        return pb.UpdateStateResponse(checkpoint=conv.snapshot(state).checkpoint)

    async def ListGraphs(self, request: pb.ListGraphsRequest, context: grpc.aio.ServicerContext) -> pb.ListGraphsResponse:
        infos = []
        for e in self.reads.entries():  # the proto promises name order
            infos.append(conv.graph_info(e.name, e.description, e.graph, full=False))
        return pb.ListGraphsResponse(graphs=infos)

    async def GetGraph(self, request: pb.GetGraphRequest, context: grpc.aio.ServicerContext) -> pb.GraphInfo:
        entry = self.reads.graph(req.ident(request.graph, "graph"))
        return conv.graph_info(entry.name, entry.description, entry.graph)

    async def CancelRun(self, request: pb.CancelRunRequest, context: grpc.aio.ServicerContext) -> pb.CancelRunResponse:
        entry, thread_id = self._thread(request)
        key = thread_key(entry.name, thread_id)
        if self.relay is not None:  # the run may be on another replica
            return pb.CancelRunResponse(cancelled=await self.relay.cancel(key, thread_id, request.run_id))
        return pb.CancelRunResponse(cancelled=self.runs.cancel(key, request.run_id))

    async def DeleteThread(self, request: pb.DeleteThreadRequest, context: grpc.aio.ServicerContext) -> pb.DeleteThreadResponse:
        entry, thread_id = self._thread(request)
        key = thread_key(entry.name, thread_id)
        async with self.runs.slot(key, thread_id, "delete", enqueue=False) as handle:
            if await self.checkpointer.aget_tuple(req.config(key)) is None:
                raise RpcError(grpc.StatusCode.NOT_FOUND, f"thread {thread_id!r} does not exist in graph {entry.name!r}")
            if handle.lease is None:  # a saver without leases (any BaseCheckpointSaver, LangGraph's too)
                await self.checkpointer.adelete_thread(key)
                if isinstance(self.records.store, MemoryRuns):  # the SQL stores' rows go with the thread's
                    self.records.store.forget_thread(key)
            else:  # fenced: a replica that lost the thread meanwhile (paused) deletes nothing
                await self.checkpointer.adelete_thread(key, lease=handle.lease)
        return pb.DeleteThreadResponse()
