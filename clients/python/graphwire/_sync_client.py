# Generated from graphwire/_async_client.py by scripts/gen_sync_client.py. DO NOT EDIT.
"""``Client``: the blocking client, derived from ``AsyncClient``.

Each method works as its ``AsyncClient`` twin does, without ``await``; see
``_async_client.py`` for why this file is generated. A ``Client`` may be
shared by threads.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import grpc

from graphwire import _decode, _requests
from graphwire._sync_store import StoreClient
from graphwire._channel import (
    CallMetadata,
    ChannelOptions,
    auth_metadata,
    call_metadata,
    channel_options,
    credentials,
)
from graphwire._errors import error_from_rpc
from graphwire._events import Event
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from graphwire._options import DEFAULT, RunOptions, run_options
from graphwire._run import RunCollector, RunResult
from graphwire._types import (
    CheckpointRef,
    EventKind,
    GraphInfo,
    StateSnapshot,
)

__all__ = ["Client"]


#: What ``invoke``/``resume``/``fork`` ask for by default: the run's first and
#: last events. Each streamed message costs tens of microseconds of gRPC time,
#: and RunFinished already carries everything a RunResult holds.
RESULT_KINDS = (EventKind.RUN_STARTED, EventKind.RUN_FINISHED)


_RESULT_DEFAULT = RunOptions(event_kinds=RESULT_KINDS)


def _result_kinds(options: RunOptions) -> RunOptions:
    """What a result-returning method asks for: the first and last events, unless told otherwise."""
    if options.event_kinds is not None:
        return options
    return _RESULT_DEFAULT if options is DEFAULT else options.replace(event_kinds=RESULT_KINDS)

class Client:
    """A connection to a graphwire server, for blocking code.

    ::

        with Client("127.0.0.1:50051") as client:
            result = client.invoke("reminders", "thread-1", {"messages": [...]})
            if result.interrupted:
                result = client.resume("reminders", "thread-1", "yes")

    Args:
        address: ``host:port`` of the server.
        token: Sent as ``authorization: Bearer <token>`` on every call.
        tls: False for plaintext; True for TLS with the system's root
            certificates; PEM bytes for TLS with these roots.
        options: gRPC channel options, overriding the client's defaults
            (which accept messages up to 64 MiB).

    Run options (``invoke``, ``resume``, ``fork`` and their ``stream_``
    forms): a :class:`RunOptions` as ``options=``, or its fields as keyword
    arguments (``event_kinds=``, ``enqueue=``, ``recursion_limit=``,
    ``durability=``, ``run_metadata=``, ``interrupt_before=``,
    ``interrupt_after=``, ``context=``, ``timeout=``, ``metadata=``), which override the
    fields of ``options``.
    """

    def __init__(
        self,
        address: str,
        *,
        token: str | None = None,
        tls: bool | bytes = False,
        options: ChannelOptions = (),
    ) -> None:
        creds = credentials(tls)
        opts = channel_options(options)
        if creds is None:
            self._channel = grpc.insecure_channel(address, options=opts)
        else:
            self._channel = grpc.secure_channel(address, creds, options=opts)
        self._stub = pb_grpc.GraphServiceStub(self._channel)  # type: ignore[no-untyped-call]
        self._metadata = auth_metadata(token)
        self.address = address
        #: The server's store (long-term memory shared by threads): ``client.store.put_item(...)``.
        self.store = StoreClient(self)

    # -- runs ------------------------------------------------------------------

    def invoke(
        self,
        graph: str,
        thread_id: str,
        input: Any,
        *,
        checkpoint_id: str | None = None,
        options: RunOptions | None = None,
        **overrides: Any,
    ) -> RunResult:
        """Run ``graph`` on ``thread_id`` with a new ``input`` until it ends.

        ``input`` is usually a dict of state keys; None continues the thread
        from its newest version (after an error: retries the failed step).
        ``checkpoint_id`` runs from an older version instead, on a new branch.
        Returns however the run ended (END, INTERRUPT, ERROR, ...); raises
        only when the call itself fails. Unless ``event_kinds`` says otherwise, only
        RunStarted and RunFinished cross the wire (RunFinished carries the
        values, checkpoint, interrupts and error); ``stream`` gets every event.
        ``options``, ``overrides``: see :class:`RunOptions`.
        """
        opts = _result_kinds(run_options(options, overrides))
        stream = self.stream(graph, thread_id, input, checkpoint_id=checkpoint_id, options=opts)
        return self._collect(thread_id, stream)

    def resume(
        self,
        graph: str,
        thread_id: str,
        answer: Any = None,
        *,
        resumes: Mapping[str, Any] | None = None,
        options: RunOptions | None = None,
        **overrides: Any,
    ) -> RunResult:
        """Answer the thread's pending interrupt and run on until the run ends.

        ``answer`` (any JSON value; None is sent as null) is what
        ``interrupt()`` returns in the node, which runs again from its first
        line. With several interrupts pending, answer them by id instead:
        ``resumes={interrupt.interrupt_id: answer, ...}``. Raises ``FailedPrecondition``
        when nothing is pending. ``options``, ``overrides``: see :class:`RunOptions`.
        """
        opts = _result_kinds(run_options(options, overrides))
        stream = self.stream_resume(graph, thread_id, answer, resumes=resumes, options=opts)
        return self._collect(thread_id, stream)

    def fork(
        self,
        graph: str,
        thread_id: str,
        checkpoint_id: str,
        *,
        update: Any = None,
        as_node: str | None = None,
        options: RunOptions | None = None,
        **overrides: Any,
    ) -> RunResult:
        """Go back to an older version, optionally change it, and run from there.

        The run continues on a new branch from ``checkpoint_id``; with
        ``update`` (a dict of state keys, written as ``as_node``), from that
        version with the update applied. The old branch stays in the history.
        ``options``, ``overrides``: see :class:`RunOptions`.
        """
        opts = _result_kinds(run_options(options, overrides))
        stream = self.stream_fork(graph, thread_id, checkpoint_id, update=update, as_node=as_node, options=opts)
        return self._collect(thread_id, stream)

    def stream(
        self,
        graph: str,
        thread_id: str,
        input: Any,
        *,
        checkpoint_id: str | None = None,
        options: RunOptions | None = None,
        **overrides: Any,
    ) -> Iterator[Event]:
        """Like ``invoke``, but yield the run's events as they happen.

        The last event is always ``RunFinished``. Leaving the loop early
        cancels the call, and with it the run (saved versions stay); wrap the
        stream in ``contextlib.closing`` to make that happen at once.
        """
        opts = run_options(options, overrides)
        request = _requests.invoke(
            graph,
            thread_id,
            input,
            checkpoint_id=checkpoint_id,
            event_kinds=opts.event_kinds,
            enqueue=opts.enqueue,
            config=opts.run_config(),
        )
        return self._events(self._stub.Invoke, request, opts.timeout, opts.metadata)

    def stream_resume(
        self,
        graph: str,
        thread_id: str,
        answer: Any = None,
        *,
        resumes: Mapping[str, Any] | None = None,
        options: RunOptions | None = None,
        **overrides: Any,
    ) -> Iterator[Event]:
        """Like ``resume``, but yield the run's events as they happen (see ``stream``)."""
        opts = run_options(options, overrides)
        request = _requests.resume(
            graph,
            thread_id,
            answer,
            resumes=resumes,
            event_kinds=opts.event_kinds,
            enqueue=opts.enqueue,
            config=opts.run_config(),
        )
        return self._events(self._stub.Resume, request, opts.timeout, opts.metadata)

    def stream_fork(
        self,
        graph: str,
        thread_id: str,
        checkpoint_id: str,
        *,
        update: Any = None,
        as_node: str | None = None,
        options: RunOptions | None = None,
        **overrides: Any,
    ) -> Iterator[Event]:
        """Like ``fork``, but yield the run's events as they happen (see ``stream``)."""
        opts = run_options(options, overrides)
        request = _requests.fork(
            graph,
            thread_id,
            checkpoint_id,
            update=update,
            as_node=as_node,
            event_kinds=opts.event_kinds,
            enqueue=opts.enqueue,
            config=opts.run_config(),
        )
        return self._events(self._stub.Fork, request, opts.timeout, opts.metadata)

    def cancel(
        self,
        graph: str,
        thread_id: str,
        *,
        run_id: str | None = None,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> bool:
        """Cancel the run active on a thread, from anywhere.

        Its stream ends with ``RunFinished(reason=CANCELLED)``; saved
        versions stay. With ``run_id``, only if that run is the active one.
        Returns False when there was nothing to cancel.
        """
        request = _requests.cancel_run(graph, thread_id, run_id)
        response = self._unary(self._stub.CancelRun, request, timeout, metadata)
        return bool(response.cancelled)

    # -- threads -----------------------------------------------------------------

    def get_state(
        self,
        graph: str,
        thread_id: str,
        checkpoint_id: str | None = None,
        *,
        subgraphs: bool = False,
        checkpoint_ns: str = "",
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> StateSnapshot:
        """A version of the thread: the newest, or ``checkpoint_id``'s.

        ``subgraphs``: each subgraph task's ``state`` is its subgraph's own
        snapshot (nested). ``checkpoint_ns``: a subgraph's version instead
        (``TaskState.checkpoint_ns``, or an event's ``namespace`` joined with "|").
        """
        request = _requests.get_state(graph, thread_id, checkpoint_id, subgraphs=subgraphs, checkpoint_ns=checkpoint_ns)
        return _decode.state_snapshot(self._unary(self._stub.GetState, request, timeout, metadata))

    def history(
        self,
        graph: str,
        thread_id: str,
        *,
        limit: int | None = None,
        before: str | None = None,
        filter: Mapping[str, Any] | None = None,
        checkpoint_ns: str = "",
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> list[StateSnapshot]:
        """The thread's versions, newest first, across all branches.

        ``before`` (a checkpoint id) keeps only older versions, for paging;
        ``filter`` keeps those whose metadata has these keys and values;
        ``checkpoint_ns`` lists a subgraph's versions instead.
        """
        request = _requests.list_history(graph, thread_id, limit=limit, before=before, filter=filter, checkpoint_ns=checkpoint_ns)
        response = self._unary(self._stub.ListHistory, request, timeout, metadata)
        return [_decode.state_snapshot(s) for s in response.snapshots]

    def update_state(
        self,
        graph: str,
        thread_id: str,
        values: Any,
        *,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> CheckpointRef:
        """Save a new version as if node ``as_node`` had returned ``values``.

        Reducers apply. Nothing runs; what is due next follows from
        ``as_node``. From an older ``checkpoint_id``, this starts a branch.
        """
        request = _requests.update_state(graph, thread_id, values, as_node=as_node, checkpoint_id=checkpoint_id)
        response = self._unary(self._stub.UpdateState, request, timeout, metadata)
        return _decode.checkpoint_ref(response.checkpoint)

    def delete_thread(
        self,
        graph: str,
        thread_id: str,
        *,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> None:
        """Delete a thread with all its versions."""
        self._unary(self._stub.DeleteThread, _requests.delete_thread(graph, thread_id), timeout, metadata)

    # -- graphs ------------------------------------------------------------------

    def graphs(
        self,
        *,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> list[GraphInfo]:
        """The graphs the server runs, by name (without edges)."""
        response = self._unary(self._stub.ListGraphs, _requests.list_graphs(), timeout, metadata)
        return [_decode.graph_info(g) for g in response.graphs]

    def graph(
        self,
        graph: str,
        *,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> GraphInfo:
        """One graph with its nodes and edges, enough to draw it."""
        response = self._unary(self._stub.GetGraph, _requests.get_graph(graph), timeout, metadata)
        return _decode.graph_info(response)

    # -- lifecycle ---------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; calls still running are cancelled."""
        self._channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- plumbing ----------------------------------------------------------------

    def _unary(self, method: Any, request: Any, timeout: float | None, metadata: CallMetadata | None) -> Any:
        try:
            return method(request, timeout=timeout, metadata=call_metadata(self._metadata, metadata))
        except grpc.RpcError as exc:
            raise error_from_rpc(exc) from exc

    def _events(
        self, method: Any, request: Any, timeout: float | None, metadata: CallMetadata | None
    ) -> Iterator[Event]:
        call = method(request, timeout=timeout, metadata=call_metadata(self._metadata, metadata))
        try:
            for message in call:
                event = _decode.event(message)
                if event is not None:  # a kind from a newer server: skip it
                    yield event
        except grpc.RpcError as exc:
            raise error_from_rpc(exc) from exc
        finally:
            call.cancel()  # no-op once the call has ended; cancels the run if we left early

    def _collect(self, thread_id: str, events: Iterator[Event]) -> RunResult:
        collector = RunCollector(thread_id)
        for event in events:
            collector.add(event)
        return collector.result()
