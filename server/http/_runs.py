"""LangGraph's run routes over the run core: stream, wait, create, list, get, cancel, join.

Each route turns its body into the run call the gRPC side would make
(:func:`server.http._run_body.parse_run_body`) and drives it through
:mod:`server._run_api`, so a run over HTTP takes exactly the path a gRPC call
takes: its assistant resolved, its thread's slot and lease, its record, the
multitask strategies, ``on_disconnect``. The events become LangGraph's
Server-Sent Events (:class:`server.http._sse.SseShaper`).

* A route fails before its response starts (the run's first event, RunStarted,
  is awaited first): the failure is raised and the app maps its status
  (NOT_FOUND 404, INVALID_ARGUMENT 422, ABORTED 409...). Once a stream has
  started, a failure is its ``error`` frame.
* ``/wait`` answers as a stream of one JSON body, so a caller that leaves is
  seen (its run is cancelled unless ``on_disconnect`` is "continue").
* A stateless run (``/runs/stream``, ``/runs/wait``, ``/runs``, ``/runs/batch``)
  runs on a thread of its own, deleted after it unless ``on_completion`` is "keep".
* A run is found by its id (its record names its graph and thread); one on
  another thread, or another tenant's, is 404.

The app (:mod:`server.http._app`) provides the service and sets the caller's
tenant. A thread's graph is the one it was made in (:func:`server.http._common.graph_of`):
a run on it must name an assistant of that graph.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import anyio
import grpc
from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from engine.host import ACTIVE, DelayedRun, Expected, RecordChanged, RunRecord
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._errors import RpcError, status_for
from server._json import encode
from server._reads import key_of
from server._run_api import CallContext, join_events, run_events
from server._tenants import TENANT
from server.http._common import SeenThreads, check_run_thread, expected_of
from server.http._common import service as svc
from server.http._delayed import ask_later, delayed_json, ended_result, pending_of, queued_behind, started_record
from server.http._errors import NOT_CANCELLABLE, HttpError, answered
from server.http._run_body import RunBody, parse_run_body
from server.http._run_views import result_of, run_json
from server.http._sse import SseShaper, check_modes
from server.http._streamed import Streamed, gone_from
from server.http._webhooks import keep_webhook

if TYPE_CHECKING:
    from server.service import GraphService

__all__ = ["router"]

log = logging.getLogger("graphwire.server")
router = APIRouter(tags=["runs"])
_SSE = "text/event-stream"


_answered = answered  # every run route's failures, through the gRPC table


async def _body(request: Request) -> Any:
    try:
        return await request.json()
    except ValueError:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, "body: not JSON") from None


async def _record(service: GraphService, thread_id: str, run_id: str) -> RunRecord:
    """``run_id``'s record, when it is a run of the caller's ``thread_id``; else NOT_FOUND."""
    found = await service.records.store.aget(run_id)
    if found is None or found.caller_thread != thread_id or found.thread_id != key_of(TENANT.get(), found.graph, thread_id):
        raise RpcError(grpc.StatusCode.NOT_FOUND, f"thread {thread_id!r} has no run {run_id!r}")
    return found


async def _start(
    service: GraphService, run: RunBody, request: Request, *, stateless: bool = False, checked: bool = False
) -> tuple[pb.RunEvent, AsyncIterator[pb.RunEvent]]:
    """The run started: its RunStarted, and the rest of its events (a failure to start is raised).

    A caller that leaves while its call waits its turn (``enqueue``) ends the call there, as a
    gRPC caller's disconnect does: its run never starts, unless it was to go on without it.
    """
    if stateless or checked:  # ``checked``: the caller did (check_run_thread)
        return await _started(service, run, request, None)
    seen: SeenThreads = request.app.state.seen_threads
    expected = await expected_of(service, run)  # of the thread's record: checked by the run's start, in its write
    if expected is None or expected.key not in seen:
        await check_run_thread(service, run, expected)  # a thread this process did not run lately: read and checked first
        started = await _started(service, run, request, None)
    else:
        try:
            started = await _started(service, run, request, expected)
        except RecordChanged:  # nothing was written: the thread is checked (made, bound, labelled or refused), and again
            seen.discard(expected.key)
            await check_run_thread(service, run, expected)
            started = await _started(service, run, request, None)
    if expected is not None:
        seen.add(expected.key)
    return started


async def _started(
    service: GraphService, run: RunBody, request: Request, expected: Expected | None
) -> tuple[pb.RunEvent, AsyncIterator[pb.RunEvent]]:
    """:func:`_start`'s run, its thread checked or ``expected`` (then :class:`RecordChanged` when unmet)."""
    events = run_events(service, run.request, expected_thread=expected, langgraph_api=True)
    first: asyncio.Future[pb.RunEvent] = asyncio.ensure_future(anext(events))  # type: ignore[arg-type]
    gone = asyncio.ensure_future(gone_from(request.receive))
    try:
        await asyncio.wait((first, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not first.done():
            first.cancel()  # into the call: as a disconnect
        await asyncio.gather(first, gone, return_exceptions=True)
    if first.cancelled():
        await events.aclose()  # type: ignore[attr-defined]
        raise RpcError(grpc.StatusCode.CANCELLED, "the caller left before its run started")
    if run.webhook is not None and first.result().HasField("run_started"):
        await keep_webhook(service, run.webhook, first.result().run_id)
    return first.result(), events


def _where(first: pb.RunEvent, stateless: bool) -> dict[str, str]:
    thread = first.run_started.thread_id
    return {"Content-Location": f"/runs/{first.run_id}" if stateless else f"/threads/{thread}/runs/{first.run_id}"}


async def _forget(service: GraphService, first: pb.RunEvent) -> None:
    """A stateless run's thread, deleted after the run (its versions and records)."""
    try:
        request = pb.DeleteThreadRequest(graph=first.run_started.graph, thread_id=first.run_started.thread_id)
        await service.thread_rpcs.DeleteThread(request, CallContext())
    except Exception:  # noqa: BLE001 - the run's answer stands; the thread stays, and says why in the log
        log.exception("stateless run %s: its thread could not be deleted", first.run_id)


async def _frames(
    service: GraphService, shaper: SseShaper, first: pb.RunEvent | None, events: AsyncIterator[pb.RunEvent], *,
    after: int = 0, attempt: int = 1, forget: bool = False,
) -> AsyncIterator[bytes]:  # fmt: skip
    """The stream's bytes: metadata (for a stream from its start), then each event's frames (the last an
    ``error`` frame for a run that failed); the stream closes at the run's end with no frame of its own, as
    LangGraph's server's (the SDKs ask a resumable run's status when its stream closes without an error)."""
    started = first
    try:
        if first is not None and not after:
            yield shaper.metadata(first.run_id, attempt).encode()
        if first is not None:
            if not after and shaper.wants_start(first):
                shaper.start_values(await _start_values(service, first.run_started))
            for f in shaper.frames(first):
                yield f.encode()
        async for e in events:
            if started is None:
                started = e
                if not after:
                    yield shaper.metadata(e.run_id, attempt).encode()
            if e.seq <= after:
                continue  # the caller has it (a run's end is sent again whatever after_seq says)
            if not after and shaper.wants_start(e):
                shaper.start_values(await _start_values(service, e.run_started))
            for f in shaper.frames(e):
                yield f.encode()
    except Exception as exc:  # noqa: BLE001 - once a stream has started, its failure is its last frame
        code, message = status_for(exc)
        yield shaper.error(type(exc).__name__ if code == grpc.StatusCode.INTERNAL else code.name, message).encode()
    finally:
        await events.aclose()  # type: ignore[attr-defined]  # a caller that left: as a gRPC caller's disconnect
        if forget and started is not None and started.HasField("run_started"):
            await _forget(service, started)


async def _start_values(service: GraphService, r: pb.RunStarted) -> Any:
    """The values of the version run ``r`` starts from; none (a new thread): the graph's empty channels."""
    if not r.checkpoint_id:
        return json.loads(encode(service.reads.empty_values(r.graph)))
    state = await service.thread_rpcs.GetState(pb.GetStateRequest(graph=r.graph, thread_id=r.thread_id, checkpoint_id=r.checkpoint_id), CallContext())
    return json.loads(state.values_json) if state.values_json else {}


async def _stream(request: Request, thread_id: str | None) -> Response:
    service = svc(request)
    body = await _body(request)
    run = parse_run_body(body, thread_id or str(uuid.uuid4()), stateless=thread_id is None)
    if run.after_seconds is not None and thread_id is not None:  # kept (server.http._delayed), then joined
        row = await _later(service, run, body, thread_id)
        shaper = SseShaper(run.modes, subgraphs=run.subgraphs, thread_id=thread_id)
        frames = _joined(service, shaper, row, after=0, cancel=run.request.on_disconnect != pb.ON_DISCONNECT_CONTINUE)
        return Streamed(frames, media_type=_SSE, headers={"Content-Location": f"/threads/{thread_id}/runs/{row.run_id}"})
    first, events = await _start(service, run, request, stateless=thread_id is None)
    headers = _where(first, thread_id is None)
    if run.resumable and thread_id is not None:
        headers["Location"] = f"/threads/{thread_id}/runs/{first.run_id}/stream"
    shaper = SseShaper(run.modes, subgraphs=run.subgraphs, thread_id=run.request.thread_id)
    frames = _frames(service, shaper, first, events, forget=thread_id is None and run.on_completion == "delete")
    return Streamed(frames, media_type=_SSE, headers=headers)


async def _waited(service: GraphService, first: pb.RunEvent, events: AsyncIterator[pb.RunEvent], forget: bool) -> AsyncIterator[bytes]:
    """``/wait``'s body: the run's result once it ends (its failure as ``__error__``)."""
    final = first if first.HasField("run_finished") else None
    try:
        async for e in events:
            if e.HasField("run_finished"):
                final = e
        body: Any = result_of(final)
    except Exception as exc:  # noqa: BLE001 - the answer started: the failure is its body
        code, message = status_for(exc)
        body = {"__error__": {"error": code.name, "message": message}}
    finally:
        await events.aclose()  # type: ignore[attr-defined]
        if forget:
            await _forget(service, first)
    yield bytes(JSONResponse(body).body)


async def _wait(request: Request, thread_id: str | None) -> Response:
    service = svc(request)
    body = await _body(request)
    run = parse_run_body(body, thread_id or str(uuid.uuid4()), stateless=thread_id is None)
    if run.after_seconds is not None and thread_id is not None:  # kept (server.http._delayed), then joined
        row = await _later(service, run, body, thread_id)
        answer = _waited_later(service, row, cancel=run.request.on_disconnect != pb.ON_DISCONNECT_CONTINUE)
        return Streamed(answer, media_type="application/json", headers={"Content-Location": f"/threads/{thread_id}/runs/{row.run_id}"})
    if not run.request.request_id and run.request.on_disconnect != pb.ON_DISCONNECT_CONTINUE:
        # Its answer is its end: a run whose events nobody can join later sends its caller nothing else
        # (its stream modes' events cost a JSON value each, of the whole state in "values").
        run.request.event_kinds[:] = [pb.EVENT_KIND_RUN_STARTED, pb.EVENT_KIND_RUN_FINISHED]
    first, events = await _start(service, run, request, stateless=thread_id is None)
    headers = _where(first, thread_id is None)
    if thread_id is not None:
        headers["Location"] = f"/threads/{thread_id}/runs/{first.run_id}/join"
    forget = thread_id is None and run.on_completion == "delete"
    return Streamed(_waited(service, first, events, forget), media_type="application/json", headers=headers)


async def _later(service: GraphService, run: RunBody, body: Any, thread_id: str) -> DelayedRun:
    """A delayed run kept (:func:`server.http._delayed.ask_later`), as its row."""
    row = await service.delayed.aget((await ask_later(service, run, body, thread_id))["run_id"])
    assert row is not None
    return row


async def _waited_later(service: GraphService, row: DelayedRun, *, cancel: bool) -> AsyncIterator[bytes]:
    """A delayed ``/wait``'s body: its result once it started and ended; cancelled if its caller leaves first (``cancel``)."""
    ended = False
    try:
        body = await _result(service, row)
        ended = True
    finally:
        if cancel and not ended:
            with anyio.CancelScope(shield=True):  # as in _joined
                await _cancel_any(service, row)
    yield bytes(JSONResponse(body).body)


# -- runs on a thread ------------------------------------------------------------------------------
async def stream_run(thread_id: str, request: Request) -> Response:
    return await _stream(request, thread_id)


async def stream_stateless_run(request: Request) -> Response:
    return await _stream(request, None)


async def wait_run(thread_id: str, request: Request) -> Response:
    return await _wait(request, thread_id)


async def wait_stateless_run(request: Request) -> Response:
    return await _wait(request, None)


async def _background(service: GraphService, request: Request, body: Any, thread_id: str | None) -> dict[str, Any]:
    """Start a background run (``thread_id`` None: stateless, on a thread of its own); its ``Run``."""
    run = parse_run_body(body, thread_id or str(uuid.uuid4()), stateless=thread_id is None, background=True)
    if run.after_seconds is not None and thread_id is not None:  # kept, and answered "pending" (server.http._delayed)
        return await ask_later(service, run, body, thread_id)
    if thread_id is not None:
        graph = await check_run_thread(service, run)
        if await queued_behind(service, run, thread_id, graph):  # queued: kept likewise, due now
            return await ask_later(service, run, body, thread_id, checked=True)
    first, events = await _start(service, run, request, stateless=thread_id is None, checked=True)
    async for _ in events:
        pass  # a background call ends right after RunStarted
    record = await _record(service, first.run_started.thread_id, first.run_id)
    if thread_id is None and run.on_completion == "delete":
        cleanups: set[asyncio.Task[None]] | None = getattr(request.app.state, "run_cleanups", None)
        if cleanups is None:
            cleanups = request.app.state.run_cleanups = set()
        task = asyncio.get_running_loop().create_task(_forget_after(service, record, first))
        cleanups.add(task)  # held until done, so the loop keeps it
        task.add_done_callback(cleanups.discard)
    # The run as it was made, as LangGraph's server answers a create ("pending"; its run may have ended since).
    return {**run_json(record), "status": "pending", "updated_at": record.started_at.isoformat()}


async def _forget_after(service: GraphService, record: RunRecord, first: pb.RunEvent) -> None:
    """A stateless background run's thread, deleted once the run ended and let its thread go."""
    await _ended(service, record)
    async with service.runs.slot(record.thread_id, record.caller_thread, f"forget-{record.run_id}", enqueue=True):
        pass  # its run writes its end before it lets the thread go: wait for that
    await _forget(service, first)


async def create_run(thread_id: str, request: Request) -> Response:
    """A background run: answered as soon as it started, with its ``Run``."""
    service = svc(request)
    out = await _background(service, request, await _body(request), thread_id)
    return JSONResponse(out, headers={"Content-Location": f"/threads/{thread_id}/runs/{out['run_id']}"})


async def create_stateless_run(request: Request) -> Response:
    """A stateless background run (its thread deleted after it unless ``on_completion`` is "keep")."""
    out = await _background(svc(request), request, await _body(request), None)
    return JSONResponse(out, headers={"Content-Location": f"/runs/{out['run_id']}"})


async def create_batch(request: Request) -> Response:
    """Stateless background runs, one per body of the list, started in order; their ``Run`` objects."""
    bodies = await _body(request)
    if not isinstance(bodies, list) or not bodies:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, "body: a list of runs (at least one)")
    service = svc(request)
    return JSONResponse([await _background(service, request, body, None) for body in bodies])


async def get_run(thread_id: str, run_id: str, request: Request) -> Response:
    service = svc(request)
    row = await pending_of(service, thread_id, run_id)
    if row is not None:  # a delayed run not started yet
        return JSONResponse(delayed_json(row))
    return JSONResponse(run_json(await _record(service, thread_id, run_id)))


async def _ended(service: GraphService, record: RunRecord) -> RunRecord:
    """``record``'s run once it has ended: its events joined when it keeps them, else its record read again."""
    if record.keeps_events:
        async for _ in join_events(service, record.run_id, after_seq=record.last_seq):
            pass
    return await settled(service, record)


async def settled(service: GraphService, record: RunRecord) -> RunRecord:
    """``record`` read again until its run has ended (NOT_FOUND: its record is gone, its thread deleted)."""
    while record.status in ACTIVE:
        await service.records.wait_events(record.run_id)
        found = await service.records.store.aget(record.run_id)
        if found is None:
            raise RpcError(grpc.StatusCode.NOT_FOUND, f"run {record.run_id!r} is gone (its thread was deleted)")
        record = found
    return await service.records.store.aget(record.run_id) or record


async def cancel_run(thread_id: str, run_id: str, request: Request, wait: bool = False, action: str = "interrupt") -> Response:
    """Cancel the run: ``action`` "interrupt" keeps the versions it saved, "rollback" deletes them once it
    ended (the thread held meanwhile, as a run's ROLLBACK strategy does); ``wait``: answer once it ended."""
    if action not in ("interrupt", "rollback"):
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"action: {action!r} is not one of 'interrupt', 'rollback'")
    service = svc(request)
    row = await pending_of(service, thread_id, run_id)
    if row is not None and row.status != "pending":
        raise HttpError(404, NOT_CANCELLABLE)  # a delayed run that ended without starting
    if row is not None and await service.delayed.aend(run_id, "cancelled"):
        return JSONResponse({}) if wait else Response(status_code=202)  # a delayed run cancelled before it started
    record = await _record(service, thread_id, run_id)
    if record.status not in ACTIVE:  # ended: nothing to cancel or roll back, as LangGraph's server answers
        raise HttpError(404, NOT_CANCELLABLE)
    cancel = pb.CancelRunRequest(graph=record.graph, thread_id=thread_id, run_id=run_id)
    await service.thread_rpcs.CancelRun(cancel, CallContext())
    if action == "rollback":
        ended = await _ended(service, record)
        async with service.runs.slot(ended.thread_id, thread_id, f"rollback-{run_id}", enqueue=True):
            await service.streams.turns.roll_back(ended)
    elif wait:
        ended = await _ended(service, record)
        # Its record ends just before the run lets its thread go: wait for that too (as the rollback does), so a
        # run sent after the answer finds the thread free, as on LangGraph's server.
        async with service.runs.slot(ended.thread_id, thread_id, f"cancelled-{run_id}", enqueue=True):
            pass
    # As LangGraph's server: waiting, it answers the values the run streamed after the cancel (none: {}).
    return JSONResponse({}) if wait else Response(status_code=202)


async def join_run(thread_id: str, run_id: str, request: Request) -> Response:
    """The run's result (as ``/wait`` answers), once it ends."""
    service = svc(request)
    row = await pending_of(service, thread_id, run_id)
    return JSONResponse(await _result(service, row if row is not None else await _record(service, thread_id, run_id)))


async def _result(service: GraphService, found: RunRecord | DelayedRun) -> Any:
    """What ``/join`` answers for a run (a delayed one's once it started), once it ended."""
    if isinstance(found, DelayedRun):
        found = await started_record(service, found)
    if isinstance(found, DelayedRun):
        return ended_result(found)
    record = await _ended(service, found)
    return result_of(await service.durable.sent(record, pb.RunEvent.FromString(record.finished)) if record.finished is not None else None)


async def join_stream(
    thread_id: str, run_id: str, request: Request, stream_mode: list[str] | None = Query(None),
    cancel_on_disconnect: bool = False, stream_subgraphs: bool = False,
) -> Response:  # fmt: skip
    """The run's events as a stream, from its start or after the client's ``Last-Event-ID`` (a seq)."""
    service = svc(request)
    found: RunRecord | DelayedRun | None = await pending_of(service, thread_id, run_id)
    if found is None:
        found = await _record(service, thread_id, run_id)
        if not found.keeps_events:
            raise RpcError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"run {run_id} keeps no events: only background runs, resumable streams (stream_resumable) and runs "
                "with on_disconnect 'continue' can be joined as a stream; /join answers its result",
            )  # fmt: skip
    last = request.headers.get("last-event-id") or "0"
    if not last.isdigit():
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"Last-Event-ID: {last!r} is not an event id of this run (a seq)")
    modes = check_modes([m for m in stream_mode or () if m] or None)  # the sync SDK sends an unset mode as ""
    shaper = SseShaper(modes, subgraphs=stream_subgraphs, thread_id=thread_id)
    frames = _joined(service, shaper, found, after=int(last), cancel=cancel_on_disconnect)
    return Streamed(frames, media_type=_SSE, headers={"Content-Location": f"/threads/{thread_id}/runs/{run_id}"})


async def _joined(service: GraphService, shaper: SseShaper, found: RunRecord | DelayedRun, *, after: int, cancel: bool) -> AsyncIterator[bytes]:
    """A run's frames (a delayed one's once it started), the run cancelled when the caller leaves first if ``cancel``."""
    ended = False
    try:
        if isinstance(found, DelayedRun):  # the stream's head went out already: wait here for its start
            found = await started_record(service, found)
        if isinstance(found, DelayedRun):
            error = ended_result(found)["__error__"]
            for f in (shaper.metadata(found.run_id), shaper.error(error["error"], error["message"])):
                yield f.encode()
        else:
            events = join_events(service, found.run_id, after_seq=after)
            async for chunk in _frames(service, shaper, None, events, after=after, attempt=found.attempts):
                yield chunk
        ended = True
    finally:
        if cancel and not ended:
            with anyio.CancelScope(shield=True):  # the caller left: the body's sending was cancelled, not this
                await _cancel_any(service, found)


async def _cancel_any(service: GraphService, found: RunRecord | DelayedRun) -> None:
    """Cancel a run, or a delayed one not started yet (once started, if its start is under way)."""
    if isinstance(found, DelayedRun) and await service.delayed.aend(found.run_id, "cancelled"):
        return
    record = found if isinstance(found, RunRecord) else await service.records.store.aget(found.run_id)
    if record is not None and record.status in ACTIVE:
        cancel = pb.CancelRunRequest(graph=record.graph, thread_id=record.caller_thread, run_id=record.run_id)
        await service.thread_rpcs.CancelRun(cancel, CallContext())


# -- the routes ------------------------------------------------------------------------------------
router.add_api_route("/threads/{thread_id}/runs/stream", _answered(stream_run), methods=["POST"])
router.add_api_route("/runs/stream", _answered(stream_stateless_run), methods=["POST"])
router.add_api_route("/threads/{thread_id}/runs/wait", _answered(wait_run), methods=["POST"])
router.add_api_route("/runs/wait", _answered(wait_stateless_run), methods=["POST"])
router.add_api_route("/threads/{thread_id}/runs", _answered(create_run), methods=["POST"])
router.add_api_route("/runs", _answered(create_stateless_run), methods=["POST"])
router.add_api_route("/runs/batch", _answered(create_batch), methods=["POST"])
router.add_api_route("/threads/{thread_id}/runs/{run_id}", _answered(get_run), methods=["GET"])
router.add_api_route("/threads/{thread_id}/runs/{run_id}/cancel", _answered(cancel_run), methods=["POST"])
router.add_api_route("/threads/{thread_id}/runs/{run_id}/join", _answered(join_run), methods=["GET"])
router.add_api_route("/threads/{thread_id}/runs/{run_id}/stream", _answered(join_stream), methods=["GET"])
