"""A run's versions as its caller sees them: the values of the one it stands on, the plan from it, the next saved.

The loop (:mod:`._loop`) and the input folding (:mod:`._input`) both plan
from the version the run stands on and save new ones; :class:`RunVersions`
does that for both, on the run's :class:`~engine.pregel._run.RunState`,
through its :class:`~engine.pregel._writer.VersionWriter`, reporting to its
:class:`~engine.pregel._queue.EventQueue`.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

from engine._internal._ids import checkpoint_id as new_checkpoint_id
from engine.events import CheckpointSaved, ValuesEvent
from engine.pregel._algo import Task, prepare_next_tasks
from engine.pregel._delta import COUNTERS, stored_values
from engine.checkpoint._scoped import ScopedSaver
from engine.checkpoint.base import RUN_KEY, BaseCheckpointSaver, Checkpoint
from engine.pregel._io import output_values, saved_event
from engine.pregel._queue import EventQueue
from engine.pregel._run import RunSettings, RunState
from engine.pregel._snapshot import subgraph_configs
from engine.pregel._writer import VersionWriter, new_version

__all__ = ["saver_version", "RunVersions"]


class RunVersions:
    """Plans from, shows and saves the versions of one run."""

    __slots__ = ("settings", "state", "writer", "queue", "version_metadata", "parents")

    def __init__(
        self, settings: RunSettings, state: RunState, writer: VersionWriter, queue: EventQueue, *,
        version_metadata: dict[str, Any], parents: dict[str, str],
    ) -> None:  # fmt: skip
        self.settings = settings
        self.state = state
        self.writer = writer
        self.queue = queue
        #: every version's metadata: the caller's, and (as LangGraph) the call's plain configurable keys
        self.version_metadata = version_metadata
        #: ns -> id of the parents' versions, for this run's versions' metadata
        self.parents = parents

    def values(self) -> dict[str, Any]:
        """The whole state, or the call's output keys (what the values stream shows)."""
        return output_values(self.state.channels, self.settings.spec.stream_keys)  # type: ignore[no-any-return]

    def version_values(self) -> dict[str, Any]:
        """The whole state, whatever the call's output keys (what the checkpoints and debug streams show)."""
        return output_values(self.state.channels, self.settings.spec.version_keys)  # type: ignore[no-any-return]

    def output(self) -> Any:
        """The output schema's keys (what the call returns).

        A graph with one output channel (an entrypoint, a low-level graph's) returns, as
        LangGraph's invoke, its last values chunk's: None if the run streamed none (it stopped
        before writing the channel, which may hold an older run's value).
        """
        keys = self.settings.spec.output_keys
        if isinstance(keys, str) and not self.state.shown:
            return None
        return output_values(self.state.channels, keys)

    def emit_values(self, changed: Any = None) -> None:
        """A values event; after a step, only if the step (which changed ``changed``) wrote
        one of the streamed channels, as in LangGraph (a node returning {} adds no chunk).
        Also notes whether LangGraph's invoke would take a value from this point (see output())."""
        if not self.state.channels:
            return
        out = self.settings.spec.output_keys
        if changed is None or (out in changed if isinstance(out, str) else not changed.isdisjoint(out)):
            self.state.shown = True  # invoke returns the last such chunk (see output(), RunFinished.shown)
        if not self.queue.want(ValuesEvent):
            return
        keys = self.settings.spec.stream_keys
        if changed is not None and (keys not in changed if isinstance(keys, str) else changed.isdisjoint(keys)):
            return
        self.queue.emit(ValuesEvent(self.state.step, self.values()))

    def plan(self) -> list[Task]:
        """The next step's tasks; reuses the plan made for the last CheckpointSaved event."""
        state, spec = self.state, self.settings.spec
        planned, state.planned = state.planned, None
        if planned is not None and planned[0] == state.checkpoint["id"]:
            return planned[1]
        return prepare_next_tasks(state.checkpoint, state.channels, spec.nodes, state.step + 1, spec.triggers_to_nodes)

    async def save(self, source: str, parent_writes: list[tuple[Any, ...]] | None = None) -> None:
        """Save the version the run stands on as a new one (``source``: input, loop, fork)."""
        state, settings, want = self.state, self.settings, self.queue.want
        if settings.saver is None and not want(CheckpointSaved):
            # Nothing stores or shows the version: it only needs its id (task ids derive from it).
            state.checkpoint["id"] = state.parent_id = new_checkpoint_id()
            return
        book, exit_deltas, new_versions = state.delta, self.writer.exit, None
        if book is not None and exit_deltas is None:  # what the saver keeps of the delta channels (engine.pregel._delta)
            snap, counters = book.store(state.checkpoint, state.channels, self.writer.dirty, fork=source == "fork",
                                        triggers=settings.spec.triggers_to_nodes)  # fmt: skip
        snapshot = new_version(state.checkpoint)
        if book is not None and exit_deltas is not None:
            # "exit": this version is stored only if it is the run's last; decided on its copy.
            if exit_deltas.addressed:
                # As LangGraph: from a version the call named, which other children may read:
                # the channels the run wrote snapshot, and nothing is stored on it.
                book.forced.update(exit_deltas.channels())
            new_versions = dict(self.writer.dirty)
            updated = exit_deltas.step_updates(snapshot["channel_versions"], new_versions)
            snap, counters = book.store(snapshot, state.channels, new_versions, fork=source == "fork",
                                        triggers=settings.spec.triggers_to_nodes, tentative=updated)  # fmt: skip
        # The caller's metadata and LangGraph's keys; the run that wrote it beside them (RUN_KEY).
        metadata = {**self.version_metadata, RUN_KEY: settings.run_id, "source": source, "step": state.step,
                    "parents": dict(self.parents)}  # fmt: skip
        if book is not None and counters:
            metadata[COUNTERS] = counters
        parent = state.parent_id
        state.parent_id = snapshot["id"]
        if want(CheckpointSaved):
            # Planned once: the event reports the names, the next step runs the tasks.
            spec = settings.spec
            planned = prepare_next_tasks(snapshot, state.channels, spec.nodes, state.step + 1, spec.triggers_to_nodes)
            state.planned = (snapshot["id"], planned)
            # "exit": the version the one version written is stored under
            under = self.writer.parent_of_next(parent) if settings.saver is not None else parent
            # as LangGraph's checkpoints and debug streams: the loop's own keys (the saver adds the call's metadata)
            shown = {"source": source, "step": state.step, "parents": metadata["parents"]}
            event = saved_event(snapshot, under, state.step, source, planned, self.version_values(), shown)
            if any(t.node.subgraph is not None for t in planned):  # as a snapshot's: subgraph tasks name their namespace
                run = {"configurable": {"thread_id": self.writer.thread_id, "checkpoint_ns": settings.checkpoint_ns}}
                event = dataclasses.replace(event, tasks=subgraph_configs(event.tasks, planned, run))
            self.queue.emit(event)
        if settings.saver is not None:
            if book is not None:
                snapshot["channel_values"] = stored_values(snapshot["channel_values"], book.names, snap)
            await self.writer.put(parent, snapshot, metadata, parent_writes or [], new_versions)


def saver_version(saver: Any, checkpoint: Checkpoint) -> int | None:
    """The version a step's writes get from the saver's own ``get_next_version``, when it is a subclass
    of ours that overrides it (LangGraph's loop asks its saver once per step); None: the engine numbers
    them (:func:`engine._internal._ids.next_version`).

    Versions are integers here. A saver answering otherwise (the checkpointer packages written for
    LangGraph answer LangGraph's strings) stores the engine's integers instead, as before it was asked:
    said once per class, as a warning; an error it raises fails the run.
    """
    inner = saver.saver if isinstance(saver, ScopedSaver) else saver
    if inner is None or type(inner).get_next_version is BaseCheckpointSaver.get_next_version or type(inner) in _NOT_INTS:
        return None
    versions = checkpoint["channel_versions"]
    version = inner.get_next_version(max(versions.values()) if versions else None, None)
    if type(version) is not int:
        _NOT_INTS.add(type(inner))
        warnings.warn(
            f"{type(inner).__name__}.get_next_version returned {version!r}: graphwire's channel versions are integers "
            "that only grow (see engine.checkpoint.base), so the engine numbers them itself for this saver",
            stacklevel=2,
        )
        return None
    return version


#: saver classes whose get_next_version answered something else than an integer (not asked again)
_NOT_INTS: set[type] = set()
