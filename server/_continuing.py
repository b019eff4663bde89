"""Acting on the durable-run decision (:func:`server._going_on.decide`): the one class that does.

Two callers meet a run again: a retry of its call (:meth:`Continuations.answer`,
from the run RPCs) and a replica's sweep of runs whose replica died
(:meth:`Continuations.take_orphan`, from :class:`server._recovery.RunSweeper`).
Each asks the decision, then:

* JOIN: the caller reads the run's events (``join``: stored, then live);
* CLOSE: the record says CANCELLED;
* GIVE_UP, REFUSE: the run ends ERROR with a RecoveryError, written here
  (:meth:`Continuations._end`): its RunFinished stored after its last event,
  the thread's newest version its checkpoint;
* TAKE: the run goes on in a task of its own, with no caller (``detach``:
  the stream claims it once it holds the thread: one more attempt, here); a
  retry joins it. Holding the thread, it reads the thread and asks the
  decision again: RUN_ON (no input, from its own newest version), RUN_AGAIN
  (its request as first sent) or REFUSE.

A copy of a call that finds its thread busy before its twin (the same call,
sent at once, to this replica or another) recorded its run waits for that
record, then joins it (:meth:`Continuations.twin`).

What it needs of the rest of the server it is given: the records and run
slots, and as callables, how to parse a stored request (``parse``), run one
with no caller (``detach``) and join one (``join``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Literal, Protocol

import grpc

from engine import events as ev
from engine.checkpoint.base import Lease
from engine.host import RUN_KEY, Landing, RunRecord
from engine.pregel import Pregel
from graphwire_proto.v1 import graphwire_pb2 as pb
from server import _convert as conv
from server._thread_book import ThreadBook
from server._going_on import Decision, ThreadSeen, Way, claim_of, decide
from server._parse import RunCall, RunRequest, joined_kinds
from server._reads import newest_state, owner_of
from server._records import Call, Records, now
from server._registry import GraphEntry
from server._requests import config
from server._runs import RunManager
from server._starts import const, events_of, prepare
from server._stream import RunEvents
from server._tenants import TENANT

__all__ = ["Continuations", "TWIN_POLL_SECONDS"]

log = logging.getLogger("graphwire.server")

#: How often a copy of a call that found its thread busy looks for its twin's record (see
#: :meth:`Continuations.twin`): the twin records its run right after it takes the thread.
TWIN_POLL_SECONDS = 0.01

_REQUESTS: dict[str, type[RunRequest]] = {"Invoke": pb.InvokeRequest, "Resume": pb.ResumeRequest, "Fork": pb.ForkRequest}


class Join(Protocol):
    def __call__(
        self, context: grpc.aio.ServicerContext, record: RunRecord, after_seq: int, wanted: set[str] | None,
        watch: asyncio.Task[None] | None = None,
    ) -> Awaitable[None]: ...  # fmt: skip


async def thread_seen(graph: Pregel, record: RunRecord) -> ThreadSeen:
    """``record``'s thread as the decision needs it (read while holding the thread)."""
    thread = config(record.caller_thread)  # the graph's checkpointer reads it under its storage key
    newest = await graph.checkpointer.aget_tuple(thread)
    if newest is None:
        return ThreadSeen(None, None, False)
    by = (newest.metadata or {}).get(RUN_KEY)  # the run that saved it, recorded beside its metadata
    saved_any = by == record.run_id
    if not saved_any:
        async for _ in graph.checkpointer.alist(thread, filter={RUN_KEY: record.run_id}, limit=1):
            saved_any = True
    return ThreadSeen(newest.config["configurable"]["checkpoint_id"], by, saved_any)


class Continuations:
    """Answers retries of durable runs and takes over orphans (see the module's doc).

    Args:
        records: the replica's run records.
        runs: its run slots (who holds a thread here).
        graphs: the graphs it serves, by name.
        parse: a stored request, parsed as its call was (:meth:`server._parse.Parser.run`).
        detach: runs a call's events with no caller, continuing its record (:meth:`server._stream.Streams.run_detached`).
        join: sends a run's events to a caller (:meth:`server._durable.DurableRpcs.join`).
    """

    def __init__(
        self,
        records: Records,
        runs: RunManager,
        *,
        graphs: Mapping[str, GraphEntry],
        parse: Callable[[RunRequest], RunCall],
        detach: Callable[[RunCall, RunRecord, RunEvents], asyncio.Task[None]],
        join: Join,
    ) -> None:
        self.records = records
        self.runs = runs
        self.graphs = graphs
        self.parse = parse
        self.detach = detach
        self.join = join
        self.threads: ThreadBook | None = None  # thread records, marked when an orphan is closed (set by the service)

    def _decide(self, record: RunRecord, *, running: bool = False, caller: bool = True, thread: ThreadSeen | None = None) -> Decision:
        return decide(record, max_attempts=self.records.max_attempts, running=running, caller=caller, thread=thread)

    # -- a retry ------------------------------------------------------------------------
    async def answer(self, context: grpc.aio.ServicerContext, found: RunRecord, call: Call) -> None:
        """Answer a retry (``call``) of the call that started ``found``: join it, or continue it and join that."""
        self.records.same_call(found, call)
        wanted = joined_kinds(call.request.event_kinds) if hasattr(call.request, "event_kinds") else None
        decision = self._decide(found, running=await self._running(found))
        if decision.way is Way.JOIN:
            await self.join(context, found, 0, wanted)  # its stored events, or the run live
            return
        task = await self._go_on(found, decision, caller=True)
        try:
            await self.join(context, found, 0, wanted, watch=task)
        finally:
            if not found.durable and not task.done():
                task.cancel()  # the retry of a CANCEL call left, as its first caller did

    async def _running(self, record: RunRecord) -> bool:
        """Whether some replica runs ``record``'s run now: this one holds its thread for it (which it
        does before the run's events start, its twin's join wakes on), or :meth:`Records.alive`."""
        handle = self.runs.active(record.thread_id)
        return (handle is not None and handle.run_id == record.run_id) or await self.records.alive(record)

    # -- a sweep ------------------------------------------------------------------------
    async def take_orphan(self, record: RunRecord) -> asyncio.Task[None] | bool:
        """Act on an orphan (an active run whose replica is gone): the task continuing it here,
        True when it was closed, False when it was left (another replica's to take)."""
        decision = self._decide(record, caller=False)
        if decision.way is Way.CLOSE:
            closed = await self.records.store.aupdate(record.run_id, record.attempts, status="CANCELLED", ended_at=now())
            if closed:
                await self._thread_ended(record, "CANCELLED", None)
            return closed
        owner = owner_of(record.thread_id, record.graph)
        if decision.way is Way.JOIN or record.graph not in self.graphs or owner is None:
            return False  # a graph this replica does not serve: left to one that does
        if decision.way is Way.TAKE:  # it will be continued (not given up): say so before waiting for its thread
            if not await self.records.store.aupdate(record.run_id, record.attempts, status="RECOVERING"):
                return False  # another replica claimed it since it was read
            record.status = "RECOVERING"
        tenant, thread_id = owner
        log.info("run %s on thread %r: its replica %s is gone; continuing it (attempt %d)", record.run_id, thread_id,
                 record.replica, record.attempts + 1)  # fmt: skip
        token = TENANT.set(tenant)  # the run's tasks are the tenant's (its store, its hub watchers)
        try:
            return await self._go_on(record, decision, caller=False)
        finally:
            TENANT.reset(token)

    # -- going on -----------------------------------------------------------------------
    async def _go_on(self, record: RunRecord, decision: Decision, *, caller: bool) -> asyncio.Task[None]:
        """Run ``record`` on from where it stopped (TAKE), or end it (GIVE_UP), in a task of its own."""
        if decision.way is Way.GIVE_UP:
            return asyncio.get_running_loop().create_task(self._end(record, decision.why))
        run = self.parse(_REQUESTS[record.call].FromString(record.request))
        return self.detach(run, record, self._continued(run, record, caller))

    def _continued(self, run: RunCall, record: RunRecord, caller: bool) -> RunEvents:
        """The events of ``record``'s run going on, decided once it holds the thread."""

        async def events(run_id: str, lease: Lease | None, landing: Landing) -> AsyncIterator[ev.Event]:
            decision = self._decide(record, caller=caller, thread=await thread_seen(run.entry.graph, record))
            if decision.way is Way.REFUSE:
                _, claimed = claim_of(record, self.records.replica, lease.epoch if lease is not None else None)
                await self._end(claimed, decision.why)  # the stream claimed it so: ended under its attempt
                return
            assert decision.way in (Way.RUN_ON, Way.RUN_AGAIN), decision
            start = const(None, run.on_newest()) if decision.way is Way.RUN_ON else await prepare(run)
            async for e in events_of(run, start)(run_id, lease, landing):
                yield e

        return events

    async def _end(self, record: RunRecord, why: str) -> None:
        """End ``record``'s run ERROR with a RecoveryError saying ``why``: its RunFinished after its last
        event, the thread's newest version its checkpoint (unless another replica took it meanwhile)."""
        state = await newest_state(self.graphs[record.graph].graph, record.caller_thread, run_ids=True)
        ref = conv.snapshot(state).checkpoint if state.config else None
        error = pb.ErrorInfo(type="RecoveryError", message=why)
        final = pb.RunEvent(seq=record.last_seq + 1, run_id=record.run_id,
                            run_finished=pb.RunFinished(reason=pb.FINISH_REASON_ERROR, checkpoint=ref, error=error))  # fmt: skip
        data = final.SerializeToString()
        await self.records.store.afinish(
            record.run_id, record.attempts, record, [(final.seq, data)], status="ERROR", ended_at=now(), finished=data,
            last_seq=final.seq, checkpoint_id=ref.checkpoint_id if ref is not None else None,
        )  # fmt: skip
        await self._thread_ended(record, "ERROR", final)

    async def _thread_ended(self, record: RunRecord, status: str, final: pb.RunEvent | None) -> None:
        """Thread record hook (issue 33): ``record``'s run was ended here, not by its stream; its
        thread's status follows unless another run has started on it since (that run's own)."""
        if self.threads is None or any(r.run_id != record.run_id for r in await self.records.store.aactive(record.thread_id)):
            return
        await self.threads.ended(record, status, final)

    # -- twins --------------------------------------------------------------------------
    async def twin(self, key: str, request_id: str) -> RunRecord | Literal["busy", "free"]:
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
