"""The RPCs on a thread and the graphs that run no graph: GetState, ListHistory, UpdateState,
ListGraphs, GetGraph, CancelRun, DeleteThread.

Reads go through :class:`server._reads.Reads` (the inspector's path too) and
are projected onto the wire by :mod:`server._convert`. What writes the thread
(UpdateState, DeleteThread) takes its run slot first, as a run does (with the
thread's lease, when the checkpointer has leases). An UpdateState with a
``request_id`` is applied once: a retry answers with the version its first
attempt wrote (found by the run id in its metadata).
"""

from __future__ import annotations

import uuid

import grpc

from engine.host import RUN_KEY, UPDATE_REJECTED, RunRecord
from graphwire_proto.v1 import graphwire_pb2 as pb
from server import _convert as conv
from server import _requests as req
from server._calls import page, too_large
from server._cancel import CancelRelay
from server._errors import RpcError
from server._parse import Parser, check_call
from server._reads import Reads, newest_state, thread_key
from server._records import Call, Records, now
from server._registry import GraphEntry
from server._runs import RunHandle, RunManager
from server._thread_book import ThreadBook

__all__ = ["ThreadRpcs"]


class ThreadRpcs:
    """Reads, updates, cancels and deletes threads; lists and describes graphs.

    Args:
        parse: the server's request parser.
        reads: the reads shared with the inspector.
        runs: the run slots (and the runs they hold, for CancelRun).
        records: the replica's run records (an UpdateState's, a deleted thread's).
        relay: CancelRun across replicas (None: one replica, or a checkpointer without messages).
        max_response_bytes: the largest response sent (a ListHistory page's bound).
    """

    def __init__(
        self,
        parse: Parser,
        reads: Reads,
        runs: RunManager,
        records: Records,
        *,
        relay: CancelRelay | None,
        max_response_bytes: int,
        threads: ThreadBook | None = None,
    ) -> None:
        self.threads = threads  # thread records (server._thread_book): touched by UpdateState, deleted with the thread
        self.parse = parse
        self.reads = reads
        self.runs = runs
        self.records = records
        self.relay = relay
        self.max_response_bytes = max_response_bytes

    async def GetState(self, request: pb.GetStateRequest, context: grpc.aio.ServicerContext) -> pb.StateSnapshot:
        cid = request.checkpoint_id if request.HasField("checkpoint_id") else None
        entry, thread_id = self.parse.thread(request)
        cid = req.ident(cid, "checkpoint_id") if cid is not None else None
        ns = req.namespace(request.checkpoint_ns)
        _, state = await self.reads.state(entry.name, thread_id, cid, subgraphs=request.subgraphs, checkpoint_ns=ns)
        return conv.snapshot(state)  # one that does not fit in a message: RESOURCE_EXHAUSTED (server._calls)

    async def ListHistory(self, request: pb.ListHistoryRequest, context: grpc.aio.ServicerContext) -> pb.ListHistoryResponse:
        entry, thread_id = self.parse.thread(request)
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
        entry, thread_id = self.parse.thread(request)
        call = check_call(request)
        values = req.update_values(request)
        ns = req.namespace(request.checkpoint_ns)  # a subgraph's version
        as_node = req.as_node(None if ns else entry.graph, request)
        cid = req.ident(request.checkpoint_id, "checkpoint_id") if request.HasField("checkpoint_id") else None
        extra = req.configurable(request.configurable_json, "configurable_json")
        key = thread_key(entry.name, thread_id)
        async with self.runs.slot(key, thread_id, "update", enqueue=False) as handle:
            record = None
            if call.request_id is not None:
                done, record = await self._update_once(entry, thread_id, ns, call, handle)
                if done is not None:
                    return done
            metadata = {RUN_KEY: record.run_id} if record is not None else None  # the run, beside the version
            cfg = req.config(thread_id, cid, checkpoint_ns=ns, metadata=metadata, extra=extra)
            try:
                new = await entry.graph.aupdate_state(cfg, values, as_node=as_node, lease=handle.lease)
            except Exception as e:  # a reducer's own error (TypeError...): the caller's values, said as such
                said = next((n for n in getattr(e, "__notes__", ()) if n.startswith(UPDATE_REJECTED)), None)
                if said is None:
                    raise
                raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"{said}: {type(e).__name__}: {e}") from e
            state = await entry.graph.aget_state(new, run_ids=True)
            if record is not None:
                await self.records.store.aupdate(
                    record.run_id, record.attempts, status="SUCCESS", ended_at=now(), checkpoint_id=state.config["configurable"]["checkpoint_id"]
                )
            snapshot = conv.snapshot(state)
            if self.threads is not None:  # thread record hook (issue 33): the thread's own newest version
                root = conv.snapshot(await newest_state(entry.graph, thread_id, run_ids=True)) if ns else snapshot
                await self.threads.touched(entry.name, key, root)
        return pb.UpdateStateResponse(checkpoint=snapshot.checkpoint)

    async def _update_once(
        self, entry: GraphEntry, thread_id: str, ns: str, call: Call, handle: RunHandle
    ) -> tuple[pb.UpdateStateResponse | None, RunRecord]:
        """An UpdateState with a request_id, inside the thread's slot: the first attempt's answer
        (its version, found by the run id in its metadata), or the record to write it under."""
        key = thread_key(entry.name, thread_id)
        epoch = handle.lease.epoch if handle.lease is not None else None
        found = await self.records.find(key, call.request_id or "")
        if found is None:
            record = self.records.new(str(uuid.uuid4()), key, entry.name, thread_id, call, epoch)
            first = await self.records.store.astart(record)
            if first is None:
                return None, record
            found = first
        self.records.same_call(found, call)
        cid = found.checkpoint_id
        if cid is None:  # its attempt stopped: did it write? (we hold the thread: nobody else is writing)
            newest = await entry.graph.checkpointer.aget_tuple(req.config(thread_id, checkpoint_ns=ns))
            if newest is not None and (newest.metadata or {}).get(RUN_KEY) == found.run_id:
                cid = newest.config["configurable"]["checkpoint_id"]
                await self.records.store.aupdate(found.run_id, found.attempts, status="SUCCESS", ended_at=now(), checkpoint_id=cid)
        if cid is not None:
            state = await entry.graph.aget_state(req.config(thread_id, cid, checkpoint_ns=ns), run_ids=True)
            return pb.UpdateStateResponse(checkpoint=conv.snapshot(state).checkpoint), found
        claimed = await self.records.claim(found, epoch)
        if claimed is None:
            raise RpcError(
                grpc.StatusCode.ABORTED,
                f"request_id {call.request_id!r}: another call with it is applying the update; a retry with the same "
                "request_id answers with the version it writes (the update is applied once)",
            )
        return None, claimed

    async def ListGraphs(self, request: pb.ListGraphsRequest, context: grpc.aio.ServicerContext) -> pb.ListGraphsResponse:
        infos = []
        for e in self.reads.entries():  # the proto promises name order
            infos.append(conv.graph_info(e.name, e.description, e.graph, full=False))
        return pb.ListGraphsResponse(graphs=infos)

    async def GetGraph(self, request: pb.GetGraphRequest, context: grpc.aio.ServicerContext) -> pb.GraphInfo:
        entry = self.reads.graph(req.ident(request.graph, "graph"))
        return conv.graph_info(entry.name, entry.description, entry.graph)

    async def CancelRun(self, request: pb.CancelRunRequest, context: grpc.aio.ServicerContext) -> pb.CancelRunResponse:
        entry, thread_id = self.parse.thread(request)
        key = thread_key(entry.name, thread_id)
        if self.relay is not None:  # the run may be on another replica
            return pb.CancelRunResponse(cancelled=await self.relay.cancel(key, thread_id, request.run_id))
        return pb.CancelRunResponse(cancelled=self.runs.cancel(key, request.run_id))

    async def DeleteThread(self, request: pb.DeleteThreadRequest, context: grpc.aio.ServicerContext) -> pb.DeleteThreadResponse:
        entry, thread_id = self.parse.thread(request)
        key = thread_key(entry.name, thread_id)
        saver = self.reads.checkpointer
        async with self.runs.slot(key, thread_id, "delete", enqueue=False) as handle:
            recorded = self.threads is not None and await self.threads.store.aget(key) is not None
            if not recorded and await saver.aget_tuple(req.config(key)) is None:  # a thread made by CreateThread has no version yet
                raise RpcError(grpc.StatusCode.NOT_FOUND, f"thread {thread_id!r} does not exist in graph {entry.name!r}")
            if handle.lease is None:  # a saver without leases (any BaseCheckpointSaver, LangGraph's too)
                await saver.adelete_thread(key)
                self.records.forget_thread(key)
                if self.threads is not None:
                    await self.threads.forget(key)
            else:  # fenced: a replica that lost the thread meanwhile (paused) deletes nothing
                await saver.adelete_thread(key, lease=handle.lease)
        return pb.DeleteThreadResponse()
