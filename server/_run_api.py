"""Runs driven from Python: the run core's events as an async iterator, with no gRPC call around them.

The run core (:class:`server._run_rpcs.RunRpcs` for Invoke, Resume and Fork,
:meth:`server._durable.DurableRpcs.JoinRun` for joining) writes each event to
the call's context and learns that its caller left when its handler task is
cancelled. This module hands it a context of its own
(:class:`CallContext`) and runs the handler in a task, so a caller in the
same process (the HTTP face, a test) gets exactly the gRPC call's path:
the assistant resolved, the request parsed, a retry answered by its
``request_id``, the thread's slot and lease, the run record, the multitask
strategies and ``on_disconnect``.

* :func:`run_events` and :func:`join_events` yield the events as the
  handler writes them; a write waits until the reader takes its event, as a
  gRPC write waits for the transport, so the outbox's budget
  (``max_unsent_bytes``) bounds what waits for a slow reader the same way.
* A caller that leaves (its ``disconnected`` event set, or the iterator
  closed before the end) cancels the handler task, which is what gRPC does
  when a client goes: the run is cancelled, or goes on when the call asked
  for ``on_disconnect = CONTINUE`` or ``background``.
* A failure is raised from the iterator as the handler raised it; its status
  is :func:`server._errors.status_for`'s, as the gRPC interceptor would send.

The handler task runs in a copy of the caller's context, so the caller's
tenant (:data:`server._tenants.TENANT`) is the run's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import grpc

from engine.host import Expected
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._errors import RpcError
from server._parse import RunRequest

if TYPE_CHECKING:
    from server.service import GraphService

__all__ = ["CallContext", "join_events", "run_events"]

_Metadata = Sequence[tuple[str, str | bytes]]


class CallContext(grpc.aio.ServicerContext[Any, pb.RunEvent]):
    """What the run core calls on a gRPC context, for a caller in this process.

    Each written event waits in a queue until the reader takes it
    (:meth:`next`); the write returns then. The initial metadata the core
    sends (the run's trace id) is kept in :attr:`initial_metadata`.

    Args:
        metadata: the call's invocation metadata, as a gRPC caller's headers.
        expected_thread: what the run's start may take as its thread's record, checked in the
            start's own write (:class:`~engine.checkpoint._threads.Expected`; see
            ``server._stream.Streams.serve``); a gRPC call has none.
        langgraph_api: the call comes through LangGraph's HTTP API, and runs as LangGraph's server
            runs it: a Resume's answer is LangGraph's ``Command(resume=...)`` (with no interrupt
            pending the thread goes on, where a gRPC Resume is refused), and the run's record keeps
            the request (a ``Run`` object shows its assistant, metadata, strategy and arguments).
    """

    def __init__(self, metadata: _Metadata = (), expected_thread: Expected | None = None, langgraph_api: bool = False) -> None:
        self._metadata = tuple(metadata)
        self.expected_thread = expected_thread
        self.langgraph_api = langgraph_api
        self._queue: asyncio.Queue[tuple[pb.RunEvent, asyncio.Future[None]] | None] = asyncio.Queue()
        self.initial_metadata: tuple[tuple[str, str | bytes], ...] = ()
        self.trailing_metadata: tuple[tuple[str, str | bytes], ...] = ()
        self.code: grpc.StatusCode | None = None
        self.details: str | None = None

    # -- what the run core uses ---------------------------------------------------------
    async def write(self, message: pb.RunEvent) -> None:
        taken = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((message, taken))
        await taken

    async def send_initial_metadata(self, initial_metadata: _Metadata) -> None:
        self.initial_metadata = tuple(initial_metadata)

    def invocation_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        return self._metadata

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata: _Metadata = ()) -> NoReturn:
        error = RpcError(code, details)
        error.trailers = tuple((k, v if isinstance(v, bytes) else v.encode()) for k, v in trailing_metadata)
        raise error

    async def abort_with_status(self, status: Any) -> NoReturn:
        raise RpcError(status.code, status.details)

    # -- the reader's side ---------------------------------------------------------------
    def end(self) -> None:
        """No more writes (the handler returned or raised): :meth:`next` returns None once the queue is empty."""
        self._queue.put_nowait(None)

    async def next(self) -> pb.RunEvent | None:
        """The next event written (its write returns), or None at the end."""
        item = await self._queue.get()
        if item is None:
            return None
        message, taken = item
        if not taken.done():
            taken.set_result(None)
        return message

    # -- the rest of the context: nothing a run call needs --------------------------------
    async def read(self) -> NoReturn:
        raise RuntimeError("a run call reads no request stream")

    def set_trailing_metadata(self, trailing_metadata: _Metadata) -> None:
        self.trailing_metadata = tuple(trailing_metadata)

    def set_code(self, code: grpc.StatusCode) -> None:
        self.code = code

    def set_details(self, details: str) -> None:
        self.details = details

    def set_compression(self, compression: grpc.Compression) -> None:
        pass

    def disable_next_message_compression(self) -> None:
        pass

    def peer(self) -> str:
        return "local"

    def peer_identities(self) -> Iterable[bytes] | None:
        return None

    def peer_identity_key(self) -> str | None:
        return None

    def auth_context(self) -> dict[str, Iterable[bytes]]:
        return {}


async def _drive(
    handler: Callable[[CallContext], Coroutine[Any, Any, None]], disconnected: asyncio.Event | None, metadata: _Metadata,
    expected_thread: Expected | None = None, langgraph_api: bool = False,
) -> AsyncIterator[pb.RunEvent]:
    """Run ``handler`` in a task of its own, yielding what it writes; cancel it when the caller leaves."""
    context = CallContext(metadata, expected_thread, langgraph_api)
    loop = asyncio.get_running_loop()
    call: asyncio.Task[None] = loop.create_task(handler(context))  # a copy of this context: the caller's tenant
    call.add_done_callback(lambda _: context.end())
    left: asyncio.Task[None] | None = None
    if disconnected is not None:

        async def leave() -> None:
            await disconnected.wait()
            call.cancel()  # as gRPC cancels a handler whose client went

        left = loop.create_task(leave())
    try:
        while (message := await context.next()) is not None:
            yield message
        if call.cancelled():
            return  # the caller left: nobody reads an error
        error = call.exception()
        if error is not None:
            raise error
    finally:
        if left is not None:
            left.cancel()
        if not call.done():
            call.cancel()  # the reader stopped before the end: as a disconnect
        await asyncio.gather(call, return_exceptions=True)


def run_events(
    service: GraphService, request: RunRequest, *, disconnected: asyncio.Event | None = None, metadata: _Metadata = (),
    expected_thread: Expected | None = None, langgraph_api: bool = False,
) -> AsyncIterator[pb.RunEvent]:
    """The events of an Invoke, Resume or Fork ``request``, as its gRPC stream sends them.

    ``disconnected``: set when the caller goes (its run is cancelled, or goes
    on, as the request's ``on_disconnect`` and ``background`` say).
    ``metadata``: the call's invocation metadata (a W3C ``traceparent`` is not
    read here; the caller enters its trace context itself).
    ``expected_thread``: see :class:`CallContext`; unmet, the events raise
    :class:`~engine.checkpoint._threads.RecordChanged` before the first (nothing was written).
    ``langgraph_api``: see :class:`CallContext`.
    """
    return _drive(lambda context: service.run_rpcs.serve(request, context), disconnected, metadata, expected_thread, langgraph_api)


def join_events(
    service: GraphService,
    run_id: str,
    *,
    after_seq: int = 0,
    kinds: Iterable[pb.EventKind.ValueType] = (),
    disconnected: asyncio.Event | None = None,
) -> AsyncIterator[pb.RunEvent]:
    """The events of run ``run_id`` after ``after_seq``, as JoinRun sends them (stored, then live, to its RunFinished)."""
    request = pb.JoinRunRequest(run_id=run_id, after_seq=after_seq, event_kinds=list(kinds))
    return _drive(lambda context: service.durable.JoinRun(request, context), disconnected, ())
