# Generated from graphwire/_async_client.py by scripts/gen_sync_client.py. DO NOT EDIT.
"""``Client``: the blocking client, derived from ``AsyncClient``.

Each method works as its ``AsyncClient`` twin does, without ``await``; see
``_async_client.py`` for why this file is generated. A ``Client`` may be
shared by threads.
"""

from __future__ import annotations

import itertools
import time
import zlib
from collections.abc import Mapping
from typing import Any

import grpc

from graphwire import _decode, _requests
from graphwire._sync_run import Run
from graphwire._sync_assistants import AssistantsClient
from graphwire._sync_store import StoreClient
from graphwire._sync_threads import ThreadsClient
from graphwire._channel import (
    CallMetadata,
    ChannelOptions,
    auth_metadata,
    call_metadata,
    channel_options,
    credentials,
    pool_size,
)
from graphwire._errors import Unavailable, error_from_rpc
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from graphwire._options import DEFAULT, RunOptions, run_options
from graphwire._retry import DEFAULT_RETRY, NO_RETRY, Retry, pause, new_request_id, resolve
from graphwire._run import RunResult
from graphwire._types import (
    CheckpointRef,
    EventKind,
    GraphInfo,
    OnDisconnect,
    RunInfo,
    RunPage,
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
        channels: How many connections to open (default 1). The calls on a
            thread (its runs, state, history, updates) take the connection
            its id hashes to; others take them in turn (a stream keeps its
            connection for its life; a re-join may take another). One
            connection multiplexes any number of calls and is all a single
            server process needs; a server run with ``--workers N`` hands
            each connection to one worker, so a client that alone carries a
            load opens several (a few times N) to reach them all, and each
            thread's turns then stay with one worker, whose caches know it.
        retry: How calls that fail with UNAVAILABLE are retried (see
            :class:`Retry`): by default 5 tries with backoff from 0.2 s, each
            run call and ``update_state`` carrying a new ``request_id`` so the
            server applies it once; False turns retrying (and the generated
            ids) off. ``RunOptions.retry`` overrides it per call.

    Run options (``invoke``, ``resume``, ``fork`` and their ``stream_``
    forms): a :class:`RunOptions` as ``options=``, or its fields as keyword
    arguments (``event_kinds=``, ``enqueue=``, ``recursion_limit=``,
    ``durability=``, ``run_metadata=``, ``interrupt_before=``,
    ``interrupt_after=``, ``context=``, ``configurable=``, ``tags=``, ``timeout=``, ``metadata=``, ``request_id=``,
    ``on_disconnect=``, ``background=``, ``retry=``), which override the fields
    of ``options``.
    """

    def __init__(
        self,
        address: str,
        *,
        token: str | None = None,
        tls: bool | bytes = False,
        options: ChannelOptions = (),
        retry: Retry | bool = True,
        channels: int = 1,
    ) -> None:
        self.retry = resolve(retry, DEFAULT_RETRY)
        creds = credentials(tls)
        opts = channel_options(options, pool_size(channels))
        if creds is None:
            self._channels = [grpc.insecure_channel(address, options=opts) for _ in range(channels)]
        else:
            self._channels = [grpc.secure_channel(address, creds, options=opts) for _ in range(channels)]
        self._stub_list = [pb_grpc.GraphServiceStub(c) for c in self._channels]  # type: ignore[no-untyped-call]
        self._stubs = itertools.cycle(self._stub_list)
        self._metadata = auth_metadata(token)
        self.address = address
        #: The server's store (long-term memory shared by threads): ``client.store.put_item(...)``.
        self.store = StoreClient(self._unary_of)
        #: The server's thread records (search, metadata, status, TTL): ``client.threads.search_page(...)``.
        self.threads = ThreadsClient(self._unary_of)
        #: The server's assistants (configurations of its graphs): ``client.assistants.create(...)``.
        self.assistants = AssistantsClient(self._unary_of)

    @property
    def _stub(self) -> pb_grpc.GraphServiceStub:
        """The next connection's stub, round-robin: each call made through it stays on that connection."""
        return next(self._stubs)

    def _stub_of(self, thread_id: str) -> pb_grpc.GraphServiceStub:
        """The stub of the connection ``thread_id``'s calls take (its id's CRC-32, modulo the connections)."""
        stubs = self._stub_list
        return stubs[zlib.crc32(thread_id.encode()) % len(stubs)] if len(stubs) > 1 else stubs[0]

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
        opts = _result_kinds(_no_background(run_options(options, overrides)))
        return self.stream(graph, thread_id, input, checkpoint_id=checkpoint_id, options=opts).result()

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
        opts = _result_kinds(_no_background(run_options(options, overrides)))
        return self.stream_resume(graph, thread_id, answer, resumes=resumes, options=opts).result()

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
        opts = _result_kinds(_no_background(run_options(options, overrides)))
        return self.stream_fork(graph, thread_id, checkpoint_id, update=update, as_node=as_node, options=opts).result()

    def stream(
        self,
        graph: str,
        thread_id: str,
        input: Any,
        *,
        checkpoint_id: str | None = None,
        options: RunOptions | None = None,
        **overrides: Any,
    ) -> Run:
        """Like ``invoke``, but yield the run's events as they happen.

        Returns an :class:`Run`: iterate it for the events (the last is
        always ``RunFinished``), and/or its ``result()``; its ``run_id``
        and ``seq`` say where it is. Leaving the loop early cancels the call,
        and with it the run (saved versions stay) unless it was started with
        ``on_disconnect="continue"``; ``with`` (or ``close()``) makes
        that happen at once. With ``background=True`` the call ends after
        ``RunStarted``; follow the run with ``join_run`` or ``get_run``.
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
        return self._run(self._stub_of(thread_id).Invoke, request, thread_id, opts)

    def stream_resume(
        self,
        graph: str,
        thread_id: str,
        answer: Any = None,
        *,
        resumes: Mapping[str, Any] | None = None,
        options: RunOptions | None = None,
        **overrides: Any,
    ) -> Run:
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
        return self._run(self._stub_of(thread_id).Resume, request, thread_id, opts)

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
    ) -> Run:
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
        return self._run(self._stub_of(thread_id).Fork, request, thread_id, opts)

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

    def join_run(
        self,
        run_id: str,
        *,
        after_seq: int = 0,
        event_kinds: Any = None,
        retry: Retry | bool | None = None,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> Run:
        """Follow a run from any replica: its events after ``after_seq`` (0: all), to its ``RunFinished``.

        For a run started with a ``request_id`` (the default while retrying
        is on), ``on_disconnect="continue"`` or ``background``, while it runs
        and for the server's retention window after it ended. A dropped
        join is joined again from the last event received. Leaving a join
        never cancels its run. ``event_kinds``: as in :class:`RunOptions`.
        Its ``result().thread_id`` is the one ``RunStarted`` names, so it is
        empty when that event is not among those read (``after_seq`` > 0).
        """
        _requests.join_run(run_id, after_seq=after_seq, event_kinds=event_kinds)  # bad arguments fail here
        return Run(
            "",
            None,
            join=self._joiner(event_kinds, metadata),
            retry=resolve(retry, self.retry),
            rejoin=True,
            timeout=timeout,
            request_id=None,
            run_id=run_id,
            after_seq=after_seq,
        )

    def get_run(
        self,
        run_id: str,
        *,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> RunInfo:
        """A run's record (status, call, replica, attempts, outcome), from any replica."""
        response = self._unary(self._stub.GetRun, _requests.get_run(run_id), timeout, metadata, self.retry)
        return _decode.run_info(response)

    def list_runs(
        self,
        graph: str,
        thread_id: str,
        *,
        limit: int | None = None,
        before: str | None = None,
        include_values: bool = False,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> list[RunInfo]:
        """A thread's runs, newest first, from the records of every replica.

        ``before`` (a run id) keeps only runs started before it, for paging (``list_runs_page``
        says where the next page starts). ``include_values``: with each run's final state
        (``RunInfo.values``), which the server otherwise does not read.
        """
        return list((self.list_runs_page(
            graph, thread_id, limit=limit, before=before, include_values=include_values, timeout=timeout, metadata=metadata,
        )).runs)  # fmt: skip

    def list_runs_page(
        self,
        graph: str,
        thread_id: str,
        *,
        limit: int | None = None,
        before: str | None = None,
        include_values: bool = False,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> RunPage:
        """A page of a thread's runs (at most ``limit``, newest first, after ``before``), and where
        the next one starts (``RunPage.next_before``, None on the last). The server reads only the
        runs it returns, so paging to the end reads each run once."""
        request = _requests.list_runs(graph, thread_id, limit=limit, before=before, include_values=include_values)
        response = self._unary(self._stub.ListRuns, request, timeout, metadata, self.retry)
        return _decode.run_page(response)

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
        return _decode.state_snapshot(self._unary(self._stub_of(thread_id).GetState, request, timeout, metadata, self.retry))

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
        response = self._unary(self._stub_of(thread_id).ListHistory, request, timeout, metadata, self.retry)
        return [_decode.state_snapshot(s) for s in response.snapshots]

    def update_state(
        self,
        graph: str,
        thread_id: str,
        values: Any,
        *,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
        request_id: str | None = None,
        configurable: Mapping[str, Any] | None = None,
        checkpoint_ns: str = "",
        retry: Retry | bool | None = None,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> CheckpointRef:
        """Save a new version as if node ``as_node`` had returned ``values``.

        Reducers apply. Nothing runs; what is due next follows from
        ``as_node``. From an older ``checkpoint_id``, this starts a branch.
        ``checkpoint_ns``: a subgraph's version instead (its namespace, as
        ``get_state(..., checkpoint_ns=)`` reads it; ``as_node`` one of its nodes).
        ``request_id``, ``retry``: as in :class:`RunOptions` (a retry after
        UNAVAILABLE answers with the version the first attempt saved).
        ``configurable``: as in :class:`RunOptions` (the routers of
        ``as_node``'s conditional edges read it, and its plain values are
        copied into the new version's metadata, as LangGraph does).
        """
        policy = resolve(retry, self.retry)
        request_id = request_id or (new_request_id() if policy.enabled else None)
        request = _requests.update_state(
            graph, thread_id, values, as_node=as_node, checkpoint_id=checkpoint_id, request_id=request_id,
            configurable=configurable, checkpoint_ns=checkpoint_ns,
        )
        response = self._unary(self._stub_of(thread_id).UpdateState, request, timeout, metadata, policy)
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
        self._unary(self._stub_of(thread_id).DeleteThread, _requests.delete_thread(graph, thread_id), timeout, metadata)

    # -- graphs ------------------------------------------------------------------

    def graphs(
        self,
        *,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> list[GraphInfo]:
        """The graphs the server runs, by name (without edges)."""
        response = self._unary(self._stub.ListGraphs, _requests.list_graphs(), timeout, metadata, self.retry)
        return [_decode.graph_info(g) for g in response.graphs]

    def graph(
        self,
        graph: str,
        *,
        timeout: float | None = None,
        metadata: CallMetadata | None = None,
    ) -> GraphInfo:
        """One graph with its nodes and edges, enough to draw it."""
        response = self._unary(self._stub.GetGraph, _requests.get_graph(graph), timeout, metadata, self.retry)
        return _decode.graph_info(response)

    # -- lifecycle ---------------------------------------------------------------

    def close(self) -> None:
        """Close the connections; calls still running are cancelled."""
        for channel in self._channels:
            channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- plumbing ----------------------------------------------------------------

    def _unary_of(self, method: str, request: Any, timeout: float | None, metadata: CallMetadata | None) -> Any:
        """A unary call of the stub's ``method`` (by name): what the store's face calls through."""
        return self._unary(getattr(self._stub, method), request, timeout, metadata)

    def _unary(
        self,
        method: Any,
        request: Any,
        timeout: float | None,
        metadata: CallMetadata | None,
        retry: Retry = NO_RETRY,
    ) -> Any:
        """One unary call, retried on UNAVAILABLE by ``retry`` within ``timeout`` (see ``_retry``)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        full_metadata = call_metadata(self._metadata, metadata)
        tries = 0
        while True:
            tries += 1
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                return method(request, timeout=left, metadata=full_metadata)
            except grpc.RpcError as exc:
                error = error_from_rpc(exc)
                if not isinstance(error, Unavailable) or tries >= retry.attempts:
                    raise error from exc
                wait = retry.backoff(tries)
                if deadline is not None and time.monotonic() + wait >= deadline:
                    raise error from exc
            pause(wait)

    def _run(self, method: Any, request: Any, thread_id: str, opts: RunOptions) -> Run:
        """The ``Run`` of a run request: its request_id set, its retries and re-joins wired."""
        policy = resolve(opts.retry, self.retry)
        request_id = opts.request_id or (new_request_id() if policy.enabled else None)
        _requests.durable_fields(
            request, request_id=request_id, on_disconnect=opts.on_disconnect, background=opts.background
        )
        _requests.turn_fields(
            request,
            multitask_strategy=opts.multitask_strategy,
            expect_checkpoint_id=opts.expect_checkpoint_id,
            if_interrupted=opts.if_interrupted,
        )
        if opts.assistant_id is not None:
            request.assistant_id = opts.assistant_id
        full_metadata = call_metadata(self._metadata, opts.metadata)
        continues = opts.background or (
            opts.on_disconnect is not None and OnDisconnect(str(opts.on_disconnect).lower()) is OnDisconnect.CONTINUE
        )
        return Run(
            thread_id,
            lambda left: method(request, timeout=left, metadata=full_metadata),
            join=self._joiner(opts.event_kinds, opts.metadata),
            retry=policy,
            rejoin=continues,
            timeout=opts.timeout,
            request_id=request_id,
        )


    def _joiner(self, event_kinds: Any, metadata: CallMetadata | None) -> Any:
        """How an ``Run`` starts a ``JoinRun`` (run id, after seq, seconds left) -> call."""
        full_metadata = call_metadata(self._metadata, metadata)

        def join(run_id: str, after_seq: int, left: float | None) -> Any:
            request = _requests.join_run(run_id, after_seq=after_seq, event_kinds=event_kinds)
            return self._stub.JoinRun(request, timeout=left, metadata=full_metadata)

        return join


def _no_background(options: RunOptions) -> RunOptions:
    """``invoke``/``resume``/``fork`` wait for the run's end, which a background call does not."""
    if options.background:
        raise ValueError(
            "background=True returns right after RunStarted, so invoke/resume/fork would have no result:"
            " use stream/stream_resume/stream_fork(..., background=True), then join_run(run.run_id) or get_run"
        )
    return options
