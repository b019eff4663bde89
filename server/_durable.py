"""Durable turns on the wire: JoinRun, GetRun, ListRuns, and joining a run's events.

Over the run records of :mod:`server._records`. A retry of a call with a
``request_id`` joins or continues its run (:mod:`server._continuing`, on
the decision of :mod:`server._going_on`); joining is here:

* **JoinRun** streams a run's stored events after a seq, waiting for more
  while it runs (woken by this replica's run, or polling another's), and
  always ends with the run's RunFinished, even for a seq at or past it
  (:meth:`DurableRpcs.join`, which a retry joins through too).
* **GetRun / ListRuns** read the records, tenant-isolated: another tenant's
  run reads as one that does not exist. ListRuns reads a page (at most its
  ``limit`` of rows, from the run named by ``before``) without the runs'
  final states unless asked for; GetRun returns the final state.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from engine.host import ACTIVE, RunRecord
from graphwire_proto.v1 import graphwire_pb2 as pb
from server import _requests as req
from server._calls import page
from server._errors import RpcError
from server._final_values import named, values_at, with_values
from server._parse import Parser, joined_kinds
from server._reads import key_of, thread_key
from server._records import Records
from server._tenants import TENANT

__all__ = ["DurableRpcs", "run_info"]

_STATUS = {
    "PENDING": pb.RUN_STATUS_PENDING, "RUNNING": pb.RUN_STATUS_RUNNING, "INTERRUPTED": pb.RUN_STATUS_INTERRUPTED,
    "SUCCESS": pb.RUN_STATUS_SUCCESS, "ERROR": pb.RUN_STATUS_ERROR, "CANCELLED": pb.RUN_STATUS_CANCELLED,
    "RECOVERING": pb.RUN_STATUS_RECOVERING, "ROLLED_BACK": pb.RUN_STATUS_ROLLED_BACK,
}  # fmt: skip


def _ts(t: Any) -> Timestamp:
    out = Timestamp()
    out.FromDatetime(t)
    return out


def run_info(r: RunRecord, *, values: bool = False) -> pb.RunInfo:
    """A record on the wire; ``values``: with the final state (a record read whole: ``finished``)."""
    info = pb.RunInfo(
        run_id=r.run_id, thread_id=r.caller_thread, graph=r.graph, status=_STATUS[r.status], request_id=r.request_id or "",
        replica=r.replica, attempts=r.attempts, started_at=_ts(r.started_at), checkpoint_id=r.checkpoint_id or "",
        call=r.call, call_json=r.call_json, last_seq=r.last_seq, on_disconnect=pb.OnDisconnect.ValueType(r.on_disconnect), background=r.background,
    )  # fmt: skip
    info.replaces, info.replaced_by = r.replaces or "", r.replaced_by or ""
    if r.ended_at is not None:
        info.ended_at.CopyFrom(_ts(r.ended_at))
    last = r.finished if r.finished is not None else r.outcome  # a listing reads the outcome alone
    if last is not None:
        fin = pb.RunEvent.FromString(last).run_finished
        if values:
            info.values_json = fin.values_json
        info.reason = fin.reason
        if fin.HasField("error"):
            info.error.CopyFrom(fin.error)
        info.interrupts.extend(fin.interrupts)
        info.checkpoint_id = info.checkpoint_id or fin.checkpoint.checkpoint_id
    return info


class DurableRpcs:
    """JoinRun, GetRun and ListRuns (see the module's doc).

    Args:
        records: the replica's run records.
        parse: the server's request parser (a ListRuns' graph and thread).
        max_response_bytes: the largest response sent (a ListRuns page's bound).
    """

    def __init__(self, records: Records, parse: Parser, *, max_response_bytes: int) -> None:
        self.records = records
        self.parse = parse
        self.max_response_bytes = max_response_bytes

    # -- reading records ------------------------------------------------------------
    async def _record(self, run_id: str) -> RunRecord:
        """``run_id``'s record, if it is the calling tenant's; else NOT_FOUND."""
        req.ident(run_id, "run_id")
        found = await self.records.store.aget(run_id)
        if found is None or found.thread_id != key_of(TENANT.get(), found.graph, found.caller_thread):
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"no run {run_id!r}")
        return found

    async def GetRun(self, request: pb.GetRunRequest, context: grpc.aio.ServicerContext) -> pb.RunInfo:
        record = await self._record(request.run_id)
        return await self._with_values(record, run_info(record, values=True))

    async def _with_values(self, record: RunRecord, info: pb.RunInfo) -> pb.RunInfo:
        """``info`` with its final values read back from its version when its record keeps them there."""
        version = named(info.values_json)
        if version is not None:
            info.values_json = await values_at(self.parse.reads.graphs.get(record.graph), record.caller_thread, version)
        return info

    async def sent(self, record: RunRecord, msg: pb.RunEvent, read: dict[str, str] | None = None) -> pb.RunEvent:
        """A stored event of ``record``'s run as it is sent (a RunFinished's values or a task's input read back
        from the version it names: server._final_values; ``read``: the versions read for this caller so far)."""
        return await with_values(msg, self.parse.reads.graphs.get(record.graph), record.caller_thread, self.max_response_bytes, read)

    async def ListRuns(self, request: pb.ListRunsRequest, context: grpc.aio.ServicerContext) -> pb.ListRunsResponse:
        entry, thread_id = self.parse.thread(request)
        before = req.ident(request.before, "before") if request.HasField("before") else None
        want = request.limit or None  # 0, as unset: all
        full = request.include_values
        try:
            # One row past the page: whether another page follows (next_before).
            found = await self.records.store.alist(
                thread_key(entry.name, thread_id), limit=want + 1 if want else None, before=before, full=full
            )
        except KeyError:
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"thread {thread_id!r} has no run {before!r}") from None
        more = want is not None and len(found) > want
        limit = self.max_response_bytes
        infos = [await self._with_values(r, run_info(r, values=full)) for r in found[:want]]
        runs = page(
            infos, limit,
            over=lambda n: f"the {n + 1} newest runs of thread {thread_id!r} take more than {limit} bytes; ask for fewer with limit and page with before",
        )  # fmt: skip
        return pb.ListRunsResponse(runs=runs, next_before=runs[-1].run_id if more else "")

    # -- joining ----------------------------------------------------------------------
    async def JoinRun(self, request: pb.JoinRunRequest, context: grpc.aio.ServicerContext) -> None:
        record = await self._record(request.run_id)
        await self.join(context, record, request.after_seq, joined_kinds(request.event_kinds))

    async def join(
        self, context: grpc.aio.ServicerContext, record: RunRecord, after_seq: int, wanted: set[str] | None,
        watch: asyncio.Task[None] | None = None,
    ) -> None:
        """Send ``record``'s events after ``after_seq`` until its RunFinished.

        ``watch``: the task continuing the run here; its failure before the
        run's end (its thread busy, say) ends the join with that failure.
        """
        if not record.keeps_events:
            raise RpcError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"run {record.run_id} keeps no events: only runs started with request_id, "
                "on_disconnect = ON_DISCONNECT_CONTINUE or background can be joined",
            )
        store, seq, run_id = self.records.store, after_seq, record.run_id
        read: dict[str, str] = {}  # versions' values read back for this join (several events may name one)
        while True:
            batch = await store.aevents(run_id, seq)
            for s, data in batch:
                seq = s
                msg = pb.RunEvent.FromString(data)
                if wanted is None or msg.WhichOneof("event") in wanted:
                    await context.write(await self.sent(record, msg, read))
                if msg.HasField("run_finished"):
                    return
            if batch:
                continue
            current = await store.aget(run_id)
            if current is None:
                raise RpcError(grpc.StatusCode.NOT_FOUND, f"run {run_id!r} is gone (its thread was deleted)")
            # Our task continuing the run has not taken it yet (nobody else did): it is not over.
            unclaimed = watch is not None and current.attempts == record.attempts
            if watch is not None and unclaimed and watch.done():  # the task stopped before it took the run
                exc = watch.exception() if not watch.cancelled() else None
                raise exc if exc is not None else RpcError(grpc.StatusCode.ABORTED, f"run {run_id} stopped before its end")
            if current.status not in ACTIVE and not unclaimed and not await store.aevents(run_id, seq, limit=1):
                # Ended, and nothing stored after seq: its events are past the retention window, or
                # the caller has them all (a seq at or past the end).
                await self._replay_end(context, current, seq, wanted)
                return
            await self.records.wait_events(run_id)

    async def _replay_end(self, context: grpc.aio.ServicerContext, record: RunRecord, seq: int, wanted: set[str] | None) -> None:
        """An ended run's first and last events from its record alone (``seq``: what the caller has):
        its RunStarted if the caller lacks it, and its RunFinished always (a stream ends with one)."""
        started = pb.RunEvent.FromString(record.started) if record.started is not None else None
        if started is not None and started.seq > seq and (wanted is None or "run_started" in wanted):
            await context.write(started)
        if record.finished is None:
            raise RpcError(grpc.StatusCode.ABORTED, f"run {record.run_id} ended {record.status} without a RunFinished")
        await context.write(await self.sent(record, pb.RunEvent.FromString(record.finished)))
