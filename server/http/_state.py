"""A thread's versions: ``/threads/{id}/state`` (read, update) and ``/threads/{id}/history``.

Over :class:`server._thread_rpcs.ThreadRpcs` (GetState, UpdateState,
ListHistory): the versions, checks and fencing are the gRPC API's; the
answers are LangGraph's ``ThreadState``. A checkpoint is named as LangGraph's
SDK names it: ``{"checkpoint_id": ..., "checkpoint_ns": ...}`` (or the older
``checkpoint_id`` field alone).
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request

from graphwire_proto.v1 import graphwire_pb2 as pb
from server.http import _shapes as shape
from server.http._common import Body, Limit, call, dumps, graph_of, metadata_of, service, thread_of
from server.http._errors import HttpError

__all__ = ["router"]

router = APIRouter(tags=["thread state"])


class Checkpoint(Body):
    checkpoint_id: str | None = None
    checkpoint_ns: str | None = None
    thread_id: str | None = None
    checkpoint_map: dict[str, Any] | None = None


class Config(Body):
    """A config naming a version, as LangGraph's server takes ``before``: ``{"configurable": {"checkpoint_id": ...}}``."""

    configurable: Checkpoint


class StateAt(Body):
    checkpoint: Checkpoint
    subgraphs: bool = False


class UpdateState(Body):
    values: dict[str, Any] | list[Any] | None = None
    as_node: str | None = None
    checkpoint: Checkpoint | None = None
    checkpoint_id: str | None = None


class History(Body):
    limit: Limit = 10
    before: str | Checkpoint | Config | None = None
    metadata: dict[str, Any] | None = None
    checkpoint: Checkpoint | None = None


def _checkpoint_id(checkpoint: Checkpoint | None, checkpoint_id: str | None = None) -> str | None:
    return (checkpoint.checkpoint_id if checkpoint is not None else None) or checkpoint_id or None


def _namespace(checkpoint: Checkpoint | None) -> str:
    """The subgraph a checkpoint names (a task's, as get_state(subgraphs=True) shows it); "": the graph's own."""
    return (checkpoint.checkpoint_ns if checkpoint is not None else None) or ""


async def _state(request: Request, thread_id: str, checkpoint_id: str | None, ns: str, subgraphs: bool) -> dict[str, Any]:
    svc = service(request)
    graph = await graph_of(svc, thread_id)
    message = pb.GetStateRequest(graph=graph, thread_id=thread_id, subgraphs=subgraphs, checkpoint_ns=ns)
    if checkpoint_id is not None:
        message.checkpoint_id = checkpoint_id
    try:
        found = await call(svc.thread_rpcs.GetState, message)
    except HttpError as e:
        if e.status != 404 or checkpoint_id is not None or ns:
            raise
        return shape.empty_state(thread_id)  # a thread with a record and no version yet, as LangGraph reads one
    return shape.state(thread_id, found, ns)


@router.get("/threads/{thread_id}/state")
async def get_state(thread_id: str, request: Request, subgraphs: bool = False) -> dict[str, Any]:
    return await _state(request, thread_id, None, "", subgraphs)


@router.get("/threads/{thread_id}/state/{checkpoint_id}")
async def get_state_at(thread_id: str, checkpoint_id: str, request: Request, subgraphs: bool = False) -> dict[str, Any]:
    return await _state(request, thread_id, checkpoint_id, "", subgraphs)


@router.post("/threads/{thread_id}/state/checkpoint")
async def post_state_at(thread_id: str, body: StateAt, request: Request) -> dict[str, Any]:
    return await _state(request, thread_id, body.checkpoint.checkpoint_id, _namespace(body.checkpoint), body.subgraphs)


@router.post("/threads/{thread_id}/state")
async def update_state(thread_id: str, body: UpdateState, request: Request) -> dict[str, Any]:
    svc = service(request)
    thread = await thread_of(svc, thread_id)
    if metadata_of(thread).get(shape.UNBOUND) is True:
        raise HttpError(  # as LangGraph's server answers it
            400, f"thread {thread_id!r} has no graph yet (it was made without metadata.graph_id on a server of several "
            "graphs): make a run on it first, or name it with client.threads.update(thread_id, metadata={'graph_id': ...})",
        )  # fmt: skip
    # no values: no writes (LangGraph's update_state(config, None, as_node)), sent as null
    message = pb.UpdateStateRequest(graph=thread.graph, thread_id=thread_id, values_json=json.dumps(body.values))
    if body.as_node:  # unset: the engine picks the node (its field's presence is what the service reads)
        message.as_node = body.as_node
    cid = _checkpoint_id(body.checkpoint, body.checkpoint_id)
    if cid is not None:
        message.checkpoint_id = cid
    message.checkpoint_ns = ns = _namespace(body.checkpoint)
    try:
        done = await call(svc.thread_rpcs.UpdateState, message)
    except HttpError as e:  # the graph refused the update (a node it lacks...): LangGraph's server answers 400
        if e.status != 422:
            raise
        raise HttpError(400, e.message) from e
    made = shape.checkpoint(thread_id, done.checkpoint.checkpoint_id, ns)
    # As LangGraph's server answers: the version, also as a config's configurable and by its id alone.
    return {"checkpoint": made, "configurable": dict(made), "checkpoint_id": made["checkpoint_id"]}


async def _history(request: Request, thread_id: str, limit: int, before: str | None, metadata: dict[str, Any] | None, ns: str) -> list[dict[str, Any]]:
    svc = service(request)
    graph = await graph_of(svc, thread_id)
    message = pb.ListHistoryRequest(graph=graph, thread_id=thread_id, limit=limit, filter_json=dumps(metadata or None), checkpoint_ns=ns)
    if before:
        message.before = before
    found = await call(svc.thread_rpcs.ListHistory, message)
    return [shape.state(thread_id, s, ns) for s in found.snapshots]


@router.get("/threads/{thread_id}/history")
async def get_history(thread_id: str, request: Request, limit: Limit = 10, before: str | None = None) -> list[dict[str, Any]]:
    return await _history(request, thread_id, limit, before, None, "")


@router.post("/threads/{thread_id}/history")
async def post_history(thread_id: str, body: History, request: Request) -> list[dict[str, Any]]:
    found = body.before.configurable if isinstance(body.before, Config) else body.before
    before = found.checkpoint_id if isinstance(found, Checkpoint) else found
    if body.checkpoint is not None and body.checkpoint.checkpoint_id:
        raise HttpError(422, "checkpoint.checkpoint_id: graphwire lists a thread's history from its newest version; page with before")
    ns = _namespace(body.checkpoint)
    return await _history(request, thread_id, body.limit, before, body.metadata, ns)
