"""Durable turns, the server's side of them: each run's record, and the events it keeps.

Every run (Invoke, Resume, Fork) and every UpdateState gets a record in the
checkpointer's database (:mod:`engine.checkpoint._runs`): written when the
run takes its thread (RUNNING, this replica, attempt 1) and when it ends
(its status, final checkpoint and RunFinished), before the thread is let go
and before the caller hears the end, so a retry or a GetRun after it sees
the outcome.

A run with a ``request_id``, ``on_disconnect = CONTINUE`` or ``background``
also *keeps its events*: each goes to the database before it goes to the
caller (:class:`EventLog`, which writes whatever accumulated while the
previous write was in flight, in one statement). So a stored event is
exactly a sent one, ``JoinRun`` reads them by seq from any replica with no
gap and no repeat, and a replica continuing the run after its first one died
goes on from the last stored seq, above anything a caller saw.

The other parts: :func:`fingerprint` (what a retry's request must equal),
:func:`call_json` (the call's label for the inspector), :func:`status_of`
(a finish reason's status).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from engine.checkpoint._runs import ACTIVE, MemoryRuns, RunRecord, RunStore
import grpc

from graphwire_proto.v1 import graphwire_pb2 as pb
from server._errors import RpcError
from server._leases import replica_id

__all__ = ["Call", "Duplicate", "EventLog", "Records", "call_json", "fingerprint", "now", "open_run_store", "records_for", "status_of"]

log = logging.getLogger("graphwire.server")

DEFAULT_RETENTION = timedelta(hours=24)
DEFAULT_MAX_ATTEMPTS = 3
#: How often a joiner on another replica looks for new events (a local run wakes it at once).
POLL_SECONDS = 0.2
_LABEL_CHARS = 200

_STATUS = {"END": "SUCCESS", "INTERRUPT": "INTERRUPTED", "ERROR": "ERROR", "RECURSION_LIMIT": "ERROR", "CANCELLED": "CANCELLED"}
_CALLS = {pb.InvokeRequest: "Invoke", pb.ResumeRequest: "Resume", pb.ForkRequest: "Fork", pb.UpdateStateRequest: "UpdateState"}


def now() -> datetime:
    return datetime.now(timezone.utc)


def status_of(reason: str) -> str:
    """A run's status from its engine finish reason ("END" → "SUCCESS", ...)."""
    return _STATUS[reason]


def open_run_store(saver: Any) -> RunStore:
    """The run store on ``saver``'s database: its tables on SQLite and PostgreSQL, else this process's memory."""
    from engine.checkpoint import SqliteSaver

    if isinstance(saver, SqliteSaver):
        from engine.checkpoint.sqlite._runs import SqliteRuns

        return SqliteRuns(saver)
    try:
        from engine.checkpoint.postgres import PostgresSaver
    except ImportError:  # pragma: no cover - a build without psycopg
        PostgresSaver = None  # type: ignore[assignment,misc]  # noqa: N806
    if PostgresSaver is not None and isinstance(saver, PostgresSaver):
        from engine.checkpoint.postgres._runs import PostgresRuns

        return PostgresRuns(saver)
    return MemoryRuns()


def records_for(saver: Any, leases: Any, config: Any) -> Records:
    """The records of a server on ``saver`` (``leases``: its ThreadLeases, or None), as ``config`` sets them."""
    alive = None
    if leases is not None:

        async def alive(record: RunRecord) -> bool:  # the run's replica still holds its thread's live lease
            holder = await leases.store.alease_holder(record.thread_id)
            return holder is not None and holder.owner == record.replica

    return Records(
        open_run_store(saver), leases.owner if leases is not None else replica_id(),
        retention=timedelta(seconds=config.run_retention_seconds), max_attempts=config.max_run_attempts, alive_elsewhere=alive,
    )  # fmt: skip


def fingerprint(request: Any) -> bytes:
    """What identifies a call for its retries: the request without its ``request_id``, hashed."""
    copy = type(request)()
    copy.CopyFrom(request)
    copy.ClearField("request_id")
    return hashlib.sha256(type(request).__name__.encode() + b"\0" + copy.SerializeToString(deterministic=True)).digest()


def _short(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= _LABEL_CHARS else value[:_LABEL_CHARS] + "…"
    if isinstance(value, list):
        return [_short(v) for v in value]
    if isinstance(value, dict):
        return {k: _short(v) for k, v in value.items()}
    return value


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return text


def call_json(request: Any) -> str:
    """The call's label (``RunInfo.call_json``): what it asked, its long strings cut."""
    out: dict[str, Any] = {}
    if isinstance(request, pb.InvokeRequest):
        out["input"] = _json_or_text(request.input_json)
        if request.HasField("checkpoint_id"):
            out["checkpoint_id"] = request.checkpoint_id
    elif isinstance(request, pb.ResumeRequest):
        if request.resumes_json:
            out["resumes"] = {k: _json_or_text(v) for k, v in request.resumes_json.items()}
        else:
            out["resume"] = _json_or_text(request.resume_json)
    elif isinstance(request, pb.ForkRequest):
        out["checkpoint_id"] = request.checkpoint_id
        if request.update_json:
            out["update"] = _json_or_text(request.update_json)
    elif isinstance(request, pb.UpdateStateRequest):
        if request.HasField("checkpoint_id"):
            out["checkpoint_id"] = request.checkpoint_id
        out["update"] = _json_or_text(request.values_json)
    return json.dumps(_short(out), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Call:
    """A call that starts a run, as its record keeps it."""

    request: Any

    @property
    def name(self) -> str:
        return _CALLS[type(self.request)]

    @property
    def request_id(self) -> str | None:
        return self.request.request_id or None

    @property
    def continues(self) -> bool:
        """The run goes on without its caller (and is continued by another replica when this one dies)."""
        r = self.request
        return bool(getattr(r, "background", False)) or getattr(r, "on_disconnect", 0) == pb.ON_DISCONNECT_CONTINUE

    @property
    def keeps_events(self) -> bool:
        return self.continues or self.request_id is not None

    @property
    def looks_first(self) -> bool:
        """A retry must be found before the call starts: a Resume (its interrupt is answered once its
        first attempt ran) and a Fork with an update (written before the run starts). An Invoke or a
        plain Fork writes nothing before its record goes in, whose insert finds the first attempt."""
        r = self.request
        return isinstance(r, pb.ResumeRequest) or (isinstance(r, pb.ForkRequest) and bool(r.update_json))


class Duplicate(RpcError):
    """A run's record could not go in: its call's ``request_id`` already names ``first`` (a retry
    that missed it when it looked, or that did not look): the call answers as a retry of ``first``."""

    def __init__(self, first: RunRecord) -> None:
        super().__init__(grpc.StatusCode.ABORTED, f"request_id {first.request_id!r} already started run {first.run_id}")
        self.first = first


class Records:
    """The run records of one replica's runs, and who waits for their events.

    Args:
        store: the checkpointer's run store (:func:`open_run_store`).
        replica: this replica's id (its lease owner id with leases).
        retention: how long a request_id answers its retries, and events stay after their run ended.
        max_attempts: how many times a run is started before it ends ERROR (recovery).
        alive_elsewhere: given a record of another replica, whether that replica still runs it
            (with leases: it holds the thread's live lease); None: no other replica shares the store.
    """

    def __init__(
        self,
        store: RunStore,
        replica: str,
        *,
        retention: timedelta = DEFAULT_RETENTION,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        alive_elsewhere: Callable[[RunRecord], Any] | None = None,
    ) -> None:
        self.store = store
        self.replica = replica
        self.retention = retention
        self.max_attempts = max_attempts
        self.alive_elsewhere = alive_elsewhere
        self.local: dict[str, asyncio.Event] = {}  # run id → set at each stored batch, while the run is on this replica

    def new(self, run_id: str, key: str, graph: str, thread_id: str, call: Call, epoch: int | None) -> RunRecord:
        r = call.request
        return RunRecord(
            run_id, key, graph, thread_id, call.name, "RUNNING", self.replica, now(),
            request_id=call.request_id, fingerprint=fingerprint(r) if call.request_id else None,
            # the call as it can be run again: only a retried or continued run ever is
            request=r.SerializeToString(deterministic=True) if call.keeps_events else b"", call_json=call_json(r), epoch=epoch,
            durable=call.continues, keeps_events=call.keeps_events,
            on_disconnect=int(getattr(r, "on_disconnect", 0)), background=bool(getattr(r, "background", False)),
        )  # fmt: skip

    async def find(self, key: str, request_id: str) -> RunRecord | None:
        """The run started on thread ``key`` with ``request_id`` within the retention window."""
        found = await self.store.afind(key, request_id)
        if found is None:
            return None
        if found.started_at < now() - self.retention and found.status not in ACTIVE:
            # Past its window: the id is free again (the record stays, without it).
            await self.store.aupdate(found.run_id, found.attempts, request_id=None)
            return None
        return found

    async def alive(self, record: RunRecord) -> bool:
        """Whether some replica is running ``record``'s run now."""
        if record.replica == self.replica:
            return record.run_id in self.local
        if self.alive_elsewhere is None:
            return False  # one process per store: the one that wrote it is gone
        return bool(await self.alive_elsewhere(record))

    async def wait_events(self, run_id: str) -> None:
        """Until this replica stores more of the run's events, or the poll interval passes (another replica's run)."""
        event = self.local.get(run_id)
        if event is None:
            await asyncio.sleep(POLL_SECONDS)
            return
        try:
            await asyncio.wait_for(event.wait(), POLL_SECONDS * 5)
        except asyncio.TimeoutError:
            pass


class EventLog:
    """A run's events on their way to the database and then to the caller (``forward``).

    :meth:`add` never waits. A write starts a moment after the first event
    not yet stored (:data:`FLUSH_SECONDS`: the events of that moment go in
    one statement), and events accumulate while a write is in flight for the
    next one. ``forward(message, size, metadata)`` gets each after it is
    stored, in order. :meth:`finish` stores what waits with the run's last
    event and its record's end, in one transaction: a short run whose caller
    asked only for RunStarted and RunFinished writes once more than a run that
    keeps no events. A write that fails fails the run (:attr:`failed`), as a
    checkpoint write would: the caller must not see events a joiner could not.
    """

    FLUSH_SECONDS = 0.02
    #: How long a RunStarted alone waits for company, in a run with a caller (not a background one,
    #: whose call returns on it): a run's first and last events in one write whenever the run is
    #: shorter, at the cost of a later RunStarted for longer runs with nothing else to send.
    ALONE_SECONDS = 1.0

    def __init__(self, records: Records, record: RunRecord, forward: Callable[[Any, int, Any], None]) -> None:
        self.records = records
        self.record = record
        self.forward = forward
        self.failed: BaseException | None = None
        self._pending: list[tuple[Any, int, Any]] = []
        self._writer: asyncio.Task[None] | None = None
        self._writing = False  # the writer's statement is in flight (past its moment's wait)
        # While a RunStarted waits alone for company: the timer that writes it anyway. No task
        # runs meanwhile, so a short run (RunStarted, then its end) costs one write and no task.
        self._alone: asyncio.TimerHandle | None = None
        self._wake = records.local.setdefault(record.run_id, asyncio.Event())

    def _pending_started_alone(self) -> bool:
        r = self.record
        return not r.background and len(self._pending) == 1 and self._pending[0][0].HasField("run_started")

    def add(self, message: Any, size: int, metadata: Any) -> None:
        if self.failed is not None:
            return
        self._pending.append((message, size, metadata))
        if self._alone is not None:  # company came: they are written together, a moment later
            self._alone.cancel()
            self._alone = None
        if self._writer is None or self._writer.done():
            if self._pending_started_alone():
                self._alone = asyncio.get_running_loop().call_later(self.ALONE_SECONDS - self.FLUSH_SECONDS, self._start)
            else:
                self._start()

    def _start(self) -> None:
        self._alone = None
        self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        await asyncio.sleep(self.FLUSH_SECONDS)
        self._writing = True
        try:
            while self._pending and self.failed is None:
                batch, self._pending = self._pending, []
                try:
                    await self.records.store.aadd_events(self.record, [(m.seq, m.SerializeToString()) for m, _, _ in batch])
                except BaseException as exc:
                    self.failed = exc
                    raise
                self._sent(batch)
        finally:
            self._writing = False

    def _sent(self, batch: list[tuple[Any, int, Any]]) -> None:
        if batch:
            self.record.last_seq = batch[-1][0].seq
        for message, size, metadata in batch:
            self.forward(message, size, metadata)
        self._wake.set()
        self._wake.clear()

    async def finish(self, final: Any, **changes: Any) -> bool:
        """Store what waits, ``final`` and the record's ``changes`` together (then forward what waited,
        not ``final``: the caller's); whether the record took the changes."""
        if self._alone is not None:  # what waited alone goes with the end
            self._alone.cancel()
            self._alone = None
        writer = self._writer
        if writer is not None and not writer.done():
            if self._writing:
                await asyncio.shield(writer)
            else:  # still waiting for its moment: what it would write goes with the end
                writer.cancel()
                await asyncio.gather(writer, return_exceptions=True)
        if self.failed is not None:
            raise self.failed
        batch, self._pending = self._pending, []
        events = [(m.seq, m.SerializeToString()) for m, _, _ in batch] + [(final.seq, final.SerializeToString())]
        ok = await self.records.store.afinish(self.record.run_id, self.record.attempts, self.record, events, **changes)
        self._sent(batch)
        self.record.last_seq = final.seq
        return ok

    async def close(self) -> None:
        """The run is over here: wake its joiners a last time and stop tracking it."""
        if self._alone is not None:
            self._alone.cancel()
            self._alone = None
        if self._writer is not None and not self._writer.done():
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)
        self._wake.set()
        self._wake.clear()
        if self.records.local.get(self.record.run_id) is self._wake:
            del self.records.local[self.record.run_id]
