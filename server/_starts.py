"""What a run starts from, computed inside the run's slot, given its lease.

A start, given the run's lease and id, returns ``(input, config, saved)``:
``saved`` is the CheckpointSaved event of a version the start itself wrote (a
Fork's update, which names the run in its metadata as the run's own versions
do, so a ROLLBACK of the run deletes it too), or None.

A run call (:class:`server._parse.RunCall`, checked whole before it waits for
the thread) is prepared (:func:`prepare`: what needs the thread as the call
arrives, a Resume's plan, a named version's existence) into a :data:`Start`;
the run calls it once it holds the thread (its slot, and its lease when the
checkpointer has leases), so whatever it reads or writes there (a Resume's
second check, a Fork's update version) cannot race another run on the thread.
:func:`events_of` is the run itself: the engine's events from that start. The
lease itself is never put in a config: the start and the run pass it to the
engine as ``lease=``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, Awaitable, Callable

from engine import events as ev
from engine.checkpoint.base import Lease
from engine.host import RUN_KEY, Landing, with_callback_events
from engine.errors import NotFoundError
from engine.types import Command
from graphwire_proto.v1 import graphwire_pb2 as pb
from server import _convert as conv
from server import _requests as req
from server._parse import RunCall
from server._stream import RunEvents

__all__ = ["Start", "const", "events_of", "prepare"]

Start = Callable[[Lease | None, str], Awaitable[tuple[Any, dict[str, Any], "ev.CheckpointSaved | None"]]]


def const(inp: Any, config: dict[str, Any]) -> Start:
    """A start that needs nothing from the thread: this input and config."""

    async def start(lease: Lease | None, run_id: str) -> tuple[Any, dict[str, Any], ev.CheckpointSaved | None]:
        return inp, config, None

    return start


async def _version_exists(run: RunCall) -> None:
    """NOT_FOUND, naming the caller's ids, before the run takes the slot, for a version the request names.

    One row read (no snapshot built); the run reads the version again, inside its slot.
    """
    if await run.entry.graph.checkpointer.aget_tuple(run.config) is None:
        raise NotFoundError(f"thread {run.thread_id!r} has no checkpoint {run.config['configurable']['checkpoint_id']!r}")


async def prepare(run: RunCall) -> Start:
    """``run``'s start, planned against the thread as it is when the call arrives."""
    graph, config = run.entry.graph, run.config
    if isinstance(run.request, pb.ResumeRequest):
        command = _as_command(run)
        if command is not None:  # LangGraph's HTTP API: its answer, whatever is pending when it runs
            if await graph.checkpointer.aget_tuple(config) is None:
                raise NotFoundError(f"thread {run.thread_id!r} does not exist in graph {run.entry.name!r}")
            return const(command, config)
        # what it answers; its run checks it again
        resume = await graph.aplan_resume(config, answers_name="resumes_json", thread_name=run.thread_id, **run.answers)
        return const(resume, config)
    if isinstance(run.request, pb.InvokeRequest):
        if "checkpoint_id" in config["configurable"]:  # an empty one names none, as before
            await _version_exists(run)
        return const(run.input, config)
    if run.input is req.NO_UPDATE:
        await _version_exists(run)
        return const(None, config)
    update, as_node = run.input, run.as_node

    async def start(lease: Lease | None, run_id: str) -> tuple[Any, dict[str, Any], ev.CheckpointSaved | None]:
        # Inside the run's slot: the update version and the run are one unit
        # (an unknown version is the update's NOT_FOUND).
        mine = {**config, "metadata": {**(config.get("metadata") or {}), RUN_KEY: run_id}}
        new = await graph.aupdate_state(mine, update, as_node=as_node, lease=lease)
        return None, new, conv.saved_event(await graph.aget_state(new, run_ids=True))

    return start


def _as_command(run: RunCall) -> Command[Any] | None:
    """A Resume through LangGraph's HTTP API, as LangGraph's server runs it: ``Command(resume=...)``.

    Its answer goes to the questions pending when the run holds the thread (by interrupt id, or the
    first asked), and with none pending the run goes on from the thread's version (a static
    breakpoint's next nodes run; a finished thread's run runs nothing), where a gRPC Resume is
    FAILED_PRECONDITION. ``null`` (no answer) stays a Resume: it continues a static breakpoint (LangGraph's
    ``Command(resume=None)`` fails). None: not such a call."""
    if not run.langgraph_api:
        return None
    if "answers" in run.answers:
        return Command(resume=run.answers["answers"])
    answer = run.answers.get("answer")
    return None if answer is None else Command(resume=answer)


def events_of(run: RunCall, start: Start) -> RunEvents:
    """The engine's events of ``run`` from ``start``, given its run id and lease."""
    graph = run.entry.graph

    async def events(run_id: str, lease: Lease | None, landing: Landing) -> AsyncIterator[ev.Event]:
        inp, config, saved = await start(lease, run_id)
        # The engine reports the versions it stores (LangGraph's runtime does not: its writes are its loop's).
        reports: dict[str, Any] = {"landing": landing} if run.entry.runtime == "engine" else {}

        def begun(config: dict[str, Any]) -> AsyncIterator[ev.Event]:
            return graph.aevents(
                inp, config, kinds=run.engine_kinds, run_id=run_id, lease=lease, thread_name=run.thread_id,
                # a Command through LangGraph's HTTP API runs as LangGraph's server runs it (_as_command)
                strict=not (run.langgraph_api and isinstance(inp, Command)),
                **run.options, **reports,
            )  # fmt: skip

        # LangChain's callback events ("events" over HTTP) come from a handler in the run's own config
        callbacks = run.engine_kinds is not None and ev.CallbackEvent in run.engine_kinds
        found = with_callback_events(begun, _given(run), config, run_id) if callbacks else begun(config)
        async for e in found:
            yield e
            if saved is not None and isinstance(e, ev.RunStarted):
                yield saved  # the version the start wrote (Fork's update), right after RunStarted

    return events


def _given(run: RunCall) -> Any:
    """The run's input as its caller gave it (what LangChain's events show as the graph's input)."""
    request = run.request
    if isinstance(request, pb.InvokeRequest) and (request.input_json or request.command_json):
        return json.loads(request.command_json or request.input_json)
    return run.input
