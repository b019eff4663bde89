"""Durable turns, the server's side of them: each run's record, and the events it keeps.

Every run (Invoke, Resume, Fork) and every UpdateState gets a record in the
checkpointer's database (:mod:`engine.checkpoint._runs`): written when the
run takes its thread (RUNNING, this replica, attempt 1) and when it ends
(its status, final checkpoint and RunFinished), before the thread is let go
and before the caller hears the end, so a retry or a GetRun after it sees
the outcome.

A run with a ``request_id``, ``on_disconnect = CONTINUE`` or ``background``
also *keeps its events*: each goes to the database before it goes to the
caller (:mod:`server._eventlog`: whatever every run of the replica has to
store goes in one write, and what comes while it is in flight in the next). So a stored event is
exactly a sent one, ``JoinRun`` reads them by seq from any replica with no
gap and no repeat, and a replica continuing the run after its first one died
goes on from the last stored seq, above anything a caller saw.

A ``request_id`` answers its retries for the retention window after its run
*ended* (:func:`server._going_on.request_expired`): a run longer than the
window keeps its id while it runs, and a retry right after its end is still a retry.

The other parts: :func:`fingerprint` (what a retry's request must equal),
:func:`call_json` (the call's label for the inspector), :func:`status_of`
(a finish reason's status), :func:`outcome_of` (a run's end as listings read it).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf.message import DecodeError

from engine.checkpoint.base import BaseCheckpointSaver
from engine.host import Expected, MemoryRuns, RunRecord, RunStore, runs_of
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._errors import RpcError
from server._going_on import claim_of, request_expired
from server._eventlog import EventWriter
from server._leases import replica_id

if TYPE_CHECKING:
    from server._leases import ThreadLeases
    from server.config import ServerConfig

__all__ = [
    "Call", "Duplicate", "Records", "call_json", "fingerprint", "now", "open_run_store", "outcome_of", "records_for", "status_of",
]  # fmt: skip

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


def outcome_of(finished: bytes) -> bytes:
    """A run's RunFinished as a listing reads it (the record's ``outcome``): without the final state,
    which GetRun (and ListRuns with ``include_values``) reads from the whole event. Bytes that are
    no event (none of ours) are kept whole: a run's end is stored whatever it carries."""
    try:
        event = pb.RunEvent.FromString(finished)
    except DecodeError:
        return finished
    if not event.run_finished.values_json:
        return finished  # nothing to leave out
    event.run_finished.ClearField("values_json")
    outline: bytes = event.SerializeToString()
    return outline


def open_run_store(saver: BaseCheckpointSaver) -> RunStore:
    """The run store of ``saver`` (its own tables on SQLite and PostgreSQL, else this process's
    memory: :func:`engine.host.runs_of`), keeping each run's :func:`outcome_of` for listings."""
    return runs_of(saver).outlined(outcome_of)


def records_for(saver: BaseCheckpointSaver, leases: ThreadLeases | None, config: ServerConfig) -> Records:
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
    """A call that starts a run, as its record keeps it. ``expected``: what a caller in this process
    (LangGraph's HTTP API) expects of the thread's record, checked by the run's start (not kept).
    ``keeps_request``: the record keeps the request even when the run is never run again (LangGraph's
    HTTP API shows a run's assistant, metadata, strategy and arguments from it)."""

    request: Any
    expected: Expected | None = None
    keeps_request: bool = False

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
        retention: how long after its run ended a request_id answers its retries, and its events stay.
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
        self.writer = EventWriter(store)  # stores the events of this replica's runs (server._eventlog)

    def new(self, run_id: str, key: str, graph: str, thread_id: str, call: Call, epoch: int | None) -> RunRecord:
        r = call.request
        return RunRecord(
            run_id, key, graph, thread_id, call.name, "RUNNING", self.replica, now(),
            request_id=call.request_id, fingerprint=fingerprint(r) if call.request_id else None,
            # the call as it can be run again (only a retried or continued run ever is), or shown (keeps_request)
            request=r.SerializeToString(deterministic=True) if call.keeps_events or call.keeps_request else b"",
            call_json=call_json(r), epoch=epoch,
            durable=call.continues, keeps_events=call.keeps_events,
            on_disconnect=int(getattr(r, "on_disconnect", 0)), background=bool(getattr(r, "background", False)),
        )  # fmt: skip

    async def find(self, key: str, request_id: str) -> RunRecord | None:
        """The run started on thread ``key`` with ``request_id``, unless its id expired (:func:`request_expired`)."""
        found = await self.store.afind(key, request_id)
        if found is None:
            return None
        if request_expired(found, now(), self.retention):
            # Past its window: the id is free again (the record stays, without it).
            await self.store.aupdate(found.run_id, found.attempts, request_id=None)
            return None
        return found

    async def current(self, first: RunRecord) -> RunRecord | None:
        """The run ``first``'s request_id names now: ``first``, unless the id expired since
        (then it was freed, and a run started since may hold it)."""
        if not request_expired(first, now(), self.retention):
            return first
        return await self.find(first.thread_id, first.request_id or "")

    @staticmethod
    def same_call(found: RunRecord, call: Call) -> None:
        """INVALID_ARGUMENT unless ``call`` is a retry of the call that started ``found`` (its fingerprint)."""
        if found.fingerprint != fingerprint(call.request):
            raise RpcError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"request_id: {call.request_id!r} was used by a different request (run {found.run_id}); "
                "a retry must send the same request",
            )

    async def claim(self, found: RunRecord, epoch: int | None) -> RunRecord | None:
        """Take ``found``'s run over for one more attempt, here, under lease ``epoch`` (holding its
        thread): the record as claimed, or None when another replica claimed it first."""
        changes, claimed = claim_of(found, self.replica, epoch)
        if not await self.store.aupdate(found.run_id, found.attempts, **changes):
            return None
        return claimed

    def forget_thread(self, key: str) -> None:
        """Thread ``key`` was deleted: its runs go with it (a SQL store's rows went with the thread's)."""
        if isinstance(self.store, MemoryRuns):
            self.store.forget_thread(key)

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
            async with asyncio.timeout(POLL_SECONDS * 5):  # not wait_for: a joiner's cancellation must not be lost (server._leases)
                await event.wait()
        except TimeoutError:
            pass
