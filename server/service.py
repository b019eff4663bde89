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

from engine.checkpoint._helpers import MAX_METADATA_BYTES
from engine import events as ev
from engine.checkpoint.base import Lease
from engine.func._entrypoint import EntrypointGraph
from engine.pregel._run_context import ContextError, context_from_json
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from server import _convert as conv
from server._cancel import CancelRelay
from server._calls import page, too_large
from server._errors import RpcError
from server._hub import RunHub
from server._leases import ThreadLeases
from server._json import decode_json
from server._messages import messages_in
from server._reads import Reads, thread_key
from server._reads import bad as _bad
from server._reads import ident as _ident
from server._registry import GraphEntry
from server._resume import prepare_resume
from server._runs import RunManager
from server._starts import Start, const
from server._store_rpcs import StoreRpcs
from server._stream import Streams
from server.config import DEFAULT_MAX_UNSENT_BYTES

__all__ = ["GraphService", "thread_key"]

_DURABILITY = {pb.DURABILITY_UNSPECIFIED: None, pb.DURABILITY_ASYNC: "async", pb.DURABILITY_SYNC: "sync", pb.DURABILITY_EXIT: "exit"}
# What the server always asks of the engine: it needs them for the final event.
_ALWAYS = frozenset({ev.RunStarted, ev.RunFinished, ev.CheckpointSaved, ev.InterruptEvent})


_NO_UPDATE: Any = object()  # a Fork without update_json
#: the largest context_json a run takes (like run metadata: small values, a user's id or locale)
MAX_CONTEXT_BYTES = MAX_METADATA_BYTES


def run_context(graph: Any, text: str) -> Any:
    """``RunConfig.context_json`` as the run's context, checked against the graph's ``context_schema``."""
    size = len(text.encode())
    if size > MAX_CONTEXT_BYTES:
        raise RpcError(
            grpc.StatusCode.RESOURCE_EXHAUSTED, f"config.context_json: {size} bytes; a run's context is at most {MAX_CONTEXT_BYTES}"
        )
    data = decode_json(text, "config.context_json")
    try:
        return context_from_json(getattr(graph, "context_schema", None), data)
    except ContextError as e:
        raise _bad(f"config.context_json.{e.field}" if e.field else "config.context_json", e.reason) from None


class GraphService(StoreRpcs, pb_grpc.GraphServiceServicer):
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
    ) -> None:
        self.graphs = dict(graphs)
        self.max_response_bytes = max_response_bytes  # under the server's send limit
        self.checkpointer = checkpointer
        self.runs = RunManager(leases)
        self.relay: CancelRelay | None = None  # set by the server when replicas share leases
        self.default_recursion_limit = default_recursion_limit
        self.max_history = max_history
        # Reads shared with the inspector; run progress published to its watchers.
        self.reads = Reads(self.graphs, checkpointer, max_history=max_history)
        self.hub = hub if hub is not None else RunHub()
        self.streams = Streams(self.runs, self.hub, max_response_bytes=max_response_bytes, max_unsent_bytes=max_unsent_bytes)

    # -- helpers -------------------------------------------------------------
    def _graph(self, name: str, field: str = "graph") -> GraphEntry:
        return self.reads.graph(name, field)

    def _config(self, graph: str, thread_id: str, checkpoint_id: str | None = None, rc: pb.RunConfig | None = None) -> dict[str, Any]:
        configurable: dict[str, Any] = {"thread_id": thread_key(graph, thread_id)}
        if checkpoint_id:
            configurable["checkpoint_id"] = _ident(checkpoint_id, "checkpoint_id")
        config: dict[str, Any] = {"configurable": configurable}
        if self.default_recursion_limit:
            config["recursion_limit"] = self.default_recursion_limit
        if rc is not None:
            if rc.HasField("recursion_limit"):
                if rc.recursion_limit < 1:
                    raise _bad("config.recursion_limit", "must be at least 1")
                config["recursion_limit"] = rc.recursion_limit
            if rc.metadata_json:
                size = len(rc.metadata_json.encode())
                if size > MAX_METADATA_BYTES:
                    raise RpcError(
                        grpc.StatusCode.RESOURCE_EXHAUSTED,
                        f"config.metadata_json: {size} bytes; run metadata is at most {MAX_METADATA_BYTES}",
                    )
                meta = decode_json(rc.metadata_json, "config.metadata_json")
                if meta is not None and not isinstance(meta, dict):
                    raise _bad("config.metadata_json", "must be a JSON object")
                config["metadata"] = meta or {}
        return config

    def _run_options(self, entry: GraphEntry, rc: pb.RunConfig | None, event_kinds: Any) -> dict[str, Any]:
        opts: dict[str, Any] = {}
        kinds = set()
        for k in event_kinds:
            cls = conv.CLASS_OF.get(k)
            if cls is None:
                raise _bad("event_kinds", f"unknown event kind {k}")
            kinds.add(cls)
        # What the caller sees: its kinds plus the first and last events (the
        # engine is asked for _ALWAYS too; see _run_rpc).
        opts["kinds"] = frozenset(kinds) | {ev.RunStarted, ev.RunFinished} if kinds else None
        if rc is not None:
            if rc.durability not in _DURABILITY:
                raise _bad("config.durability", f"unknown value {rc.durability}")
            opts["durability"] = _DURABILITY[rc.durability]
            for field in ("interrupt_before", "interrupt_after"):
                names = list(getattr(rc, field))
                for n in names:
                    if n != "*" and n not in entry.graph.nodes:
                        raise _bad(f"config.{field}", f"unknown node {n!r}")
                if names:
                    opts[field] = names
            if rc.context_json:
                opts["context"] = run_context(entry.graph, rc.context_json)
        return opts

    async def _run_rpc(self, request: Any, context: grpc.aio.ServicerContext, kind: str) -> None:
        """Run a graph for Invoke, Resume or Fork; its events are written to ``context`` (see :mod:`server._stream`)."""
        entry = self._graph(request.graph)
        thread_id = _ident(request.thread_id, "thread_id")
        rc = request.config if request.HasField("config") else None
        opts = self._run_options(entry, rc, request.event_kinds)
        wanted = opts.pop("kinds")
        engine_kinds = wanted | _ALWAYS | self.hub.engine_kinds() if wanted is not None else None
        if kind == "invoke":
            start = await self._prepare_invoke(entry, thread_id, request, rc)
        elif kind == "resume":
            start = await self._prepare_resume(entry, thread_id, request, rc)
        else:
            start = await self._prepare_fork(entry, thread_id, request, rc)
        graph = entry.graph

        async def run(run_id: str, lease: Lease | None) -> AsyncIterator[ev.Event]:
            inp, config, saved = await start(lease)
            events = graph.aevents(inp, config, kinds=engine_kinds, run_id=run_id, lease=lease, thread_name=thread_id, **opts)
            async for e in events:
                yield e
                if saved is not None and isinstance(e, ev.RunStarted):
                    yield saved  # the version the start wrote (Fork's update), right after RunStarted

        await self.streams.serve(context, entry, thread_id, request.enqueue, wanted, run)

    async def _prepare_invoke(self, entry: GraphEntry, thread_id: str, request: pb.InvokeRequest, rc: Any) -> Start:
        inp = messages_in(decode_json(request.input_json, "input_json"), "input_json")
        if inp is not None and not isinstance(inp, dict) and not isinstance(entry.graph, EntrypointGraph):  # an entrypoint takes any JSON
            raise _bad("input_json", f"must be a JSON object of state keys or null, not {type(inp).__name__}")
        config = self._config(entry.name, thread_id, request.checkpoint_id if request.HasField("checkpoint_id") else None, rc)
        if request.HasField("checkpoint_id"):
            await entry.graph.aget_state(config)  # NOT_FOUND before taking the slot, naming the caller's ids
        return const(inp, config)

    async def _prepare_resume(self, entry: GraphEntry, thread_id: str, request: pb.ResumeRequest, rc: Any) -> Start:
        return await prepare_resume(entry, thread_id, request, self._config(entry.name, thread_id, None, rc))

    async def _prepare_fork(self, entry: GraphEntry, thread_id: str, request: pb.ForkRequest, rc: Any) -> Start:
        cid = _ident(request.checkpoint_id, "checkpoint_id")
        update = decode_json(request.update_json, "update_json", default=_NO_UPDATE)
        update = messages_in(update, "update_json") if update is not _NO_UPDATE else update
        as_node = request.as_node if request.HasField("as_node") else None
        if as_node is not None and as_node not in entry.graph.nodes:
            raise _bad("as_node", f"unknown node {as_node!r}")
        config = self._config(entry.name, thread_id, cid, rc)
        await entry.graph.aget_state(config)  # NOT_FOUND before taking the slot
        if update is _NO_UPDATE:
            return const(None, config)
        graph = entry.graph

        async def start(lease: Lease | None) -> tuple[Any, dict[str, Any], ev.CheckpointSaved | None]:
            # Inside the run's slot: the update version and the run are one unit.
            new = await graph.aupdate_state(config, update, as_node=as_node, lease=lease)
            return None, new, conv.saved_event(await graph.aget_state(new))

        return start

    # -- RPCs ----------------------------------------------------------------
    async def Invoke(self, request: pb.InvokeRequest, context: grpc.aio.ServicerContext) -> None:
        await self._run_rpc(request, context, "invoke")

    async def Resume(self, request: pb.ResumeRequest, context: grpc.aio.ServicerContext) -> None:
        await self._run_rpc(request, context, "resume")

    async def Fork(self, request: pb.ForkRequest, context: grpc.aio.ServicerContext) -> None:
        await self._run_rpc(request, context, "fork")

    async def GetState(self, request: pb.GetStateRequest, context: grpc.aio.ServicerContext) -> pb.StateSnapshot:
        cid = request.checkpoint_id if request.HasField("checkpoint_id") else None
        _, state = await self.reads.state(
            request.graph, request.thread_id, cid, subgraphs=request.subgraphs, checkpoint_ns=request.checkpoint_ns
        )
        return conv.snapshot(state)  # one that does not fit in a message: RESOURCE_EXHAUSTED (server._calls)

    async def ListHistory(self, request: pb.ListHistoryRequest, context: grpc.aio.ServicerContext) -> pb.ListHistoryResponse:
        history = await self.reads.history(
            request.graph,
            request.thread_id,
            filter=decode_json(request.filter_json, "filter_json"),
            before=request.before if request.HasField("before") else None,
            limit=request.limit if request.HasField("limit") else None,
            checkpoint_ns=request.checkpoint_ns,
        )
        limit, thread_id = self.max_response_bytes, request.thread_id
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
        entry = self._graph(request.graph)
        thread_id = _ident(request.thread_id, "thread_id")
        values = messages_in(decode_json(request.values_json, "values_json"), "values_json")
        if not isinstance(values, dict):
            raise _bad("values_json", "required: a JSON object of state keys")
        as_node = request.as_node if request.HasField("as_node") else None
        if as_node is not None and as_node not in entry.graph.nodes:
            raise _bad("as_node", f"unknown node {as_node!r}")
        cid = request.checkpoint_id if request.HasField("checkpoint_id") else None
        key = thread_key(entry.name, thread_id)
        async with self.runs.slot(key, thread_id, "update", enqueue=False) as handle:
            config = self._config(entry.name, thread_id, cid)
            new = await entry.graph.aupdate_state(config, values, as_node=as_node, lease=handle.lease)
            state = await entry.graph.aget_state(new)
        return pb.UpdateStateResponse(checkpoint=conv.snapshot(state).checkpoint)

    async def ListGraphs(self, request: pb.ListGraphsRequest, context: grpc.aio.ServicerContext) -> pb.ListGraphsResponse:
        infos = []
        for e in self.reads.entries():  # the proto promises name order
            info = conv.graph_info(e.name, e.description, e.graph.get_graph())
            del info.edges[:]
            infos.append(info)
        return pb.ListGraphsResponse(graphs=infos)

    async def GetGraph(self, request: pb.GetGraphRequest, context: grpc.aio.ServicerContext) -> pb.GraphInfo:
        entry, drawn = self.reads.drawing(request.graph, "graph")
        return conv.graph_info(entry.name, entry.description, drawn)

    async def CancelRun(self, request: pb.CancelRunRequest, context: grpc.aio.ServicerContext) -> pb.CancelRunResponse:
        entry = self._graph(request.graph)
        thread_id = _ident(request.thread_id, "thread_id")
        key = thread_key(entry.name, thread_id)
        if self.relay is not None:  # the run may be on another replica
            return pb.CancelRunResponse(cancelled=await self.relay.cancel(key, thread_id, request.run_id))
        return pb.CancelRunResponse(cancelled=self.runs.cancel(key, request.run_id))

    async def DeleteThread(self, request: pb.DeleteThreadRequest, context: grpc.aio.ServicerContext) -> pb.DeleteThreadResponse:
        entry = self._graph(request.graph)
        thread_id = _ident(request.thread_id, "thread_id")
        key = thread_key(entry.name, thread_id)
        async with self.runs.slot(key, thread_id, "delete", enqueue=False) as handle:
            if await self.checkpointer.aget_tuple({"configurable": {"thread_id": key}}) is None:
                raise RpcError(grpc.StatusCode.NOT_FOUND, f"thread {thread_id!r} does not exist in graph {entry.name!r}")
            if handle.lease is None:  # a saver without leases (any BaseCheckpointSaver, LangGraph's too)
                await self.checkpointer.adelete_thread(key)
            else:  # fenced: a replica that lost the thread meanwhile (paused) deletes nothing
                await self.checkpointer.adelete_thread(key, lease=handle.lease)
        return pb.DeleteThreadResponse()
