"""What every route module shares: the service behind the app, calling its parts, and a thread's graph.

Routes call the gRPC servicer's parts (``service.assistants``,
``service.thread_records``...) with protobuf requests, so checks, tenancy and
behaviour are the gRPC API's exactly; :func:`call` turns what they raise into
the HTTP status of the one table (:mod:`server.http._errors`).

A graphwire thread belongs to a graph (its storage key carries it);
LangGraph's threads name none. Over HTTP a thread's graph is fixed when it is
created (:func:`graph_for_new`: its metadata's ``graph_id``, which LangGraph's
server records there too, else the server's only graph), and found again by
its id (:func:`graph_of`), among the calling tenant's threads.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import Request
from pydantic import BaseModel, ConfigDict, Field

from graphwire_proto.v1 import graphwire_pb2 as pb
from engine.host import Expected, default_assistant_id
from server._errors import RpcError
from server._reads import thread_key
from server.http._errors import HttpError, http_error
from server.http._run_body import RunBody
from server.http._shapes import UNBOUND
from server.service import GraphService

__all__ = ["Body", "Limit", "Offset", "SeenThreads", "assistant_id_of", "call", "check_run_thread", "expected_of", "dumps", "graph_for_new", "graph_of", "service", "thread_of", "bind", "metadata_of", "movable"]

Req = TypeVar("Req")
Resp = TypeVar("Resp")
#: A page's size and start: checked here for their sign and width (the gRPC fields are uint32),
#: by the gRPC side for its own bounds.
Limit = Annotated[int, Field(ge=1, le=2**32 - 1)]
Offset = Annotated[int, Field(ge=0, le=2**32 - 1)]


class Body(BaseModel):
    """A request body: an unknown field is refused by name (422), never ignored."""

    model_config = ConfigDict(extra="forbid")


def service(request: Request) -> GraphService:
    """The GraphService the app was built over."""
    found: GraphService = request.app.state.service
    return found


async def call(method: Callable[[Req, Any], Awaitable[Resp]], message: Req) -> Resp:
    """``method(message)`` of a servicer part; a failure becomes its HTTP status (see the module's doc)."""
    try:
        return await method(message, None)
    except HttpError:
        raise
    except Exception as exc:
        raise http_error(exc) from exc


def dumps(value: Any) -> str:
    """A JSON value as the text field of a request ("" for None: the field's default)."""
    return "" if value is None else json.dumps(value)


async def graph_of(svc: GraphService, thread_id: str) -> str:
    """The graph of the calling tenant's thread ``thread_id``; 404 when it has none, 409 when several do."""
    return (await thread_of(svc, thread_id)).graph


async def thread_of(svc: GraphService, thread_id: str) -> pb.ThreadInfo:
    """The calling tenant's thread ``thread_id`` (its record); 404 when it has none, 409 when several graphs do."""
    found = await call(
        svc.thread_records.SearchThreads, pb.SearchThreadsRequest(filter=pb.ThreadFilter(thread_ids=[thread_id]), limit=2)
    )
    graphs = sorted({t.graph for t in found.threads})
    if not graphs:
        raise HttpError(404, f"thread {thread_id!r} not found")
    if len(graphs) > 1:
        raise HttpError(
            409, f"thread id {thread_id!r} names a thread in each of the graphs {', '.join(graphs)} (made over gRPC): "
            "use the gRPC API, which names the graph",
        )  # fmt: skip
    return found.threads[0]


def graph_for_new(svc: GraphService, metadata: dict[str, Any] | None) -> tuple[str, bool]:
    """The graph a thread created over HTTP belongs to, and whether it was named: ``metadata.graph_id``,
    else the server's only graph; on a server of several, a thread made without one (as LangGraph's
    SDKs make them: ``threads.create()``) is kept under the first graph, unbound
    (:data:`~server.http._shapes.UNBOUND`, False here), until its first run names the graph."""
    named = (metadata or {}).get("graph_id")
    if named is not None:
        if not isinstance(named, str):
            raise HttpError(422, "metadata.graph_id: a graph's name (a string)")
        return named, True
    graphs = sorted(svc.graphs)
    return graphs[0], len(graphs) == 1


async def check_run_thread(service: GraphService, run: RunBody, expected: Expected | None = None) -> str | None:
    """A run on a thread: the thread, if it exists, is of the assistant's graph (a graphwire thread
    belongs to one); one that does not is 404 (LangGraph's default), or made here, for the run, when
    ``if_not_exists`` is "create". Returns the thread's graph (None: the thread was not there).

    As LangGraph's server, the thread then records in its metadata the graph and the assistant its
    latest run was made with (``graph_id``, ``assistant_id``: a graph's name stands for its default
    assistant), which clients search threads by: LangChain's agent-chat-ui lists an assistant's
    threads with ``threads.search(metadata={"assistant_id": ...})``. ``expected``: :func:`expected_of`'s for
    this run, whose labels are taken as they are (its assistant is not resolved again)."""
    thread_id = run.request.thread_id
    try:
        thread: pb.ThreadInfo | None = await thread_of(service, thread_id)
    except HttpError as e:
        if e.status != 404 or run.if_not_exists == "reject":
            raise
        thread = None
    runs, labels = (expected.holds["graph_id"], dict(expected.holds)) if expected is not None else await _labels(service, run)
    if thread is None:  # as LangGraph's: the run's metadata too (config.metadata and metadata, as the run record has them)
        given = json.loads(run.request.config.metadata_json) if run.request.config.metadata_json else {}
        made = pb.CreateThreadRequest(
            graph=runs, thread_id=thread_id, metadata_json=dumps({**given, **labels}), if_exists=pb.IF_EXISTS_DO_NOTHING,
        )  # fmt: skip
        await call(service.thread_records.CreateThread, made)
        return None
    metadata = metadata_of(thread)
    if runs != thread.graph and await movable(service, thread, metadata):
        # Made without a graph (threads.create() on a server of several): its first run's assistant names it.
        await bind(service, thread, runs, {**metadata, **labels})
        return runs
    if runs != thread.graph:
        raise HttpError(
            409, f"thread {thread_id!r} belongs to graph {thread.graph!r}; assistant {run.request.assistant_id!r} runs graph "
            f"{runs!r} (a graphwire thread belongs to one graph)",
        )  # fmt: skip
    if metadata.get(UNBOUND) is True:
        labels[UNBOUND] = False  # bound now (to the graph it was kept under)
    if any(metadata.get(k) != v for k, v in labels.items()):  # written when they change: a chat's later turns read only
        await call(service.thread_records.UpdateThread, pb.UpdateThreadRequest(graph=runs, thread_id=thread_id, metadata_json=dumps(labels)))
    return thread.graph


_REPLACING = (pb.MULTITASK_STRATEGY_INTERRUPT, pb.MULTITASK_STRATEGY_ROLLBACK)


class SeenThreads:
    """The threads (storage keys) whose runs this process started lately, their records checked: a run on one
    of them has its start check the record in its own write (:func:`expected_of`) instead of a read before it.
    A hint only: the write decides, and a record changed since costs that run one more try. A thread not seen
    (a new one, or another replica's until now) is checked first as before: a start that found no record would
    cost its whole try again. The :data:`MAX` most recent are kept."""

    MAX = 4096

    def __init__(self) -> None:
        self._keys: OrderedDict[str, None] = OrderedDict()

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def add(self, key: str) -> None:
        keys = self._keys
        keys[key] = None
        keys.move_to_end(key)
        if len(keys) > self.MAX:
            keys.popitem(last=False)

    def discard(self, key: str) -> None:
        self._keys.pop(key, None)


async def expected_of(service: GraphService, run: RunBody) -> Expected | None:
    """What :func:`check_run_thread` finds with nothing to do (a chat's later turns), for the run's start to
    check in its own write instead of a read before it (``server._stream``): the thread's record, of the
    assistant's graph and the only one of its id, already names the graph and the assistant, and is bound.
    Unmet, the start writes nothing and the run is started again after :func:`check_run_thread` (``_runs``).
    None: the assistant does not resolve here (the check says why, after the thread's own error if any), or
    the run replaces one running on the thread (cancelled first: that waits for the thread to be checked)."""
    if run.request.multitask_strategy in _REPLACING:
        return None
    try:
        runs, labels = await _labels(service, run)
    except (HttpError, RpcError):
        return None
    return Expected(thread_key(runs, run.request.thread_id), holds=labels, lacks={UNBOUND: True})


async def _labels(service: GraphService, run: RunBody) -> tuple[str, dict[str, Any]]:
    """The graph ``run``'s assistant runs, and what its thread's metadata names it by (``graph_id`` and
    ``assistant_id``: a graph's name stands for its default assistant, which runs that graph unread)."""
    named = run.request.assistant_id
    runs = named if named in service.graphs else (await service.assistants.resolve(run.request)).graph
    return runs, {"graph_id": runs, "assistant_id": assistant_id_of(service, named)}


def assistant_id_of(service: GraphService, named: Any) -> Any:
    """The id of the assistant a call names, as LangGraph's server keeps and answers it: a served graph's
    name stands for that graph's default assistant; anything else is as given."""
    return default_assistant_id(named) if isinstance(named, str) and named in service.graphs else named


def metadata_of(thread: pb.ThreadInfo) -> dict[str, Any]:
    """A thread record's metadata as stored (:data:`UNBOUND` included)."""
    found: dict[str, Any] = json.loads(thread.metadata_json) if thread.metadata_json else {}
    return found


async def movable(service: GraphService, thread: pb.ThreadInfo, metadata: dict[str, Any]) -> bool:
    """Whether ``thread`` (its ``metadata``) was made without a graph and has no version yet: its
    graph is still to be named, by its first run or a ``PATCH`` of ``metadata.graph_id``."""
    if metadata.get(UNBOUND) is not True:
        return False
    found = await call(service.thread_records.GetThread, pb.GetThreadRequest(graph=thread.graph, thread_id=thread.thread_id, include_values=True))
    return not found.values_json


async def bind(service: GraphService, thread: pb.ThreadInfo, graph: str, metadata: dict[str, Any]) -> None:
    """A :func:`movable` thread made again under ``graph`` with ``metadata`` (its ttl kept, a new
    ``created_at``), the record it was kept under deleted."""
    made = pb.CreateThreadRequest(
        graph=graph, thread_id=thread.thread_id, metadata_json=dumps({**metadata, "graph_id": graph, UNBOUND: False}),
        if_exists=pb.IF_EXISTS_DO_NOTHING,
    )  # fmt: skip
    if thread.HasField("ttl"):
        made.ttl.CopyFrom(thread.ttl)
    await call(service.thread_records.CreateThread, made)
    try:
        await call(service.thread_rpcs.DeleteThread, pb.DeleteThreadRequest(graph=thread.graph, thread_id=thread.thread_id))
    except HttpError as e:
        if e.status != 404:  # (404: a call made at the same time bound it first)
            raise
