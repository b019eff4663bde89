"""The two values a run is made of: its settings (fixed before it starts) and its state (what each step moves).

:class:`RunSettings` is decided once, by :class:`~engine.pregel._pregel.Pregel`
(for a root run from the call's options and the compiled graph's defaults;
for a subgraph's run from what its parent's task lends it), and never changes.
:class:`RunState` is the run's position: the checkpoint it stands on, its
channels, the step, the pending writes. The loop (:mod:`._loop`), the input
folding (:mod:`._input`) and the versions (:mod:`._versions`) each hold the
same two values and nothing of each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from engine.pregel._spec import CHECKPOINT_FORMAT

if TYPE_CHECKING:
    from engine.checkpoint.base import Checkpoint, Lease
    from engine.events import Event
    from engine.pregel._algo import Task
    from engine.pregel._nested import NestedHost, Replay
    from engine.pregel._spec import GraphSpec

__all__ = ["RunSettings", "RunState"]


@dataclass(frozen=True, slots=True)
class RunSettings:
    """What one run of a compiled graph is, fixed before it starts."""

    spec: GraphSpec
    #: the saver its versions go to (None: none is kept)
    saver: Any
    #: the long-term memory store its nodes receive, or None
    store: Any
    #: where nodes with a cache policy keep their writes, or None
    cache: Any
    #: "sync", "async" or "exit" (engine.pregel._writer)
    durability: str
    #: the event kinds its caller wants (None: all); RunFinished always
    kinds: frozenset[type[Event]] | None
    #: the kinds the runs nested in its tasks forward (None: all, empty: none)
    subgraph_kinds: frozenset[type[Event]] | None
    #: sync nodes run on the calling thread (the sync face) instead of a worker thread
    inline_sync: bool
    interrupt_before: Any
    interrupt_after: Any
    run_id: str
    recursion_limit: int
    #: what its nodes read as ``runtime.context``
    context: Any = None
    #: the thread's lease, for a host that leases threads; every write carries it
    lease: Lease | None = None
    checkpoint_ns: str = ""
    #: the caller's name of the thread, when a host stores it under another key
    thread_name: str | None = None
    #: LangGraph's RunControl: a drain requested stops the run before its next step
    control: Any = None
    #: a subgraph's run: what its parent's task lends it (None at the root)
    host: NestedHost | None = None
    #: a checkpointer=True subgraph: its namespace outlives its tasks
    stable_ns: bool = False
    #: a host's run refuses what LangGraph lets pass in process: a version the thread does not have
    #: (NotFoundError), a resume with nothing to answer (InvalidResumeError)
    strict: bool = False
    #: the call came through the sync face (invoke, stream), at the root or above a subgraph: a failing
    #: task's siblings on threads are waited for, as LangGraph's thread pool (engine.pregel._runner)
    sync_face: bool = False
    #: the graph's ``step_timeout`` (LangGraph's): seconds a step may run, None for no limit
    step_timeout: float | None = None
    #: a host's: seconds an "async" run's writer waits before writing what is queued (engine.pregel._writer)
    linger: float = 0.0
    #: a host's view of the run's version writes (engine.pregel._writer.Landing), or None
    landing: Any = None

    def __post_init__(self) -> None:
        if self.recursion_limit < 1:
            raise ValueError("recursion_limit must be at least 1")


def _blank() -> Checkpoint:
    """A new thread's version before its first: never stored, so it needs no id or time."""
    return {"v": CHECKPOINT_FORMAT, "id": "", "ts": "", "channel_values": {}, "channel_versions": {}, "versions_seen": {}, "updated_channels": None}


@dataclass(slots=True)
class RunState:
    """Where a run stands: set up by the input folding, moved by each superstep."""

    #: the call's input (a subgraph that continues its own version replaces it)
    input: Any
    #: the version the run stands on (its id: the newest version's, saved or not)
    checkpoint: Checkpoint = field(default_factory=_blank)
    channels: dict[str, Any] = field(default_factory=dict)
    #: step number of the newest version (-2: none yet, so the input is -1)
    step: int = -2
    #: the last superstep number this call may run (set once the thread is loaded)
    stop: int = 0
    #: id of the newest version (saved or not)
    parent_id: str | None = None
    pending_writes: list[tuple[str, str, Any]] = field(default_factory=list)
    #: supersteps this call ran
    executed: int = 0
    #: the first step continues the loaded version's step
    resuming: bool = False
    #: this call's answers by interrupt id, for nested runs
    resume_map: dict[str, Any] = field(default_factory=dict)
    #: an answer no waiting task took (``Command(resume=)`` with no interrupt pending): as LangGraph's
    #: null resume, the first ``interrupt()`` of the step with no answer of its own takes it
    null_resume: list[Any] = field(default_factory=list)
    #: a values chunk was due in this run (with one output channel, invoke returns the last one's)
    shown: bool = False
    #: this run went back in time (a root's fork), or its host's did: where subgraphs start from
    replay: Replay | None = None
    #: the call brought its graph new input (the root run's, its hosts' for a nested run): a
    #: subgraph sent back to a version of its own (engine.pregel._nested.travel_target) takes its
    #: task's input there, as LangGraph's
    fresh: bool = False
    #: (checkpoint id, its next tasks): the plan made for a CheckpointSaved event, reused by the next step
    planned: tuple[str, list[Task]] | None = None
    #: the saved version the call loaded, if any; whether the run went on from it (not reset as
    #: ``resuming`` is); the breakpoint it stopped at, if it did ("interrupt_before",
    #: "interrupt_after"): what graph lifecycle callbacks are told (engine.callbacks)
    loaded: Any = None
    continued: bool = False
    breakpoint: Literal["interrupt_before", "interrupt_after"] | None = None
    #: the delta channels' bookkeeping (engine.pregel._delta.DeltaBook), when the graph has any and a saver
    delta: Any = None
