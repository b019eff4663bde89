"""Subgraphs: a graph run nested in a task of another run, as LangGraph 1.2 runs them.

A compiled graph added as a node, or invoked from inside a node function,
runs as a loop of its own inside the parent's task, with what the task lends
it (:class:`NestedHost`, built lazily by the task's ``nest()``, which the
parent's loop gives its runner):

* the parent's saver and thread, under its own ``checkpoint_ns``: the task's
  ``node:task_id`` under the parent's namespace (``a:id|b:id``), or
  ``node`` for a subgraph compiled with ``checkpointer=True`` (its history
  then lasts across the parent's calls). ``checkpointer=False``: no saver at
  all, and its questions (``interrupt()``) are asked as the parent's task.
  Its versions' metadata names the parents' versions (``parents``: ns → id);
* the parent's events: each event of the nested run goes to the parent's
  queue too, with the namespace tuple (``Event.ns``), if the parent's caller
  wants subgraph events;
* the resume: a nested run whose namespace already has a version continues it
  (an interrupted or failed subgraph task that runs again, when the parent
  resumes or continues), with the answers the parent's ``Command(resume=...)``
  gave to interrupts raised inside it, by interrupt id. Otherwise the
  subgraph starts with the task's input;
* the replay (:class:`Replay`): a parent run that goes back in time (a fork
  of an older version, or a run from an ``update_state`` branch) runs each
  of its subgraphs, the first time it runs it, from the subgraph's newest
  version older than the version the parent went back to, as LangGraph 1.2
  does; so a ``checkpointer=True`` subgraph forks with its parent. (A
  per-task namespace has no such version: the fork's tasks have new ids.)
  A call from one of a subgraph's versions (its config's ``checkpoint_map``)
  takes that subgraph, the namespace the map names, back to that version
  (:func:`root_configurable`, :func:`travel_target`).

The nested run ends as a node does: with its output values, or by raising
its interrupts (:class:`~engine.errors.GraphInterrupt`), its error, or a
:class:`~engine.errors.ParentCommand` for the parent's task to apply.
"""

from __future__ import annotations

import dataclasses
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, AsyncGenerator, Callable, Generic, Mapping, TypeVar

from engine._internal._task import CURRENT, TaskContext
from engine.errors import ParentCommand
from engine.events import EVERY, NAMED_ONLY, Event, MessageChunk, RunFinished, RunStarted, TaskStarted, ToolEvent, wants
from engine.pregel._io import task_namespace
from engine.pregel._status import read_statuses
from engine.types import Command

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver, CheckpointTuple, Lease
    from engine.store.base import BaseStore

__all__ = [
    "Lazy", "NestedHost", "Replay", "current_host", "forwarded", "handed_up", "nested_config", "nested_kinds", "on_its_own",
    "resume_input", "root_configurable", "subgraph_ns", "task_host", "travel_target",
]

T = TypeVar("T")


@dataclass(slots=True)
class NestedHost:
    """What a parent run's task lends a graph run nested in it."""

    saver: BaseCheckpointSaver | None
    store: BaseStore | None
    thread_id: Any  # the caller's configurable thread_id, as given
    lease: Lease | None
    durability: str
    #: the parent run's config (its caller's metadata, configurable, callbacks)
    config: Mapping[str, Any]
    run_id: str
    recursion_limit: int
    inline_sync: bool
    #: emits an event to the parent run's queue (from any thread)
    emit: Callable[[Event], None]
    #: the kinds the parent's caller wants from subgraphs (None: all but the named-only ones, empty: none)
    kinds: frozenset[type[Event]] | None
    #: the parent run's checkpoint_ns ("" at the root)
    parent_ns: str
    node: str
    task_id: str
    #: ns → id of the parents' versions this task's step started from
    parents: dict[str, str]
    #: the task runs again in the first step of a call that continues its version
    resuming: bool
    #: the answers this call gave, by interrupt id
    resume_map: Mapping[str, Any]
    task: TaskContext
    #: the parent run went back in time: where its subgraphs start from
    replay: Replay | None = None
    #: the call brought the root graph new input (RunState.fresh)
    fresh: bool = False
    #: the root call came through the sync face (engine.pregel._run.RunSettings.sync_face)
    sync_face: bool = False
    #: the host's linger of the parent run's writer (engine.pregel._writer): a subgraph's writer lingers alike
    linger: float = 0.0
    #: graph runs nested in this task so far (the second and later get a numbered namespace)
    nested: int = 0

    def want(self, kind: type[Event]) -> bool:
        return wants(self.kinds, kind)

    def claim(self, ns: str) -> str:
        """The namespace of the next graph run nested in this task: ``ns``, and for the n-th after
        the first ``ns|n``, as LangGraph numbers them (a task that runs again numbers them alike)."""
        count, self.nested = self.nested, self.nested + 1
        return f"{ns}|{count}" if count else ns


class Replay:
    """A run that went back to an older version: each subgraph's first run in it starts from before ``bound``.

    One per root run, shared by the runs nested in it at any depth, as
    LangGraph's replay state is. ``bound`` is the version the run went back
    to (for an "update" or "fork" version, its parent: the subgraph's
    versions of the run being replayed are older than the update). Later runs
    of a namespace in the same call (a loop back to the subgraph) read its
    newest version, which the first one wrote.
    """

    __slots__ = ("bound", "seen")

    def __init__(self, bound: str) -> None:
        self.bound = bound
        self.seen: set[str] = set()

    @classmethod
    def of(cls, saved: CheckpointTuple) -> Replay:
        """The replay of a run that goes back to ``saved``."""
        if saved.metadata.get("source") in ("update", "fork"):
            parent = ((saved.parent_config or {}).get("configurable") or {}).get("checkpoint_id")
            if parent:
                return cls(parent)
        return cls(saved.checkpoint["id"])

    def first(self, ns: str) -> bool:
        """Whether this is the first run of ``ns`` in the call (a task id's part left out, as LangGraph)."""
        key = ns.rsplit(":", 1)[0]
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    async def load(self, saver: BaseCheckpointSaver, config: Mapping[str, Any]) -> CheckpointTuple | None:
        """The namespace's newest version older than the bound (None: it starts afresh)."""
        async for saved in saver.alist(config, before={"configurable": {"checkpoint_id": self.bound}}, limit=1):
            return saved
        return None


class Lazy(Generic[T]):
    """``fn(*args)``, made on the first call and kept (a task's host costs nothing unless a graph nests in it)."""

    __slots__ = ("fn", "args", "value")

    def __init__(self, fn: Callable[..., T], *args: Any) -> None:
        self.fn = fn
        self.args = args
        self.value: T | None = None

    def __call__(self) -> T:
        value = self.value
        if value is None:
            value = self.value = self.fn(*self.args)
        return value


def subgraph_ns(parent_ns: str, node: str, task_id: str, *, stable: bool) -> str:
    """The ``checkpoint_ns`` a subgraph node's task saves under (``stable``: compiled with ``checkpointer=True``).

    As LangGraph: a ``checkpointer=True`` subgraph's namespace has every
    level's task id removed (``a:id|b`` → ``a|b``), so its history lasts
    across calls even when a graph around it runs per invocation.
    """
    ns = f"{parent_ns}|{node}:{task_id}" if parent_ns else f"{node}:{task_id}"
    return "|".join(part.split(":", 1)[0] for part in ns.split("|")) if stable else ns


#: configurable keys that address a checkpoint lineage (LangGraph's ``_CHECKPOINT_COORDINATE_KEYS``)
_COORDINATES = ("thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map")


def task_host() -> NestedHost | None:
    """The host the running task lends a graph run inside it (None outside a task)."""
    ctx = CURRENT.get()
    if ctx is None or ctx.nest is None:
        return None
    host: NestedHost = ctx.nest()
    return host


def current_host(config: Mapping[str, Any] | None) -> NestedHost | None:
    """The host of a graph called from inside a running task, unless the call runs on its own.

    As LangGraph's: a call whose config addresses a checkpoint lineage (a
    ``thread_id``, ``checkpoint_ns``, ``checkpoint_id`` or ``checkpoint_map``
    of its own, even the caller's thread id) is a run of its own, at the root
    of its own namespace; the task's own config passed on (its
    ``checkpoint_ns`` the task's) nests, on the caller's thread.
    """
    host = task_host()
    if host is None:
        return None
    conf = (config or {}).get("configurable") or {}
    thread = conf.get("thread_id")
    if thread is not None and thread != host.thread_id:
        return None  # a run of its own on another thread
    if any(_given(conf.get(k)) for k in _COORDINATES) and conf.get("checkpoint_ns") != task_namespace(host.parent_ns, host.node, host.task_id):
        return None  # its own lineage on the caller's thread
    return host


def _given(value: Any) -> bool:
    """Whether a config's value counts as given, as LangGraph counts it: not None, and not an empty
    list, tuple or dict (``checkpoint_ns: ""`` names the root namespace)."""
    return len(value) > 0 if isinstance(value, (list, tuple, dict)) else value is not None


#: the kinds LangGraph's callback handlers carry to a caller streaming subgraphs from a run of its own in a task
_CALLBACK_KINDS = frozenset({MessageChunk, ToolEvent})


def handed_up(host: NestedHost | None) -> frozenset[type[Event]]:
    """The kinds a run of its own inside ``host``'s task hands to the task's caller: as LangGraph's
    "messages" and "tools" handlers, which such a run inherits, when the caller streams subgraphs."""
    return frozenset() if host is None else frozenset(k for k in _CALLBACK_KINDS if host.want(k))


async def on_its_own(
    events: AsyncGenerator[Event, None], host: NestedHost, up: frozenset[type[Event]], kinds: frozenset[type[Event]] | None
) -> AsyncGenerator[Event, None]:
    """The events of a run of its own inside ``host``'s task: those of ``up`` also go to ``host``'s caller,
    under the run's own namespace (its root's is the caller's root, as LangGraph names it); the run's caller
    gets ``kinds``; a Command it raised for its parent is marked as having none (``ParentCommand.orphan``)."""
    async with aclosing(events):
        async for ev in events:
            if type(ev) in up:
                host.emit(ev)
            elif type(ev) is RunFinished and isinstance(ev.exception, ParentCommand):
                ev.exception.orphan = True
            if wants(kinds, type(ev)):
                yield ev


def nested_kinds(kinds: frozenset[type[Event]] | None, host: frozenset[type[Event]] | None) -> frozenset[type[Event]] | None:
    """What a nested run makes: what its own caller asked for (``kinds``) and what its host's caller takes
    from subgraphs; None (every event but the named-only ones) if either takes all, with the named-only
    kinds the other names."""
    if kinds is not None and host is not None:
        return kinds | host
    named = ((kinds or frozenset()) | (host or frozenset())) & NAMED_ONLY
    return EVERY | named if named else None


def nested_config(host: NestedHost, config: Mapping[str, Any] | None, checkpoint_ns: str) -> dict[str, Any]:
    """The nested run's config: the parent run's, the call's on top, addressing the subgraph's namespace.

    A node's own config (passed on as ``sub.invoke(state, config)``) names the
    parent's version and task: those keys are the parent's, not the subgraph's.
    """
    out = {**host.config, **{k: v for k, v in (config or {}).items() if k not in ("configurable", "metadata")}}
    configurable = {**(host.config.get("configurable") or {}), **((config or {}).get("configurable") or {})}
    configurable.pop("checkpoint_id", None)
    configurable["checkpoint_ns"] = checkpoint_ns
    configurable["thread_id"] = host.thread_id
    out["configurable"] = configurable
    meta = {**(host.config.get("metadata") or {}), **((config or {}).get("metadata") or {})}
    out["metadata"] = {k: v for k, v in meta.items() if not k.startswith("langgraph_") and k != "checkpoint_ns"}
    return out


def root_configurable(configurable: Mapping[str, Any]) -> dict[str, Any]:
    """A top-level run's configurable, as its versions are loaded: one naming a subgraph's
    version (its ``checkpoint_ns``, as ``get_state(subgraphs=True)`` gives) runs the graph
    itself, as LangGraph 1.2 does, from the version of the graph that subgraph version
    belongs to (``checkpoint_map[""]``); the map stays, for the subgraph's run to start
    from the version named (:func:`travel_target`)."""
    if not configurable.get("checkpoint_ns"):
        return dict(configurable)
    at = (configurable.get("checkpoint_map") or {}).get("")
    return {**configurable, "checkpoint_ns": "", "checkpoint_id": at}


def travel_target(configurable: Mapping[str, Any], ns: str) -> str | None:
    """The version a nested run in ``ns`` goes back to: the one its call's ``checkpoint_map``
    names for ``ns`` (a run from a subgraph's version, :func:`root_configurable`), else None."""
    target = (configurable.get("checkpoint_map") or {}).get(ns)
    return target if isinstance(target, str) and target else None


def resume_input(host: NestedHost, saved: CheckpointTuple, *, stable: bool) -> tuple[bool, Any]:
    """Whether the nested run continues its saved version, and with what input.

    A per-task namespace holds a version only if this very task ran before
    (an interrupt, an error, a crash): it continues. A ``checkpointer=True``
    subgraph's namespace outlives its tasks: it continues only when the
    parent resumes the task, and only a version that stopped with work due.
    """
    if stable and not (host.resuming and saved.pending_writes):
        return False, None
    waiting = {i.id for st in read_statuses(saved.pending_writes or ()).values() for i in st.pending_interrupts}
    answers = {k: v for k, v in host.resume_map.items() if k in waiting}
    if not waiting and host.resuming and len(host.resume_map) == 1:
        # Its newest version waits for nothing (an update_state on its namespace made it since its question
        # was asked): as LangGraph's null resume, the answer this call gave its parent task (not a sibling's)
        # goes to the first question.
        (answer,) = host.resume_map.values()
        if host.task.resume and host.task.resume[-1] is answer:
            return True, Command(resume=answer)
    return True, Command(resume=answers) if answers else None


async def forwarded(
    events: AsyncGenerator[Event, None], host: NestedHost, ns: tuple[str, ...], kinds: frozenset[type[Event]] | None,
    shown: Callable[[TaskStarted], dict[str, Any]] | None = None,
) -> AsyncGenerator[Event, None]:
    """The nested run's events: each also goes to the parent's queue under ``ns``; the caller gets ``kinds``.
    ``shown``: its own tasks' metadata, as the "tasks" stream shows it (:attr:`TaskStarted.metadata`)."""
    async with aclosing(events):
        async for ev in events:
            if not isinstance(ev, (RunStarted, RunFinished)) and host.want(type(ev)):
                if ev.ns:
                    host.emit(ev)
                elif shown is not None and type(ev) is TaskStarted:
                    host.emit(dataclasses.replace(ev, ns=ns, metadata=shown(ev)))
                else:
                    host.emit(dataclasses.replace(ev, ns=ns))
            if wants(kinds, type(ev)):
                yield ev
