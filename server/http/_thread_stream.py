"""``GET /threads/{thread_id}/stream``: a thread's runs as one stream (the SDK's ``threads.join_stream``).

The stream follows the thread from when it is opened until the caller leaves: the runs going on it
then, and each run started on it after, in the order they started (a thread runs one at a time).

* ``lifecycle``: a ``metadata`` frame when a run starts (``{"run_id", "attempt"}``) and one when it has
  ended (``{"status": "run_done", "run_id"}``), as LangGraph's server sends them.
* ``run_modes`` (the default): those, and between them the run's own frames, joined as
  ``/threads/{id}/runs/{run_id}/stream`` joins them, in the ``values``, ``updates``,
  ``messages-tuple`` and ``custom`` modes (each as far as the run's events were kept: a run keeps the
  kinds of events its caller asked for). A run that keeps no events (a foreground stream or wait that
  was neither resumable nor to go on without its caller) shows its start, its final values (or its
  error) and its end.
* ``state_update`` is not served (422): graphwire's state updates are versions, read with
  ``/threads/{id}/history``.

The frames carry no ``id``: the events of several runs have no one order a ``Last-Event-ID`` could name
(a ``Last-Event-ID`` is refused with 422); a run's own stream is rejoined at ``/runs/{run_id}/stream``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime, timezone

from typing import TYPE_CHECKING

from fastapi import APIRouter, Query, Request, Response

from engine.host import ACTIVE, RunRecord
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._errors import RpcError
from server._json import encode
from server._records import POLL_SECONDS
from server._reads import thread_key
from server._run_api import join_events
from server.http._common import graph_of
from server.http._common import service as svc
from server.http._errors import HttpError, answered
from server.http._runs import settled
from server.http._streamed import Streamed
from server.http._sse import Frame, SseShaper

if TYPE_CHECKING:
    from server.service import GraphService

__all__ = ["router"]

router = APIRouter(tags=["threads"])

#: The thread stream's modes; ``run_modes`` shows each run in these of LangGraph's run modes.
MODES = ("run_modes", "lifecycle")
RUN_MODES = ("values", "updates", "messages-tuple", "custom")


def _modes(stream_mode: list[str] | None, stream_modes: str | None) -> frozenset[str]:
    """The modes asked for: ``stream_mode`` as the SDK sends it (repeated), or ``stream_modes`` comma-separated."""
    asked = [m.strip() for raw in (stream_mode or []) + ([stream_modes] if stream_modes else []) for m in raw.split(",")]
    for mode in asked:
        if mode == "state_update":
            raise HttpError(422, "stream_mode: 'state_update' is not served (a thread's updates are versions: read /history)")
        if mode not in MODES:
            raise HttpError(422, f"stream_mode: {mode!r} is not a thread stream mode (one of {', '.join(MODES)})")
    return frozenset(asked or ("run_modes",))


def _plain(frame: Frame) -> bytes:
    return Frame(frame.event, frame.data).encode()  # without the run's seq: see the module's doc


async def _ended(service: GraphService, record: RunRecord) -> RunRecord | None:
    """``record`` once its run has ended (None: its record is gone, the thread deleted)."""
    try:
        return await settled(service, record)
    except RpcError:
        return None


async def _run_frames(service: GraphService, record: RunRecord, modes: frozenset[str], thread_id: str) -> AsyncIterator[bytes]:
    """One run's part of the stream: its start, its frames (``run_modes``), its end."""
    yield _plain(SseShaper.metadata(record.run_id, record.attempts or 1))
    if "run_modes" in modes:
        shaper = SseShaper(RUN_MODES, thread_id=thread_id)
        if record.keeps_events:
            try:
                async for e in join_events(service, record.run_id):
                    for f in shaper.frames(e):
                        yield _plain(f)
            except Exception:  # noqa: BLE001 - its thread deleted, or its replica gone: its end says so
                pass
        ended = await _ended(service, record)
        if not record.keeps_events and ended is not None and ended.finished is not None:
            final = await service.durable.sent(ended, pb.RunEvent.FromString(ended.finished))
            frames = shaper.frames(final) or [Frame("values", final.run_finished.values_json or "{}")]  # how it ended
            for f in frames:
                yield _plain(f)
    else:
        await _ended(service, record)
    yield _plain(Frame("metadata", encode({"status": "run_done", "run_id": record.run_id})))


async def _follow(service: GraphService, key: str, thread_id: str, modes: frozenset[str]) -> AsyncIterator[bytes]:
    since = datetime.now(timezone.utc)
    seen: set[str] = set()
    store = service.records.store
    while True:
        # The thread's newest runs, in one read: those going (a thread runs one at a time, with a few queued), and
        # those that started since the stream opened, ended or not, between two looks.
        newest = await store.alist(key, limit=16, full=True)
        fresh = [r for r in newest if r.run_id not in seen and (r.status in ACTIVE or r.started_at >= since)]
        new = sorted(fresh, key=lambda r: (r.started_at, r.run_id))
        for record in new:
            seen.add(record.run_id)
            async for chunk in _run_frames(service, record, modes, thread_id):
                yield chunk
        if not new:
            await asyncio.sleep(POLL_SECONDS)  # a run started on any replica is seen within this


async def thread_stream(
    thread_id: str, request: Request, stream_mode: list[str] | None = Query(None), stream_modes: str | None = None
) -> Response:
    service = svc(request)
    modes = _modes(stream_mode, stream_modes)
    if request.headers.get("last-event-id"):
        raise HttpError(
            422, "Last-Event-ID: a thread's stream is not resumed where it was cut (its runs' events have no one order); "
            "rejoin a run's own stream at /threads/{thread_id}/runs/{run_id}/stream",
        )  # fmt: skip
    graph = await graph_of(service, thread_id)
    return Streamed(_follow(service, thread_key(graph, thread_id), thread_id, modes), media_type="text/event-stream")


router.add_api_route("/threads/{thread_id}/stream", answered(thread_stream), methods=["GET"])
