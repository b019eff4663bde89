"""What a Resume answers, checked twice: when it arrives, and when its run starts.

A Resume names the question it answers: the interrupt ids of ``resumes_json``,
or, for a single ``resume``, the first interrupt pending when the call
arrived (a static breakpoint: the version the thread waited at). Between the
two checks the call may wait for the thread (``enqueue``, or another
replica's lease), and another run may answer that question and stop at the
next one. So the second check, inside the run's slot and lease, is the one
that decides: a question no longer pending is FAILED_PRECONDITION naming what
is pending now, and the answer is never applied to a question nobody asked it.
"""

from __future__ import annotations

import re
from typing import Any

import grpc

from engine import Command
from engine import events as ev
from engine.checkpoint.base import Lease
from engine.types import StateSnapshot
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._errors import RpcError
from server._json import decode_json
from server._reads import bad
from server._registry import GraphEntry
from server._starts import Start

__all__ = ["prepare_resume"]

#: An interrupt id's shape (as the engine's and LangGraph's: 32 lowercase hex digits).
_ID = re.compile(r"[0-9a-f]{32}")


async def prepare_resume(entry: GraphEntry, thread_id: str, request: pb.ResumeRequest, config: dict[str, Any]) -> Start:
    """Check ``request`` against the thread as it is now; the returned start checks it again."""
    has_one = bool(request.resume_json.strip())
    if has_one and request.resumes_json:
        raise bad("resumes_json", "set either resume_json or resumes_json, not both")
    if not has_one and not request.resumes_json:
        raise bad("resume_json", 'required (or resumes_json); send "null" for no answer')
    if request.resumes_json:
        answer: Any = {k: decode_json(v, f"resumes_json[{k!r}]") for k, v in request.resumes_json.items()}
    else:
        answer = decode_json(request.resume_json, "resume_json")
    graph = entry.graph
    state = await graph.aget_state(config)
    if state.metadata is None:
        raise RpcError(grpc.StatusCode.NOT_FOUND, f"thread {thread_id!r} does not exist in graph {entry.name!r}")
    if not state.interrupts and state.next and answer is None and not request.resumes_json:
        # A static breakpoint: continue, if the thread still waits at the version the caller saw.
        seen = _checkpoint_id(state)

        async def go_on(lease: Lease | None) -> tuple[Any, dict[str, Any], ev.CheckpointSaved | None]:
            now = await graph.aget_state(config)
            if _checkpoint_id(now) != seen or now.interrupts or not now.next:
                raise RpcError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"thread {thread_id!r} moved on while this Resume waited for it: it waited at version "
                    f"{seen} (next: {list(state.next)}); {_pending(now)}",
                )
            return None, config, None

        return go_on
    if request.resumes_json:
        named = dict(answer)
        malformed = sorted(k for k in named if not _ID.fullmatch(k))
        if malformed and state.interrupts:
            raise bad("resumes_json", f"{malformed} are not interrupt ids (pending on thread {thread_id!r}: {[i.id for i in state.interrupts]})")
    elif state.interrupts:
        # Keyed by id even for one interrupt, so an answer that is itself a JSON
        # object is never mistaken for a map of answers. With several pending, it
        # answers the first.
        named = {state.interrupts[0].id: answer}
    else:
        named = {}
    _check(thread_id, named, state, "")

    async def go(lease: Lease | None) -> tuple[Any, dict[str, Any], ev.CheckpointSaved | None]:
        # Inside the slot and the lease: nothing can answer these questions now but this run.
        _check(thread_id, named, await graph.aget_state(config), " while this Resume waited for the thread")
        return Command(resume=named), config, None

    return go


def _check(thread_id: str, named: dict[str, Any], state: StateSnapshot, when: str) -> None:
    pending = {i.id for i in state.interrupts}
    if not pending:
        raise RpcError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"thread {thread_id!r} has no pending interrupt to resume" + (f" (answered{when}: {sorted(named)})" if when else ""),
        )
    gone = sorted(set(named) - pending)
    if gone:
        raise RpcError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"thread {thread_id!r}: interrupt(s) {gone} not pending{' any more' if when else ''}"
            f"{(' (answered' + when + ')') if when else ''}; {_pending(state)}",
        )


def _pending(state: StateSnapshot) -> str:
    """What the thread waits for now, for a message."""
    if state.interrupts:
        return "pending now: " + ", ".join(f"{i.id} ({_node_of(state, i.id)})" for i in state.interrupts)
    if state.next:
        return f"no interrupt pending now (next: {list(state.next)})"
    return "no interrupt pending now (the thread's last run ended)"


def _node_of(state: StateSnapshot, interrupt_id: str) -> str:
    return next((t.name for t in state.tasks for i in t.interrupts if i.id == interrupt_id), "?")


def _checkpoint_id(state: StateSnapshot) -> str | None:
    return state.config["configurable"].get("checkpoint_id")
