"""Pure planning and applying of writes: the heart of a superstep.

No I/O here: these functions take plain data (a checkpoint dict, the
channels, the compiled nodes) and return plain data, so unit tests can call
them directly and both drivers share one implementation.

* :func:`prepare_next_tasks` decides which tasks run in the next step: a
  PUSH task per ``Send`` waiting in the TASKS topic (in Send order), then a
  PULL task per node one of whose trigger channels changed since the node last
  saw it (in name order in a run, in definition order in a snapshot).
* :func:`apply_writes` applies a finished step's writes, deterministically
  (tasks sorted by node name, Sends by their index), records which channel
  versions each task saw, and bumps the version of every changed channel to
  one new version number for the step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from engine._internal._ids import next_version as new_next_version
from engine._internal._ids import task_id as make_task_id
from engine.channels.base import MISSING, BaseChannel
from engine.checkpoint.base import Checkpoint, copy_checkpoint
from engine.pregel._spec import INTERRUPT_SEEN, PULL, PUSH, TASKS, NodeSpec
from engine.types import START, Send

__all__ = [
    "apply_stopped",
    "Task",
    "prepare_next_tasks",
    "apply_writes",
    "apply_null_writes",
    "restore_channels",
    "should_interrupt",
    "trigger_index",
    "UPDATE",
]


#: the path of a superstep's update task (``(UPDATE, i)``: update_state's i-th update), LangGraph's: its
#: updates apply in the order given, before any node's writes
UPDATE = "__interrupt__"


@dataclass(slots=True)
class Task:
    """One unit of work in a step: a node and the input it runs with."""

    id: str
    name: str
    path: tuple[Any, ...]
    input: Any
    triggers: tuple[str, ...]
    node: NodeSpec
    state: dict[str, Any] = field(default_factory=dict)  # state values when planned (read-only)
    writes: list[tuple[str, Any]] = field(default_factory=list)
    # filled in by the loop while the task runs
    #: its failure; ``asyncio.CancelledError`` when a sibling's failure cut it short (see StepRunner.tick)
    error: BaseException | None = None
    interrupts: tuple[Any, ...] = ()
    #: stopped by a subgraph's static breakpoint (an interrupt with no question): not finished, nothing to answer
    paused: bool = False
    resume: list[Any] | None = None
    #: it took the run's null answer (RunState.null_resume): its answers are stored with its next question
    took_null: bool = False
    saved: bool = False
    #: an error handler's task: the failure it handles (engine.errors.NodeError), its ``error`` parameter
    node_error: Any = None
    #: a Send's own timeout (engine.types.TimeoutPolicy), instead of its node's
    timeout: Any = None

    @property
    def sort_key(self) -> tuple[Any, ...]:
        # As LangGraph: node tasks by name first, then Sends by their index, so
        # map-reduce merges in Send order whatever order the tasks finished in.
        if self.path[0] == PUSH:
            return (1, "", self.path[1])
        if self.path[0] == UPDATE:
            return (-1, "", self.path[1])
        return (0, self.name, 0)


def trigger_index(nodes: Mapping[str, NodeSpec]) -> dict[str, tuple[str, ...]]:
    """Channel → names of the nodes it triggers, in definition order."""
    out: dict[str, list[str]] = {}
    for name, node in nodes.items():
        for chan in node.triggers:
            out.setdefault(chan, []).append(name)
    return {k: tuple(v) for k, v in out.items()}


def restore_channels(specs: Mapping[str, BaseChannel], checkpoint: Checkpoint) -> dict[str, BaseChannel]:
    values = checkpoint["channel_values"]
    return {k: ch.from_checkpoint(values.get(k, MISSING)) for k, ch in specs.items()}


def prepare_next_tasks(
    checkpoint: Checkpoint,
    channels: Mapping[str, BaseChannel],
    nodes: Mapping[str, NodeSpec],
    step: int,
    triggers_to_nodes: Mapping[str, Sequence[str]] | None = None,
) -> list[Task]:
    """The tasks of the step that starts from ``checkpoint``.

    Task ids are derived from the checkpoint id, the step and the task's
    place, so planning the same checkpoint again (a resume) gives the same
    ids, and pending writes saved against them match.
    """
    cid = checkpoint["id"]
    tasks: list[Task] = []
    topic = channels.get(TASKS)
    state = None
    if topic is not None and topic.is_available():
        state = checkpoint["channel_values"]
        for idx, packet in enumerate(topic.get()):
            if not isinstance(packet, Send) or packet.node not in nodes:
                continue
            node = nodes[packet.node]
            tasks.append(
                Task(
                    id=make_task_id(cid, step, "push", idx, packet.node),
                    name=packet.node,
                    path=(PUSH, idx, False),  # as LangGraph names a Send's task (False: not a call)
                    input=packet.arg,
                    triggers=(TASKS,),
                    node=node,
                    state=state,
                    timeout=packet.timeout,
                )
            )
    versions = checkpoint["channel_versions"]
    seen_all = checkpoint["versions_seen"]
    updated = checkpoint.get("updated_channels")
    if updated is not None and triggers_to_nodes is not None:
        # As LangGraph: a run plans the nodes its last step triggered in name
        # order; a snapshot (no trigger index) lists every due node in
        # definition order.
        candidates: Iterable[str] = sorted({n for c in updated for n in triggers_to_nodes.get(c, ())})
    else:
        candidates = nodes
    for name in candidates:
        node = nodes[name]
        seen = seen_all.get(name, {})
        fired = tuple(
            c for c in node.triggers if versions.get(c, 0) > seen.get(c, 0) and channels[c].is_available()
        )
        if not fired:
            continue
        if state is None:
            state = checkpoint["channel_values"]
        tasks.append(
            Task(
                id=make_task_id(cid, step, "pull", name),
                name=name,
                path=(PULL, name),
                input=node.read(state),
                triggers=fired if len(node.triggers) == 1 else tuple(sorted(node.triggers)),  # as LangGraph: all, sorted
                node=node,
                state=state,
            )
        )
    return tasks




def _sort_key(t: Task) -> Any:
    return t.sort_key


def apply_writes(
    checkpoint: Checkpoint,
    channels: Mapping[str, BaseChannel],
    tasks: Sequence[Task],
    next_version: int | None = None,
    triggers_to_nodes: Mapping[str, Sequence[str]] | None = None,
    bump: bool | None = None,
) -> tuple[set[str], set[str]]:
    """Apply a finished step's writes to ``channels`` and ``checkpoint`` in place.

    Returns ``(updated, changed)``: the channels written to with effect, and
    every channel whose version moved (also those cleared or consumed). ``checkpoint``'s
    ``channel_values`` is kept in step with the channels for changed
    channels only, so a step costs what it changed, not the state's size.

    With ``triggers_to_nodes`` (a run's step), a step whose available
    updated channels trigger no node is tentatively the last: every channel
    is told to :meth:`~engine.channels.base.BaseChannel.finish`, which makes
    deferred nodes' triggers available, as in LangGraph (pending Sends do
    not count: they are no node's trigger channel there either).

    ``bump``: whether time moves on (one-step values written before expire);
    by default when a task was triggered, as LangGraph's: an input's writes
    (a task without triggers) leave them, and the channels written before stay
    in ``updated_channels`` to expire at the next step that does move on.
    """
    versions = checkpoint["channel_versions"]
    seen_all = checkpoint["versions_seen"]
    values = checkpoint["channel_values"]
    if next_version is None:
        next_version = new_next_version(max(versions.values(), default=0))
    ordered = tasks if len(tasks) < 2 else sorted(tasks, key=_sort_key)
    consumed: set[str] = set()
    for t in ordered:
        if t.triggers:
            consumed.update(t.triggers)
            if t.triggers == (TASKS,):
                # As LangGraph: a Send's task marks nothing seen (there it has no trigger
                # channel), so update_state's "who ran last" sees only pull tasks.
                continue
            seen = dict(seen_all.get(t.name, ()))
            for c in t.triggers:
                seen[c] = versions.get(c, 0)
            seen_all[t.name] = seen
    changed: set[str] = set()
    for c in consumed:
        ch = channels.get(c)
        if ch is not None and ch.consume():
            changed.add(c)
    pending: dict[str, list[Any]] = {}
    for t in ordered:
        for chan, val in t.writes:
            if chan in channels:
                pending.setdefault(chan, []).append(val)
    updated: set[str] = set()
    for chan, vals in pending.items():
        if channels[chan].update(vals):
            updated.add(chan)
    # A step whose tasks were triggered moves time on: one-step values written before now expire (the input's
    # writes, a task without triggers, do not: the version a new input makes still shows them, as LangGraph's).
    before = checkpoint.get("updated_channels") or ()
    if bump is None:
        bump = any(t.triggers for t in tasks)
    if bump:
        for chan in before:
            if chan not in pending:
                ch = channels.get(chan)
                if ch is not None and ch.update(()):
                    changed.add(chan)
        if TASKS in channels and TASKS not in pending and channels[TASKS].update(()):
            changed.add(TASKS)
    changed |= updated
    # Unavailable channels (a join still waiting, a deferred trigger) cannot trigger a task.
    ready = {c for c in updated if channels[c].is_available()}
    if bump and triggers_to_nodes is not None and ready.isdisjoint(triggers_to_nodes):
        for chan, ch in channels.items():
            if ch.finish():
                changed.add(chan)
                if ch.is_available():
                    ready.add(chan)
    for chan in changed:
        versions[chan] = next_version
        ch = channels[chan]
        v = ch.checkpoint()
        if v is not MISSING:
            values[chan] = v
        elif (ch.delta or not ch.tracked) and ch.is_available():
            # an UntrackedValue or a DeltaChannel: tasks read it; the writer stores none (or its writes)
            values[chan] = ch.get()
        else:
            values.pop(chan, None)
    checkpoint["updated_channels"] = sorted(ready if bump else ready.union(before))
    return updated, changed


def apply_stopped(
    specs: Mapping[str, BaseChannel], checkpoint: Checkpoint, tasks: Sequence[Task]
) -> tuple[dict[str, BaseChannel], set[str]] | None:
    """A step that stopped: its finished tasks' writes, applied to channels restored from a copy.

    As LangGraph, a caller sees what the finished siblings wrote; ``checkpoint``
    is untouched (the run is over, and these are its pending writes). Returns
    (the channels, the channels updated), None when no task finished with
    writes; raises InvalidUpdateError when the writes conflict.
    """
    done = [t for t in tasks if t.error is None and not t.interrupts and not t.paused and t.writes]
    if not done:
        return None
    ck = copy_checkpoint(checkpoint)
    channels = restore_channels(specs, ck)
    updated, _ = apply_writes(ck, channels, done)
    return channels, updated


def apply_null_writes(
    checkpoint: Checkpoint, channels: Mapping[str, BaseChannel], writes: Sequence[tuple[str, Any]]
) -> set[str]:
    """Apply a step's input writes (a ``Command``'s update and goto) before it is planned.

    Unlike :func:`apply_writes` these are no task's output: no trigger is
    consumed and time does not move on (one-step values stay), and the
    channels they update join the checkpoint's ``updated_channels`` rather than
    replacing them, so the tasks already due stay due. Returns the updated channels.
    """
    versions = checkpoint["channel_versions"]
    values = checkpoint["channel_values"]
    pending: dict[str, list[Any]] = {}
    for chan, val in writes:
        if chan in channels:
            pending.setdefault(chan, []).append(val)
    updated = {chan for chan, vals in pending.items() if channels[chan].update(vals)}
    if updated:
        version = new_next_version(max(versions.values(), default=0))
        for chan in updated:
            versions[chan] = version
            ch = channels[chan]
            v = ch.checkpoint()
            if v is not MISSING:
                values[chan] = v
            elif (ch.delta or not ch.tracked) and ch.is_available():
                values[chan] = ch.get()
            else:
                values.pop(chan, None)
        if (before := checkpoint.get("updated_channels")) is not None:  # None: every node is planned, as it stays
            checkpoint["updated_channels"] = sorted({*before, *updated})
    return updated


def should_interrupt(checkpoint: Checkpoint, interrupt_nodes: Sequence[str] | str, tasks: Sequence[Task]) -> bool:
    """Whether a static breakpoint fires before/after ``tasks``.

    It fires when any channel changed since the last breakpoint (so continuing
    from a breakpoint does not stop at it again) and a task is a named node;
    ``"*"`` names every node but the hidden START task, as in LangGraph.
    """
    if not interrupt_nodes:
        return False
    seen = checkpoint["versions_seen"].get(INTERRUPT_SEEN, {})
    changed = any(v > seen.get(c, 0) for c, v in checkpoint["channel_versions"].items())
    if not changed:
        return False
    if interrupt_nodes == "*":
        return any(t.name != START for t in tasks)
    return any(t.name in interrupt_nodes for t in tasks)


def mark_interrupt_seen(checkpoint: Checkpoint) -> None:
    checkpoint["versions_seen"][INTERRUPT_SEEN] = dict(checkpoint["channel_versions"])
