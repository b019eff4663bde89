"""Durable turns on the wire: retries by request_id, JoinRun, GetRun, ListRuns.

A mixin of :class:`server.service.GraphService` (as :class:`server._store_rpcs.StoreRpcs`
is), over the run records of :mod:`server._records`:

* **Retries.** A call whose ``request_id`` names a run of its thread (within
  the retention window) starts nothing new. Its fingerprint must match
  (else INVALID_ARGUMENT). A run that ended answers with its stored events,
  RunStarted to RunFinished, as first sent: the same outcome and final
  checkpoint, and no node runs. A run alive on some replica is joined. A run
  whose replica is gone (or whose caller left a CANCEL run, or that stopped on
  a storage failure, so ended ERROR with no RunFinished) is *continued*:
  claimed (attempts + 1), then run again from the thread's newest version
  without its input when that version is its own (its versions carry its
  run id), from its request as first sent when it saved none, and not at all
  (ERROR) when another run went on from the thread after its versions
  (:meth:`server.service.GraphService._continued`, decided once it holds the
  thread); the caller joins it.
  A copy of a call that finds the thread busy before its twin (the same call,
  sent at once, to this replica or another) recorded its run waits for that
  record, then joins it (:meth:`DurableRpcs._twin`).
* **JoinRun** streams a run's stored events after a seq, waiting for more
  while it runs (woken by this replica's run, or polling another's), and
  always ends with the run's RunFinished, even for a seq at or past it.
* **GetRun / ListRuns** read the records, tenant-isolated: another tenant's
  run reads as one that does not exist. ListRuns reads a page (at most its
  ``limit`` of rows, from the run named by ``before``) without the runs'
  final states unless asked for; GetRun returns the final state.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, Literal

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from engine.checkpoint._runs import ACTIVE, RunRecord
from engine.pregel._io import RUN_KEY
from graphwire_proto.v1 import graphwire_pb2 as pb
from server import _convert as conv
from server import _requests as req
from server._calls import page
from server._errors import RpcError
from server._reads import key_of, thread_key
from server._records import Call, Records, fingerprint, now
from server._runs import RunManager
from server._tenants import TENANT

__all__ = ["DurableRpcs", "check_call", "run_info"]

#: How often a copy of a call that found its thread busy looks for its twin's record (see
#: :meth:`DurableRpcs._twin`): the twin records its run right after it takes the thread.
TWIN_POLL_SECONDS = 0.01

_REQUESTS = {"Invoke": pb.InvokeRequest, "Resume": pb.ResumeRequest, "Fork": pb.ForkRequest, "UpdateState": pb.UpdateStateRequest}
_STATUS = {
    "PENDING": pb.RUN_STATUS_PENDING, "RUNNING": pb.RUN_STATUS_RUNNING, "INTERRUPTED": pb.RUN_STATUS_INTERRUPTED,
    "SUCCESS": pb.RUN_STATUS_SUCCESS, "ERROR": pb.RUN_STATUS_ERROR, "CANCELLED": pb.RUN_STATUS_CANCELLED,
    "RECOVERING": pb.RUN_STATUS_RECOVERING,
}  # fmt: skip


def check_call(request: Any) -> Call:
    """The durable-turn fields of a run request (or UpdateState), checked: INVALID_ARGUMENT naming the field."""
    call = Call(request)
    if request.request_id:
        req.ident(request.request_id, "request_id")
    on_disconnect = getattr(request, "on_disconnect", pb.ON_DISCONNECT_UNSPECIFIED)
    if on_disconnect not in (pb.ON_DISCONNECT_UNSPECIFIED, pb.ON_DISCONNECT_CANCEL, pb.ON_DISCONNECT_CONTINUE):
        raise req.bad("on_disconnect", f"unknown value {on_disconnect}")
    rc = request.config if hasattr(request, "config") and request.HasField("config") else None
    if call.keeps_events and rc is not None and rc.metadata_json and '"run_id"' in rc.metadata_json:
        meta = req.run_config("k", None, rc, default_recursion_limit=None).get("metadata") or {}
        if "run_id" in meta:
            raise req.bad(
                "config.metadata_json",
                'a "run_id" key cannot be combined with request_id, on_disconnect = CONTINUE or background '
                "(a continued run finds its versions by its own run id)",
            )
    return call


def _ts(t: Any) -> Timestamp:
    out = Timestamp()
    out.FromDatetime(t)
    return out


def run_info(r: RunRecord, *, values: bool = False) -> pb.RunInfo:
    """A record on the wire; ``values``: with the final state (a record read whole: ``finished``)."""
    info = pb.RunInfo(
        run_id=r.run_id, thread_id=r.caller_thread, graph=r.graph, status=_STATUS[r.status], request_id=r.request_id or "",
        replica=r.replica, attempts=r.attempts, started_at=_ts(r.started_at), checkpoint_id=r.checkpoint_id or "",
        call=r.call, call_json=r.call_json, last_seq=r.last_seq, on_disconnect=r.on_disconnect, background=r.background,
    )  # fmt: skip
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


def _wanted(kinds: Any) -> set[str] | None:
    """The oneof cases a joiner asked for (RUN_FINISHED always); None: all."""
    names = set()
    for k in kinds:
        if k not in pb.EventKind.values() or k == pb.EVENT_KIND_UNSPECIFIED:
            raise req.bad("event_kinds", f"unknown event kind {k}")
        names.add(pb.RunEvent.DESCRIPTOR.fields_by_number[k + 9].name)
    return names | {"run_finished"} if names else None


class DurableRpcs:
    """Retries, JoinRun, GetRun and ListRuns of the GraphService (see the module's doc)."""

    records: Records
    runs: RunManager
    max_response_bytes: int

    # -- reading records ------------------------------------------------------------
    async def _record(self, run_id: str) -> RunRecord:
        """``run_id``'s record, if it is the calling tenant's; else NOT_FOUND."""
        req.ident(run_id, "run_id")
        found = await self.records.store.aget(run_id)
        if found is None or found.thread_id != key_of(TENANT.get(), found.graph, found.caller_thread):
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"no run {run_id!r}")
        return found

    async def GetRun(self, request: pb.GetRunRequest, context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return run_info(await self._record(request.run_id), values=True)

    async def ListRuns(self, request: pb.ListRunsRequest, context: grpc.aio.ServicerContext) -> pb.ListRunsResponse:
        entry, thread_id = self._thread(request)  # type: ignore[attr-defined]
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
        runs = page(
            (run_info(r, values=full) for r in found[:want]), limit,
            over=lambda n: f"the {n + 1} newest runs of thread {thread_id!r} take more than {limit} bytes; ask for fewer with limit and page with before",
        )  # fmt: skip
        return pb.ListRunsResponse(runs=runs, next_before=runs[-1].run_id if more else "")

    # -- joining ----------------------------------------------------------------------
    async def JoinRun(self, request: pb.JoinRunRequest, context: grpc.aio.ServicerContext) -> None:
        record = await self._record(request.run_id)
        await self._join(context, record, request.after_seq, _wanted(request.event_kinds))

    async def _join(
        self, context: grpc.aio.ServicerContext, record: RunRecord, after_seq: int, wanted: set[str] | None,
        watch: asyncio.Task[Any] | None = None,
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
        while True:
            batch = await store.aevents(run_id, seq)
            for s, data in batch:
                seq = s
                msg = pb.RunEvent.FromString(data)
                if wanted is None or msg.WhichOneof("event") in wanted:
                    await context.write(msg)
                if msg.HasField("run_finished"):
                    return
            if batch:
                continue
            current = await store.aget(run_id)
            if current is None:
                raise RpcError(grpc.StatusCode.NOT_FOUND, f"run {run_id!r} is gone (its thread was deleted)")
            # Our task continuing the run has not taken it yet (nobody else did): it is not over.
            unclaimed = watch is not None and current.attempts == record.attempts
            if unclaimed and watch.done():  # the task stopped before it took the run
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
        await context.write(pb.RunEvent.FromString(record.finished))

    # -- retries -----------------------------------------------------------------------
    async def _again(self, context: grpc.aio.ServicerContext, entry: Any, thread_id: str, found: RunRecord, call: Call) -> None:
        """Answer a retry of the call that started ``found`` (see the module's doc)."""
        if found.fingerprint != fingerprint(call.request):
            raise req.bad(
                "request_id",
                f"{call.request_id!r} was used by a different request (run {found.run_id}); "
                "a retry must send the same request",
            )
        wanted = _wanted(call.request.event_kinds) if hasattr(call.request, "event_kinds") else None
        # Ended without a RunFinished: its caller left a CANCEL run, or storage failed under it
        # (nothing could record its end). Either way it goes on from its own newest version.
        left = found.status in ("CANCELLED", "ERROR") and found.finished is None
        if not left and (found.status not in ACTIVE or await self._running(found)):
            await self._join(context, found, 0, wanted)  # its stored events, or the run live
            return
        task = await self._continue(entry, thread_id, found)
        try:
            await self._join(context, found, 0, wanted, watch=task)
        finally:
            if not found.durable and not task.done():
                task.cancel()  # the retry of a CANCEL call left, as its first caller did

    async def _running(self, record: RunRecord) -> bool:
        """Whether some replica runs ``record``'s run now: this one holds its thread for it (which it
        does before the run's events start, its twin's join wakes on), or :meth:`Records.alive`."""
        handle = self.runs.active(record.thread_id)
        return (handle is not None and handle.run_id == record.run_id) or await self.records.alive(record)

    async def _twin(self, key: str, request_id: str) -> RunRecord | Literal["busy", "free"]:
        """After a call with ``request_id`` found thread ``key`` busy: the run to join, the record of its
        twin (the same call sent twice at once, to this replica or another), else whether the thread
        is still ``"busy"`` (with another run: the call fails ABORTED) or ``"free"`` (it may start).

        The holder may be the twin after it took the thread and before its record went in: a
        record is written only once the thread is held. So while the holder has recorded no run,
        this waits for it to (a moment: its next write), looking for the twin's record after
        each look at the holder (a holder that has recorded, with no twin's record seen after,
        is another run).
        """
        while True:
            holder = await self._holder(key)
            found = await self.records.find(key, request_id)
            if found is not None:
                return found
            if holder != "starting":
                return holder
            await asyncio.sleep(TWIN_POLL_SECONDS)

    async def _holder(self, key: str) -> Literal["busy", "free", "starting"]:
        """Who holds thread ``key``: a run that has recorded itself (``"busy"``), nobody (``"free"``),
        or anything else (``"starting"``): a run yet to record itself, here or on another replica,
        or what never will (an UpdateState, a DeleteThread: a moment, then the thread is free)."""
        leases = self.runs.leases
        handle = self.runs.active(key)
        if handle is not None and (leases is None or handle.lease is not None):  # this replica holds it
            return "busy" if await self.records.store.aget(handle.run_id) is not None else "starting"
        if leases is None:
            return "free"
        # Held on another replica, or about to be here (a holder of the slot waiting for the lease).
        lease = await leases.store.alease_holder(key)
        if lease is None or lease.owner == self.records.replica:
            return "starting" if handle is not None else "free"
        active = await self.records.store.aactive(key)
        return "busy" if any(r.replica == lease.owner for r in active) else "starting"

    async def _update_once(self, entry: Any, thread_id: str, call: Call, handle: Any) -> tuple[pb.UpdateStateResponse | None, RunRecord]:
        """An UpdateState with a request_id, inside the thread's slot: the first attempt's answer
        (its version, found by the run id in its metadata), or the record to write it under."""
        key = thread_key(entry.name, thread_id)
        found = await self.records.find(key, call.request_id or "")
        if found is None:
            record = self.records.new(str(uuid.uuid4()), key, entry.name, thread_id, call, handle.lease.epoch if handle.lease else None)
            first = await self.records.store.astart(record)
            if first is None:
                return None, record
            found = first
        if found.fingerprint != fingerprint(call.request):
            raise req.bad("request_id", f"{call.request_id!r} was used by a different request (run {found.run_id})")
        cid = found.checkpoint_id
        if cid is None:  # its attempt stopped: did it write? (we hold the thread: nobody else is writing)
            newest = await entry.graph.checkpointer.aget_tuple(req.config(key))
            if newest is not None and (newest.metadata or {}).get(RUN_KEY) == found.run_id:
                cid = newest.config["configurable"]["checkpoint_id"]
                await self.records.store.aupdate(found.run_id, found.attempts, status="SUCCESS", ended_at=now(), checkpoint_id=cid)
        if cid is not None:
            state = await entry.graph.aget_state(req.config(key, cid), run_ids=True)
            return pb.UpdateStateResponse(checkpoint=conv.snapshot(state).checkpoint), found
        claimed = await self._claim(found, handle.lease.epoch if handle.lease else None)
        if claimed is None:
            raise RpcError(
                grpc.StatusCode.ABORTED,
                f"request_id {call.request_id!r}: another call with it is applying the update; a retry with the same "
                "request_id answers with the version it writes (the update is applied once)",
            )
        return None, claimed

    async def _claim(self, found: RunRecord, epoch: int | None) -> RunRecord | None:
        """Take ``found`` over for one more attempt (inside its thread's slot); None when someone else did first."""
        changes = {"attempts": found.attempts + 1, "replica": self.records.replica, "status": "RUNNING", "ended_at": None, "epoch": epoch}
        if not await self.records.store.aupdate(found.run_id, found.attempts, **changes):
            return None
        claimed = found.copy()
        claimed.attempts, claimed.replica, claimed.status, claimed.ended_at = found.attempts + 1, self.records.replica, "RUNNING", None
        return claimed

    async def _continue(self, entry: Any, thread_id: str, found: RunRecord) -> asyncio.Task[Any]:
        """Run ``found`` on from where it stopped, in a task of its own (its callers join it)."""
        request = _REQUESTS[found.call].FromString(found.request)
        if found.attempts >= self.records.max_attempts:
            return asyncio.get_running_loop().create_task(self._give_up(entry, found))
        start, _ = await self._starter(entry, thread_id, request, found)  # type: ignore[attr-defined]
        return self.streams.run_detached(entry, thread_id, found, start, Call(request))  # type: ignore[attr-defined]

    async def _give_up(self, entry: Any, claimed: RunRecord) -> None:
        """End a run started ``max_run_attempts`` times: ERROR, with the thread's newest version as its checkpoint."""
        state = await entry.graph.aget_state(req.config(claimed.thread_id), run_ids=True)
        ref = conv.snapshot(state).checkpoint if state.config else None
        error = pb.ErrorInfo(
            type="RecoveryError",
            message=f"run {claimed.run_id} was started {claimed.attempts} times and stopped before its end each time "
            f"(max_run_attempts is {self.records.max_attempts})",
        )
        final = pb.RunEvent(seq=claimed.last_seq + 1, run_id=claimed.run_id,
                            run_finished=pb.RunFinished(reason=pb.FINISH_REASON_ERROR, checkpoint=ref, error=error))  # fmt: skip
        await self.records.store.aadd_events(claimed, [(final.seq, final.SerializeToString())])
        await self.records.store.aupdate(
            claimed.run_id, claimed.attempts, status="ERROR", ended_at=now(), finished=final.SerializeToString(),
            last_seq=final.seq, checkpoint_id=ref.checkpoint_id if ref is not None else None,
        )  # fmt: skip
