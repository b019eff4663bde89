"""Run progress for in-process watchers: a small publish/subscribe hub.

The GraphService reports what each run does (:meth:`RunHub.track`); a
watcher (the inspector's server-sent events) :meth:`RunHub.subscribe`\\s and
receives plain JSON-ready dicts, one per step of progress::

    {"type": "run_started",      "graph", "thread_id", "run_id", "nodes", "checkpoint_id"}
    {"type": "node_started",     ..., "step", "node", "task_id"}
    {"type": "node_finished",    ..., "step", "node", "task_id", "error", "interrupted"}
    {"type": "checkpoint_saved", ..., "checkpoint": {"checkpoint_id", "parent_id", "step",
                                                     "source", "next", "created_at"}}
    {"type": "interrupt",        ..., "node", "interrupt_id"}
    {"type": "values",           ..., "step", "values"}          the state the run holds, per step
                                 (``values`` None and ``values_bytes`` its size when its JSON
                                 is over :data:`VALUES_LIMIT`)
    {"type": "inner",            ..., "ns", "kind", "node", "task_id", ...}
                                 what a running node calls: "message" (a chat model's
                                 token, "text"), "tool" (LangGraph's tool event,
                                 "payload"), "task_started"/"task_finished" (a subgraph's
                                 node, under ``ns``)
    {"type": "run_finished",     ..., "reason", "checkpoint_id"}

Every run message carries ``nodes``: the nodes the run is at after that
event (running, or due next between steps), so a watcher just mirrors it.
A subscription's first message is ``{"type": "live", "runs": [...]}``: the
runs in flight when it started, each with its ``nodes``.

Costs when nobody watches: a dict insert and delete per run and a type test
per event the run produces anyway; no message is built. The engine is asked
for task, values and message events (:meth:`engine_kinds`) only while someone
watches (tool events too, when the caller named its kinds); while one does,
each step's values are encoded once more, to keep a bulky state out of the
watchers' queues (:data:`VALUES_LIMIT`). A watcher that arrives mid-run
sees where the run is from its last saved version's ``next`` until the next
run starts.

A slow watcher never slows a run: each subscription holds at most
``max_pending`` messages; past that it drops them and its next message is
``{"type": "resync", "runs": [...]}`` (re-read what you show).

With tenants, a run belongs to the tenant whose call started it
(:data:`server._tenants.TENANT` when :meth:`RunHub.track` is called), and a
watcher sees only the runs of the tenant it watches as (``TENANT`` when it
subscribes or asks for :meth:`RunHub.live_runs`): another tenant's runs are
not in its live list and none of their messages reach it, as their threads
do not exist for it. Without tenants every run and watcher has tenant None.

Everything runs on the server's event loop; nothing here is thread-safe.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from engine import events as ev
from engine.host import Landing
from server._json import encode
from server._tenants import TENANT

__all__ = ["VALUES_LIMIT", "RunHub", "Subscription", "Tracker"]

_WATCHED_KINDS: frozenset[type] = frozenset({ev.TaskStarted, ev.TaskFinished, ev.ValuesEvent, ev.MessageChunk, ev.ToolEvent})
_NONE: frozenset[type] = frozenset()
#: The largest state (its JSON, in characters) a "values" message carries: a watcher's queue
#: holds up to ``max_pending`` messages, which must not each hold a bulky state.
VALUES_LIMIT = 64 * 1024
_CLOSED = object()
_RESYNC = object()


@dataclass(slots=True)
class _LiveRun:
    graph: str
    thread_id: str
    run_id: str
    tenant: str | None
    nodes: list[str] = field(default_factory=list)
    checkpoint_id: str | None = None

    def head(self, type_: str) -> dict[str, Any]:
        return {"type": type_, "graph": self.graph, "thread_id": self.thread_id, "run_id": self.run_id, "nodes": list(self.nodes)}

    def view(self) -> dict[str, Any]:
        return {"graph": self.graph, "thread_id": self.thread_id, "run_id": self.run_id, "nodes": list(self.nodes), "checkpoint_id": self.checkpoint_id}


class Subscription:
    """One watcher's stream of messages: ``async for msg in sub``, or :meth:`get` with a timeout."""

    def __init__(self, hub: RunHub, tenant: str | None, max_pending: int) -> None:
        self._hub = hub
        self.tenant = tenant
        self._queue: asyncio.Queue[Any] = asyncio.Queue(max_pending + 2)  # room for the resync and close markers
        self._max = max_pending
        self._overflowed = False
        self.closed = False

    def _offer(self, msg: Any) -> None:
        if self.closed or self._overflowed:
            return
        if self._queue.qsize() >= self._max:
            self._overflowed = True
            while not self._queue.empty():
                self._queue.get_nowait()
            msg = _RESYNC
        self._queue.put_nowait(msg)

    async def get(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next message; None once closed. Raises TimeoutError after ``timeout`` seconds of quiet."""
        if self.closed and self._queue.empty():
            return None
        async with asyncio.timeout(timeout):  # not wait_for: a watcher's cancellation must not be lost (server._leases)
            item = await self._queue.get()
        if item is _CLOSED:
            self.closed = True
            return None
        if item is _RESYNC:
            self._overflowed = False
            return {"type": "resync", "runs": self._hub._runs_of(self.tenant)}
        return item

    def close(self) -> None:
        """Stop receiving; a pending :meth:`get` returns None."""
        if not self.closed:
            self._hub._subscribers.discard(self)
            self.closed = True
            while not self._queue.empty():
                self._queue.get_nowait()
            self._queue.put_nowait(_CLOSED)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> dict[str, Any]:
        msg = await self.get()
        if msg is None:
            raise StopAsyncIteration
        return msg


class Tracker:
    """What the service calls for one run: ``tracker(event)`` per event, :meth:`close` at the end."""

    __slots__ = ("_done", "_ending", "_held", "_hub", "_run", "_started", "landing")

    def __init__(self, hub: RunHub, run: _LiveRun) -> None:
        self._hub = hub
        self._run = run
        self._started = False
        #: the run's stored versions (engine.host.Landing): a version is shown saved once it is stored
        self.landing: Landing | None = None
        self._held: list[tuple[str, dict[str, Any]]] = []  # checkpoint_saved messages of versions not stored yet
        # The run's end, while its last versions wait for the host's write of it (engine/pregel/_landing.py).
        self._ending: tuple[str, str | None] | None = None
        self._done = False

    def __call__(self, e: ev.Event) -> None:
        hub, run = self._hub, self._run
        if e.ns or isinstance(e, (ev.MessageChunk, ev.ToolEvent)):
            # What a node calls: a subgraph's events (its node, the parent's, is what
            # the run is at), a chat model's tokens, a tool's progress.
            if hub._subscribers and self._started:
                inner = _inner(e)
                if inner is not None:
                    hub._publish(run.tenant, {**run.head("inner"), "ns": list(e.ns), **inner})
            return
        if isinstance(e, ev.RunStarted):
            self._started = True
            run.checkpoint_id = e.checkpoint_id
            hub._live[run.run_id] = run
            if hub._subscribers:
                hub._publish(run.tenant, {**run.head("run_started"), "checkpoint_id": run.checkpoint_id})
        elif isinstance(e, ev.TaskStarted):
            if e.node not in run.nodes:
                run.nodes.append(e.node)
            if hub._subscribers:
                hub._publish(run.tenant, {**run.head("node_started"), "step": e.step, "node": e.node, "task_id": e.task_id})
        elif isinstance(e, ev.TaskFinished):
            if e.node in run.nodes:
                run.nodes.remove(e.node)
            if hub._subscribers:
                msg = {**run.head("node_finished"), "step": e.step, "node": e.node, "task_id": e.task_id}
                hub._publish(run.tenant, {**msg, "error": e.error_type, "interrupted": bool(e.interrupts)})
        elif isinstance(e, ev.CheckpointSaved):
            # The nodes due next are the ones the run is about to run.
            run.nodes = list(e.next)
            run.checkpoint_id = e.checkpoint_id
            if hub._subscribers:
                msg = {**run.head("checkpoint_saved"), "checkpoint": _ref(e)}
                if self.landing is not None and not self.landing.stored(e.checkpoint_id):
                    self._held.append((e.checkpoint_id, msg))  # a watcher reads it as soon as it is told
                else:
                    hub._publish(run.tenant, msg)
        elif isinstance(e, ev.ValuesEvent):
            if hub._subscribers:
                hub._publish(run.tenant, {**run.head("values"), "step": e.step, **_values(e.values)})
        elif isinstance(e, ev.InterruptEvent):
            if hub._subscribers:
                hub._publish(run.tenant, {**run.head("interrupt"), "node": e.node, "interrupt_id": e.interrupt_id})
        elif isinstance(e, ev.RunFinished):
            self._finish(e.reason, e.checkpoint_id)

    def landed(self) -> None:
        """The run stored versions: watchers are told of those they were not told of yet, with the nodes
        the run is at now (a message's ``nodes`` are the run's after it: a version made before the run's
        latest node started must not move the run back to the nodes due then)."""
        landing = self.landing
        if not self._held or landing is None:
            return
        stored = [msg for cid, msg in self._held if landing.stored(cid)]
        self._held = [(cid, msg) for cid, msg in self._held if not landing.stored(cid)]
        run = self._run
        for msg in stored:
            self._hub._publish(run.tenant, {**msg, "nodes": list(run.nodes)})
        if self._ending is not None and landing.last is None:
            ending, self._ending = self._ending, None
            self._finish(*ending)

    def _finish(self, reason: str, checkpoint_id: str | None, *, last: bool = False) -> None:
        """The run ended (``last``: its call is over, nothing more will land)."""
        landing = self.landing
        if not last and landing is not None and landing.last is not None and self._held and not self._done:
            # Its last versions go with its end's write: told saved once they are, then the end.
            self._ending = (reason, checkpoint_id)
            return
        self._ending = None
        self.landed()
        self._held = []  # versions the run never stored (a failed write): never shown saved
        if self._done or not self._started:
            return
        self._done = True
        hub, run = self._hub, self._run
        run.nodes = []
        hub._live.pop(run.run_id, None)
        if hub._subscribers:
            hub._publish(run.tenant, {**run.head("run_finished"), "reason": reason, "checkpoint_id": checkpoint_id or run.checkpoint_id})

    def close(self, exc: BaseException | None = None) -> None:
        """The run's call is over: a run that started and never reported its end finished now."""
        reason = "ERROR" if exc is not None and not isinstance(exc, (asyncio.CancelledError, GeneratorExit)) else "CANCELLED"
        self._finish(reason, None, last=True)  # (an end still waiting for its last versions: they never landed)


def _values(values: dict[str, Any]) -> dict[str, Any]:
    """A step's values for a "values" message: whole, or only their size when over the limit."""
    size = len(encode(values))
    return {"values": values} if size <= VALUES_LIMIT else {"values": None, "values_bytes": size}


def _text(chunk: Any) -> str:
    """A message chunk's text (a LangChain chunk's ``content``, a string or a list of parts)."""
    content = getattr(chunk, "content", chunk.get("content") if isinstance(chunk, dict) else chunk)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p if isinstance(p, str) else str(p.get("text", "")) if isinstance(p, dict) else "" for p in content)
    return ""


def _inner(e: ev.Event) -> dict[str, Any] | None:
    """An event inside a node, as the watcher draws it under the node; None for the rest."""
    if isinstance(e, ev.MessageChunk):
        return {"kind": "message", "node": e.node, "task_id": e.task_id, "text": _text(e.chunk)}
    if isinstance(e, ev.ToolEvent):
        return {"kind": "tool", "node": e.node, "task_id": e.task_id, "payload": e.payload}
    if isinstance(e, ev.TaskStarted):
        return {"kind": "task_started", "node": e.node, "task_id": e.task_id}
    if isinstance(e, ev.TaskFinished):
        return {"kind": "task_finished", "node": e.node, "task_id": e.task_id, "error": e.error_type}
    return None


def _ref(e: ev.CheckpointSaved) -> dict[str, Any]:
    return {
        "checkpoint_id": e.checkpoint_id,
        "parent_id": e.parent_id,
        "step": e.step,
        "source": e.source,
        "next": list(e.next),
        "created_at": e.created_at,
    }


class RunHub:
    """Publishes the progress of every run to whoever subscribes as the run's tenant."""

    def __init__(self, *, max_pending: int = 1000) -> None:
        self._subscribers: set[Subscription] = set()
        self._live: dict[str, _LiveRun] = {}
        self._max_pending = max_pending
        self._closed = False

    @property
    def watched(self) -> bool:
        return bool(self._subscribers)

    def engine_kinds(self) -> frozenset[type]:
        """Event kinds the engine must emit, beyond what the caller asked, for the watchers."""
        return _WATCHED_KINDS if self._subscribers else _NONE

    def track(self, graph: str, thread_id: str, run_id: str) -> Tracker:
        """A tracker for one run of the calling tenant (``thread_id`` as that tenant names it)."""
        return Tracker(self, _LiveRun(graph, thread_id, run_id, TENANT.get()))

    def live_runs(self) -> list[dict[str, Any]]:
        """The calling tenant's runs in flight, oldest first."""
        return self._runs_of(TENANT.get())

    def subscribe(self) -> Subscription:
        """A new subscription to the calling tenant's runs; its first message lists
        those in flight. Closed at once after :meth:`close`."""
        sub = Subscription(self, TENANT.get(), self._max_pending)
        if self._closed:
            sub.close()
            return sub
        self._subscribers.add(sub)
        sub._offer({"type": "live", "runs": self._runs_of(sub.tenant)})
        return sub

    def close(self) -> None:
        """End every subscription (server shutdown); later ones end at once."""
        self._closed = True
        for sub in list(self._subscribers):
            sub.close()

    def _runs_of(self, tenant: str | None) -> list[dict[str, Any]]:
        return [r.view() for r in self._live.values() if r.tenant == tenant]

    def _publish(self, tenant: str | None, msg: dict[str, Any]) -> None:
        for sub in list(self._subscribers):
            if sub.tenant == tenant:
                sub._offer(msg)
