"""A run's stream: the run, inside its thread's slot, and the caller's reader, apart.

Each Invoke, Resume or Fork call is two tasks:

* the **run** (:meth:`Streams._run`): takes the thread's slot (and lease),
  runs the engine in a task of its own (the one ``CancelRun`` cancels), turns
  each engine event into its wire message and puts it in the call's
  :class:`~server._outbox.Outbox`, and lets the thread go as soon as the
  engine is done, whatever the reader does;
* the **reader's side** (the handler): sends what the outbox holds as fast as
  the caller reads, and ends the call with the run's outcome.

A caller that reads slowly costs at most the outbox's budget
(``max_unsent_bytes``); one that falls further behind gets RESOURCE_EXHAUSTED
and its run is cancelled, as a caller that disconnects. Between the engine
and the outbox events wait in a :class:`~server._transit.Transit`, and for a
run that keeps its events, in its event log until stored: both are bounded,
and a node that writes faster than they empty waits (see
:mod:`server._transit` and :mod:`engine.pregel._queue`). Why the run is cut
at the budget rather than paused: a paused run would hold its thread, its
lease and its node's thread for as long as its caller does not read, up to
its deadline, and the conversation's next turn could not run; the run waits
only for the server and the database, never for the reader. A caller that
disconnects (or whose deadline passes) cancels its run, if it still runs,
unless the call asked for ``on_disconnect = CONTINUE`` or ``background``:
then the run goes on without it (``background`` ends the call right after
RunStarted).

Each run is recorded (:mod:`server._records`): its record is written once it
holds its thread and again before its RunFinished goes out; a run that keeps
its events sends each one only once it is stored. A run continued after its
replica died (:mod:`server._recovery`) goes through :meth:`Streams.run_detached`
with its claimed record: no caller, its seq going on from the last stored one.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import uuid
from typing import Any, AsyncIterator, Callable

import grpc

from engine import events as ev
from engine.host import Landing, LastWrite, RunRecord
from engine.checkpoint.base import Lease
from graphwire_proto.v1 import graphwire_pb2 as pb
from server import _convert as conv
from server import _telemetry as telemetry
from server._errors import RpcError
from server._hub import RunHub
from server._malloc import TRIM_AFTER_BYTES, Trimmer, glibc_trim
from server._outbox import Outbox
from server._reads import thread_key
from server._eventlog import EventLog
from server._final_values import stored_event, stored_final, stored_values
from server._records import Call, Duplicate, Records, now, status_of
from server._requests import config
from server._registry import GraphEntry
from server._replace import TurnKeeper
from server._runs import Abandoned, RunHandle, RunManager
from server._thread_book import ThreadBook
from server._transit import DONE, StoreLag, Transit
from server._turns import ENQUEUE, Turn

__all__ = ["NAMED_RUN", "Streams"]

log = logging.getLogger("graphwire.server")
#: The id a run the server starts by itself is given, named before it started (a delayed run's, told to its
#: caller when it was asked for: server._delayed_starter sets it around the run's call); unset: a new one.
NAMED_RUN: contextvars.ContextVar[str | None] = contextvars.ContextVar("graphwire_named_run", default=None)

# What the engine runs: events of one run, given its id, its lease and what it tells of its version writes.
RunEvents = Callable[[str, Lease | None, Landing], AsyncIterator[ev.Event]]


class Streams:
    """Runs whose events stream to their callers, each caller at its own pace."""

    def __init__(
        self,
        runs: RunManager,
        hub: RunHub,
        records: Records,
        turns: TurnKeeper,
        *,
        max_response_bytes: int,
        max_unsent_bytes: int,
        threads: ThreadBook | None = None,
    ) -> None:
        self.runs = runs
        self.threads = threads  # thread records: marked busy at a run's start, and at its end (server._thread_book)
        # the marks ride with the run record's writes when its store writes the thread records too,
        # and a run's end lets go of its lease in the same write when the store keeps those leases
        self.joint = threads is not None and threads.rides_with(records.store)
        self.releases = runs.leases is not None and records.store.leases is not None and records.store.leases is runs.leases.store
        self.fuses = self.joint and self.releases  # a run's start: its lease, record and mark in one write
        # a run's end: its last versions (the engine hands them over, engine/pregel/_landing.py) in its end's write
        self.ends_with_versions = bool(getattr(records.store, "stores_last_versions", False))
        self.hub = hub
        self.records = records
        self.turns = turns  # replaces a running run (INTERRUPT, ROLLBACK); makes the chat-safe checks
        self.detached: set[asyncio.Task[None]] = set()  # runs going on without their caller
        self.max_response_bytes = max_response_bytes
        self.max_unsent_bytes = max_unsent_bytes
        self.calls: dict[str, Outbox] = {}  # run id → the outbox of its call, while the call lasts
        self.peak_unsent = 0  # the most bytes that waited for one reader, over every call so far
        self.trimmer = Trimmer(glibc_trim())

    async def serve(
        self,
        context: grpc.aio.ServicerContext,
        entry: GraphEntry,
        thread_id: str,
        turn: Turn,
        wanted: frozenset[type] | None,
        start: RunEvents,
        call: Call,
    ) -> None:
        """Run ``start``'s events on the thread and send them to the caller; raise how the call ends."""
        run_id = NAMED_RUN.get() or str(uuid.uuid4())
        outbox = Outbox(self.max_unsent_bytes, f"run {run_id} on thread {thread_id!r}")
        # The run joins the caller's trace (server._calls entered it): its
        # span's parent is the span named by the request's traceparent metadata.
        run_ctx = contextvars.copy_context()
        run = asyncio.get_running_loop().create_task(
            self._run(outbox, entry, thread_id, run_id, turn, wanted, start, run_ctx, call, None)
        )
        # A run named before its call (a delayed run's) may be started twice at once (its row claimed again
        # while its first start goes on); the second call joins the first's run: the first's outbox stays.
        self.calls.setdefault(run_id, outbox)
        try:
            await outbox.send(context)
        finally:
            if not run.done() and call.continues:
                outbox.detach(drop=True)  # the run goes on; JoinRun reads what it says from here
                self.detached.add(run)
                run.add_done_callback(self.detached.discard)
                if outbox.peak >= TRIM_AFTER_BYTES:  # what it goes on to hold is freed when it ends, not now
                    run.add_done_callback(lambda _: self.trimmer.soon())
            else:
                if not run.done():
                    run.cancel()  # the caller left, or fell behind: as a disconnect
                await asyncio.gather(run, return_exceptions=True)
            if self.calls.get(run_id) is outbox:
                del self.calls[run_id]
            self.peak_unsent = max(self.peak_unsent, outbox.peak)
            if outbox.peak >= TRIM_AFTER_BYTES:
                self.trimmer.soon()  # the pages its events took are free now: back to the system

    def run_detached(self, entry: GraphEntry, thread_id: str, record: RunRecord, start: RunEvents, call: Call) -> asyncio.Task[None]:
        """Continue ``record``'s run with no caller: once it holds the thread, this replica claims it
        (one more attempt, if no other replica claimed it first) and runs ``start``."""
        outbox = Outbox(self.max_unsent_bytes, f"run {record.run_id} on thread {thread_id!r}")
        outbox.detach()
        run = asyncio.get_running_loop().create_task(
            self._run(outbox, entry, thread_id, record.run_id, ENQUEUE, None, start, contextvars.copy_context(), call, record)
        )
        self.detached.add(run)
        run.add_done_callback(self.detached.discard)
        return run

    async def _run(
        self,
        outbox: Outbox,
        entry: GraphEntry,
        thread_id: str,
        run_id: str,
        turn: Turn,
        wanted: frozenset[type] | None,
        start: RunEvents,
        run_ctx: contextvars.Context,
        call: Call,
        orphan: RunRecord | None,
    ) -> None:
        key = thread_key(entry.name, thread_id)
        seen = self.hub.track(entry.name, thread_id, run_id)
        failed: BaseException | None = None
        started: list[RunRecord | None] = []  # the fused start wrote the record: [None], or found the retry's first: [it]
        take = None
        if self.fuses and self.threads is not None and orphan is None and not turn.replaces and not turn.checks:
            # Nothing to do between taking the thread and recording the run: one write for both.
            fused = self.records.new(run_id, key, entry.name, thread_id, call, None)
            mark = self.threads.busy_mark(entry.name, key, call.expected)

            async def take(owner: str, ttl: float) -> Lease | None:
                lease, first = await self.records.store.astart_taking(fused, owner, ttl, mark=mark)
                if lease is not None:
                    fused.epoch = lease.epoch
                    started.append(first)
                return lease

        try:
            replaced = await self.turns.cancel_running(key, thread_id) if turn.replaces else None
            async with self.runs.slot(key, thread_id, run_id, enqueue=turn.waits, take=take) as handle:
                if replaced is not None and turn.strategy == "rollback":
                    await self.turns.roll_back(replaced)
                await self.turns.check(entry, thread_id, turn)  # a refusal: no record, nothing written
                if started:
                    if started[0] is not None:  # the call is a retry: nothing of this run was written, or sent
                        raise Duplicate(started[0])
                    record = fused
                else:
                    record = await self._begin(handle, entry, key, thread_id, run_id, call, orphan, replaced)
                if replaced is not None:
                    await self.turns.link(replaced, run_id)
                try:
                    await self._events(outbox, handle, entry, key, wanted, start, seen, run_ctx, call, record, orphan is not None)
                except BaseException as exc:
                    if record.ended_at is None and not isinstance(exc, Abandoned):  # before the slot goes: a retry sees it ended
                        status = "CANCELLED" if isinstance(exc, asyncio.CancelledError) else "ERROR"
                        await asyncio.shield(self._end(record, status, None))
                    raise
        except BaseException as exc:  # incl. cancellation: the reader's side ends the call with it
            failed = exc
            if not isinstance(exc, Exception):
                raise
        finally:
            # The thread is free: from here on only the reader is waited for.
            seen.close(failed if failed is not None else (asyncio.CancelledError() if outbox.overflowed else None))
            outbox.close(failed)

    async def _begin(
        self,
        handle: RunHandle,
        entry: GraphEntry,
        key: str,
        thread_id: str,
        run_id: str,
        call: Call,
        orphan: RunRecord | None,
        replaced: RunRecord | None = None,
    ) -> RunRecord:
        """The run's record, now that it holds the thread: a new one (``replaced``: the run it
        cancelled, named in its ``replaces``), or ``orphan`` claimed.

        A claim is one more attempt under this replica and this lease's epoch,
        written only if the attempt count is still the one read (no other
        replica claimed it first; then this one stops: ABORTED).
        """
        epoch = handle.lease.epoch if handle.lease is not None else None
        if orphan is not None:
            claimed = await self.records.claim(orphan, epoch)
            if claimed is None:
                raise RpcError(grpc.StatusCode.ABORTED, f"run {run_id} was taken over by another replica")
            if self.threads is not None:  # thread record hook (issue 33)
                await self.threads.busy(entry.name, key)
            return claimed
        record = self.records.new(run_id, key, entry.name, thread_id, call, epoch)
        record.replaces = replaced.run_id if replaced is not None else None
        mark = self.threads.busy_mark(entry.name, key, call.expected) if self.joint and self.threads is not None else None
        first = await self.records.store.astart(record, mark=mark)  # before the engine starts: before the run writes anything
        if first is not None:  # the call is a retry: nothing of this run was written, or sent
            raise Duplicate(first)
        if self.threads is not None and mark is None:  # thread record hook (issue 33)
            await self.threads.busy(entry.name, key)
        return record

    async def _end(
        self, record: RunRecord, status: str, final: pb.RunEvent | None, events: EventLog | None = None, lease: Lease | None = None, versions: LastWrite | None = None
    ) -> None:
        """Write the run's end to its record (unless another replica took the run over meanwhile),
        with the events that wait to be stored (``events``) and ``final``, when given, and its thread's
        mark. ``lease``: the run's, let go of in the same write (the engine is done writing: it sent
        RunFinished), when the record's store keeps the leases; else the slot's end releases it.
        ``versions``: the run's last write, which the engine left to this write (its failure is the run's)."""
        if lease is not None and self.releases and self.runs.leases is not None:
            await self.runs.leases.stop_renewing(lease)
        else:
            lease = None
        changes: dict[str, Any] = {"status": status, "ended_at": now(), "last_seq": record.last_seq}
        if final is not None:
            changes["finished"] = final.SerializeToString()
            changes["checkpoint_id"] = final.run_finished.checkpoint.checkpoint_id or None
            changes["last_seq"] = final.seq
        if record.started is not None:
            changes["started"] = record.started
        mark = self.threads.ended_mark(record, status, final) if self.joint and self.threads is not None else None
        if events is not None and final is not None:
            await events.finish(final, mark=mark, release=lease, versions=versions, **changes)  # a failure fails the run: its end was not stored
        elif versions is not None:
            await self.records.store.aupdate(record.run_id, record.attempts, mark=mark, release=lease, versions=versions, **changes)
        else:
            try:
                await self.records.store.aupdate(record.run_id, record.attempts, mark=mark, release=lease, **changes)
            except Exception:  # noqa: BLE001 - the run's own outcome stands; its record stays RUNNING until recovered
                log.exception("run %s: its record could not be ended", record.run_id)
                return
        if lease is not None and self.runs.leases is not None:
            self.runs.leases.released(lease)
        record.status, record.ended_at = status, changes["ended_at"]
        if self.threads is not None and mark is None:  # thread record hook (issue 33)
            await self.threads.ended(record, status, final)

    async def _events(
        self,
        outbox: Outbox,
        handle: RunHandle,
        entry: GraphEntry,
        key: str,
        wanted: frozenset[type] | None,
        start: RunEvents,
        seen: Any,
        run_ctx: contextvars.Context,
        call: Call,
        record: RunRecord,
        again: bool,
    ) -> None:
        transit = Transit()
        run_id = record.run_id
        landing = Landing(takes_last=self.ends_with_versions)  # its stored versions (events naming one wait for it), its last write
        task = asyncio.get_running_loop().create_task(transit.pump(start(run_id, handle.lease, landing)), context=run_ctx)
        handle.task = task
        handle.durable = record.durable
        background = bool(getattr(call.request, "background", False))
        cut: list[bool] = []  # the caller fell behind, and the run goes with it

        def forward(msg: pb.RunEvent, size: int, metadata: Any) -> None:
            if not outbox.put(msg, size=size, metadata=metadata) and not call.continues and not cut:
                cut.append(True)
                log.warning(
                    "run %s on thread %r: its caller fell behind by more than max_unsent_bytes (%d); "
                    "the call ends RESOURCE_EXHAUSTED and the run is cancelled",
                    run_id, key, outbox.budget,
                )
                task.cancel()  # as the caller's disconnect would
            elif background and msg.HasField("run_started"):
                outbox.detach()  # the call ends here; the run goes on

        lag = StoreLag(outbox.budget, lambda: events.failed if events is not None else None)

        def stored(msg: pb.RunEvent, size: int, metadata: Any) -> None:
            lag.stored(size)
            forward(msg, size, metadata)

        events = EventLog(self.records, record, stored, landing) if record.keeps_events else None
        seen.landing = landing  # the inspector's watchers are told of a version once it is stored

        def landed() -> None:
            seen.landed()
            if events is not None:
                events.landed()

        landing.notify = landed
        # A step's values event waits for the event after it, its step's version when there is one, with
        # which it is stored naming that version instead of holding the state again (server._final_values).
        held: tuple[pb.RunEvent, int, Any, ev.ValuesEvent] | None = None

        async def keep(msg: pb.RunEvent, size: int, metadata: Any, stored_as: tuple[bytes, str] | None) -> None:
            assert events is not None
            await lag.room(size, lambda: outbox.unsent, transit)  # the store is behind: the run waits for it
            lag.added(size)
            events.add(msg, size, metadata, stored_as)  # (naming a version: stored once that version is)

        seq = record.last_seq
        last_saved: ev.CheckpointSaved | None = None
        interrupt_nodes: dict[str, tuple[str, str]] = {}
        finished = False
        try:
            while True:
                item = await transit.get()
                if held is not None:
                    await keep(*held[:3], stored_values(held[0], held[3], item))
                    held = None
                if item is DONE:
                    break
                if events is not None and events.failed is not None:
                    raise events.failed  # the run's events could not be stored: as a failed checkpoint write
                if isinstance(item, BaseException):
                    if handle.lost is not None:
                        raise handle.lost
                    if isinstance(item, asyncio.CancelledError):
                        if finished:
                            break  # the engine ended the run (RunFinished CANCELLED, sent); its cancellation goes on
                        raise RpcError(grpc.StatusCode.CANCELLED, "the run was cancelled before it started")
                    raise item  # a storage failure (CheckpointError): the status says how
                if isinstance(item, ev.RunFinished) and item.reason == "CANCELLED" and handle.lost is not None:
                    raise handle.lost  # cancelled because the lease went to another replica
                seen(item)
                if isinstance(item, ev.CheckpointSaved) and not item.ns:
                    last_saved = item  # the run's own, not a subgraph's
                elif isinstance(item, ev.InterruptEvent) and not item.ns:
                    interrupt_nodes[item.interrupt_id] = (item.node, item.task_id)
                elif isinstance(item, ev.RunFinished):
                    finished = True
                    seq += 1
                    if landing.last is not None and (last_saved is None or item.checkpoint_id != last_saved.checkpoint_id):
                        await landing.last.astore()  # _finished reads the version
                    final = await self._finished(entry, record.caller_thread, item, last_saved, interrupt_nodes, seq, run_id)
                    # Kept without a copy of the state when its values are its last version's (server._final_values).
                    ending = stored_final(final, item, last_saved)
                    await self._end(record, status_of(item.reason), ending, events, handle.lease, landing.last)
                    record.last_seq = seq
                    outbox.put(final, last=True)
                    continue
                if wanted is not None and type(item) not in wanted:
                    continue
                if again and isinstance(item, ev.RunStarted):
                    continue  # a continued run started once, in its first attempt
                msg = conv.run_event(item)
                metadata = None
                if isinstance(item, ev.RunStarted):
                    msg.run_started.graph = entry.name  # the name the server serves it under
                    if item.trace_id:
                        metadata = ((telemetry.TRACE_ID_HEADER, item.trace_id),)
                seq += 1
                msg.seq = seq
                msg.run_id = run_id
                size = msg.ByteSize()
                if size > self.max_response_bytes:
                    # Sending it would fail the call, and with it the run.
                    log.warning(
                        "run %s on thread %r: event %d (%s) takes %d bytes, more than one message may; left out",
                        run_id, key, seq, msg.WhichOneof("event"), size,
                    )
                    continue
                if isinstance(item, ev.RunStarted) and events is not None:
                    record.started = msg.SerializeToString()  # its record replays it once its events expired
                if events is not None and type(item) is ev.ValuesEvent and not item.ns:
                    held = (msg, size, metadata, item)
                elif events is not None:
                    await keep(msg, size, metadata, stored_event(msg, item, last_saved))
                else:
                    record.last_seq = seq
                    forward(msg, size, metadata)
                if cut:
                    break
        finally:
            transit.close()  # nothing takes them now; frames an exception keeps must not keep them
            if not task.done():
                task.cancel()
            try:
                await asyncio.gather(task, return_exceptions=True)
                last = landing.take_last()
                if last is not None:  # the run ended, and its end's write did not try its last write: stored as the run would
                    await asyncio.shield(_store_alone(last, run_id))
            finally:  # also when the call's end cancels this wait
                landing.notify = None  # (its callback holds the log and the tracker, which hold it)
                if events is not None:
                    await events.close()
                    # Its callback and the lag's check hold each other (and, through them, the call's outbox and
                    # events): let go here, the call's objects are freed now rather than at a collection.
                    events = None
                if lag.peak >= TRIM_AFTER_BYTES:
                    self.trimmer.soon()

    async def _finished(
        self,
        entry: GraphEntry,
        thread_id: str,
        final: ev.RunFinished,
        last_saved: ev.CheckpointSaved | None,
        interrupt_nodes: dict[str, tuple[str, str]],
        seq: int,
        run_id: str,
    ) -> pb.RunEvent:
        ref = None
        if last_saved is not None and final.checkpoint_id == last_saved.checkpoint_id:
            s = last_saved
            ref = conv.checkpoint_ref(s.checkpoint_id, s.parent_id, s.step, s.source, s.next, s.created_at)
        elif final.checkpoint_id:
            ref = conv.snapshot(await entry.graph.aget_state(config(thread_id, final.checkpoint_id), run_ids=True)).checkpoint
        msg = conv.run_event(final, ref, interrupt_nodes)
        msg.seq = seq
        msg.run_id = run_id
        if msg.ByteSize() > self.max_response_bytes:
            # The run is over and its versions are stored: the caller gets the
            # ending without the state rather than an error for a run that ran.
            log.warning(
                "run %s on thread %r: its final state takes %d bytes as JSON, more than one message may; "
                "RunFinished is sent without values",
                run_id, thread_id, len(msg.run_finished.values_json.encode()),
            )
            msg.run_finished.ClearField("values_json")
        return msg


async def _store_alone(last: LastWrite, run_id: str) -> None:
    """A run's last write that its end's write did not take (the call ended first): stored as the run
    would have stored it; a failure is logged (the run's end, if recorded at all, records the failure)."""
    try:
        await last.astore()
    except Exception:  # noqa: BLE001 - nothing is left to tell: the run is over
        log.exception("run %s: its last versions could not be stored", run_id)
