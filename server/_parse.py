"""Each request parsed once, into one value its handler hands down whole.

A run RPC (Invoke, Resume, Fork) is checked field by field here, in one
pass, in the order a caller reads its errors (the graph and thread, the
durable-turn fields, the run's options, then what the call carries), and
becomes a :class:`RunCall`: the run's graph, thread, storage key, config,
options and input. The handler, the retry logic, the continuation of a run
and the stream take that value; none parses the request again (as Temporal's
SDK hands ``StartWorkflowInput`` down its interceptor chain). A continued run
parses its stored request through the same :class:`Parser`.

Pure: no I/O. What needs the thread (does the version exist, is an interrupt
pending) is checked when the run starts (:mod:`server._starts`). The field
checks themselves are :mod:`server._requests`'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Union

from engine import events as ev
from graphwire_proto.v1 import graphwire_pb2 as pb
from server import _requests as req
from server._reads import Reads, thread_key
from server._records import Call
from server._registry import GraphEntry
from server._turns import Turn, turn_of

__all__ = ["ALWAYS", "Parser", "RunCall", "RunRequest", "check_call", "joined_kinds"]

#: The requests that run a graph.
RunRequest = Union[pb.InvokeRequest, pb.ResumeRequest, pb.ForkRequest]
#: What the server always asks of the engine: it needs them for the final event.
ALWAYS = frozenset({ev.RunStarted, ev.RunFinished, ev.CheckpointSaved, ev.InterruptEvent})


def check_call(request: Any) -> Call:
    """The durable-turn fields of a run request (or UpdateState), checked: INVALID_ARGUMENT naming the field."""
    call = Call(request)
    if request.request_id:
        req.ident(request.request_id, "request_id")
    on_disconnect = getattr(request, "on_disconnect", pb.ON_DISCONNECT_UNSPECIFIED)
    if on_disconnect not in (pb.ON_DISCONNECT_UNSPECIFIED, pb.ON_DISCONNECT_CANCEL, pb.ON_DISCONNECT_CONTINUE):
        raise req.bad("on_disconnect", f"unknown value {on_disconnect}")
    rc = request.config if hasattr(request, "config") and request.HasField("config") else None
    if call.keeps_events and rc is not None and rc.metadata_json and '"run_id"' in rc.metadata_json:
        meta = req.run_config("k", None, rc, default_recursion_limit=None).get("metadata") or {}
        if "run_id" in meta:
            raise req.bad(
                "config.metadata_json",
                'a "run_id" key cannot be combined with request_id, on_disconnect = CONTINUE or background '
                "(a continued run finds its versions by its own run id)",
            )
    return call


def joined_kinds(kinds: Iterable[int]) -> set[str] | None:
    """The RunEvent oneof cases a joiner asked for (RUN_FINISHED always); None: all."""
    names = set()
    for k in kinds:
        if k not in pb.EventKind.values() or k == pb.EVENT_KIND_UNSPECIFIED:
            raise req.bad("event_kinds", f"unknown event kind {k}")
        names.add(pb.RunEvent.DESCRIPTOR.fields_by_number[k + 9].name)
    return names | {"run_finished"} if names else None


@dataclass(frozen=True, slots=True)
class RunCall:
    """An Invoke, Resume or Fork, every field checked: what its run is."""

    request: RunRequest
    entry: GraphEntry
    #: The caller's thread id, and the checkpointer's (:func:`server._reads.thread_key`).
    thread_id: str
    key: str
    #: Its durable-turn fields (request_id, on_disconnect, background).
    call: Call
    #: The event classes its caller wants (None: all), and those the engine is asked for.
    wanted: frozenset[type] | None
    engine_kinds: frozenset[type] | None
    #: The engine's run options (durability, breakpoints, context).
    options: dict[str, Any]
    #: The run's config: its (caller's) thread, the version it names (if any), recursion limit, metadata, configurable.
    config: dict[str, Any]
    #: Invoke: its input. Fork: its update (``req.NO_UPDATE`` without one).
    input: Any = None
    #: Resume: its answers, as ``Pregel.aplan_resume`` takes them.
    answers: dict[str, Any] = field(default_factory=dict)
    #: Fork: the node its update is written as.
    as_node: str | None = None
    #: What it asks of a busy or waiting thread (multitask strategy, chat-safe checks).
    turn: Turn = Turn()
    #: A call through LangGraph's HTTP API: a Command's answer (a Resume's too) runs as LangGraph's
    #: ``Command(resume=...)`` does, with no interrupt pending the thread going on (see
    #: :func:`server._starts.prepare`).
    langgraph_api: bool = False

    def on_newest(self) -> dict[str, Any]:
        """Its config on the thread's newest version (a continued run going on from its own)."""
        kept = {k: v for k, v in self.config["configurable"].items() if k != "checkpoint_id"}
        return {**self.config, "configurable": kept}


class Parser:
    """Parses the requests of one server's graphs.

    Args:
        reads: the graphs (an unknown one is NOT_FOUND).
        default_recursion_limit: a run's limit when its request sets none.
        watched_kinds: the engine events the server's watchers need besides the caller's (the hub's).
        linger: seconds an engine run's version writer waits before writing, so that versions made
            meanwhile share the write (``version_linger_seconds``): engine graphs' runs; LangGraph's runtime
            writes as its loop does.
    """

    def __init__(
        self, reads: Reads, *, default_recursion_limit: int | None, watched_kinds: Callable[[], frozenset[type]], linger: float = 0.0,
    ) -> None:  # fmt: skip
        self.reads = reads
        self.default_recursion_limit = default_recursion_limit
        self.watched_kinds = watched_kinds
        self.linger = linger

    def thread(self, request: Any) -> tuple[GraphEntry, str]:
        """The request's graph and (caller's) thread id."""
        entry = self.reads.graph(req.ident(request.graph, "graph"))
        return entry, req.ident(request.thread_id, "thread_id")

    def config(self, thread_id: str, checkpoint_id: str | None, rc: pb.RunConfig | None) -> dict[str, Any]:
        return req.run_config(thread_id, checkpoint_id, rc, default_recursion_limit=self.default_recursion_limit)

    def run(self, request: RunRequest) -> RunCall:
        """``request`` checked whole: INVALID_ARGUMENT naming the first bad field, NOT_FOUND for an unknown graph."""
        entry, thread_id = self.thread(request)
        call = check_call(request)
        turn = turn_of(request)
        key = thread_key(entry.name, thread_id)
        rc = request.config if request.HasField("config") else None
        wanted, options = req.run_options(entry.graph, rc, request.event_kinds)
        if self.linger and entry.runtime == "engine":
            options["linger"] = self.linger
        engine_kinds = wanted | ALWAYS | self.watched_kinds() if wanted is not None else None
        inp: Any = None
        answers: dict[str, Any] = {}
        as_node = None
        if isinstance(request, pb.InvokeRequest):
            inp = req.invoke_input(entry.graph, request)
            config = self.config(thread_id, request.checkpoint_id if request.HasField("checkpoint_id") else None, rc)
        elif isinstance(request, pb.ResumeRequest):
            config = self.config(thread_id, None, rc)
            answers = req.resume_answers(request)
        else:
            cid = req.ident(request.checkpoint_id, "checkpoint_id")
            inp = req.fork_update(request)
            as_node = req.as_node(entry.graph, request)
            config = self.config(thread_id, cid, rc)
        return RunCall(
            request, entry, thread_id, key, call, wanted, engine_kinds, options, config,
            input=inp, answers=answers, as_node=as_node, turn=turn,
        )  # fmt: skip
