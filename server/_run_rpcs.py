"""Invoke, Resume and Fork: a request parsed once, then its run streamed to the caller.

Each run RPC is one line of work: resolve the assistant it names, if any,
to its graph and defaults (:meth:`server._assistant_rpcs.AssistantRpcs.resolve`),
parse the request whole
(:meth:`server._parse.Parser.run`: INVALID_ARGUMENT naming the first bad
field), answer it as a retry when its ``request_id`` names a run already
(:class:`server._continuing.Continuations`), else prepare its start
(:func:`server._starts.prepare`) and hand it to the stream
(:class:`server._stream.Streams`), which takes the thread's slot (and lease),
records the run, runs the engine and sends its events.

A Resume, and a Fork with an update, look for their first attempt before
they start (:attr:`server._records.Call.looks_first`); any other call finds
it when its record's insert does (:class:`server._records.Duplicate`). A call
that finds its thread busy may be racing its own twin (the same call sent
twice at once): it joins the twin once the twin has recorded its run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

import grpc

from server._continuing import Continuations
from server._errors import RpcError, ThreadBusy
from server._parse import Parser, RunRequest
from server._records import Duplicate, Records
from server._starts import events_of, prepare
from server._stream import Streams
from server._thread_book import expect

__all__ = ["RunRpcs"]

# How many times a call with a request_id starts: again when its thread, found busy,
# came free before any twin recorded a run, or when its id expired as it started.
_STARTS = 3


class RunRpcs:
    """Runs a graph for Invoke, Resume and Fork.

    Args:
        parse: the server's request parser.
        records: the replica's run records.
        streams: runs and their callers' streams.
        continuations: answers a retry of a call whose run exists.
        resolve: the request as it runs (one naming an assistant: naming its graph, with its defaults).
    """

    def __init__(
        self, parse: Parser, records: Records, streams: Streams, continuations: Continuations,
        *, resolve: Callable[[RunRequest], Awaitable[RunRequest]],
    ) -> None:  # fmt: skip
        self.resolve = resolve
        self.parse = parse
        self.records = records
        self.streams = streams
        self.continuations = continuations

    async def serve(self, request: RunRequest, context: grpc.aio.ServicerContext) -> None:
        """Run ``request``'s graph; its events are written to ``context`` (see :mod:`server._stream`)."""
        run = self.parse.run(await self.resolve(request))
        if getattr(context, "langgraph_api", False):  # as LangGraph's server runs it (server._run_api.CallContext)
            run = dataclasses.replace(run, call=dataclasses.replace(run.call, keeps_request=True), langgraph_api=True)
        call = run.call
        expected = getattr(context, "expected_thread", None)  # of the thread's record (server._run_api.CallContext's)
        if expected is not None:
            if not self.streams.joint:  # a start that cannot check it in its own write: a read, first
                await expect(self.streams.threads, run.entry.name, run.key, expected)
            call = dataclasses.replace(call, expected=expected)
        if call.request_id is not None and call.looks_first:
            found = await self.records.find(run.key, call.request_id)
            if found is not None:
                await self.continuations.answer(context, found, call)
                return
        start = events_of(run, await prepare(run))
        for starts_left in reversed(range(_STARTS)):
            found = None
            try:
                await self.streams.serve(context, run.entry, run.thread_id, run.turn, run.wanted, start, call)
                return
            except Duplicate as dup:  # a retry (its record's insert found the first attempt's): nothing was sent
                found = await self.records.current(dup.first)  # past its window, the id is free: a new call
            except ThreadBusy:  # nothing was sent; a retry whose first attempt runs, or is starting, anywhere joins it
                twin = await self.continuations.twin(run.key, call.request_id) if call.request_id is not None else "busy"
                if twin == "busy" or (twin == "free" and not starts_left):
                    raise
                found = twin if not isinstance(twin, str) else None  # "free": the thread is, start again
            if found is not None:
                await self.continuations.answer(context, found, call)
                return
        raise RpcError(
            grpc.StatusCode.ABORTED,
            f"request_id {call.request_id!r}: thread {run.thread_id!r} changed hands {_STARTS} times as the call started; "
            "nothing of it was applied, and a retry with the same request_id is safe",
        )
