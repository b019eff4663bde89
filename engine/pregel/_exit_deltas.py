"""Durability ``"exit"`` and delta channels: a run's delta writes, stored when it ends (LangGraph 1.2's way).

With ``"exit"`` a run stores one version, its last; the versions between are
never stored, nor the writes of their steps. A delta channel's value is read
back by folding the writes stored up the parent chain since its last
snapshot, so a run that does not snapshot a channel at its end must still
store what was written to it. As LangGraph, it keeps every delta write it
makes (its input's, each step's) and, when it ends, stores those of the
channels its last version does not snapshot as pending writes of that
version's parent: the version the run continued, or, on a new thread, a stub
version stored first (empty, metadata ``{"step": -2}``, no parent).

They are stored under task ids of their own, never a real task's (a resume
must not take a rerun task for done), ordered so a read folds them as the run
applied them whether the saver orders a version's writes by task path or by
task id: the input's first, then the first step's by their task paths (it
interleaves with the writes the continued version already held), then the
later steps', in step order.
"""

from __future__ import annotations

import uuid
from typing import Any, Iterable

from engine._internal._ids import checkpoint_id as new_checkpoint_id
from engine.pregel._delta import task_path_str
from engine.pregel._spec import NULL_TASK_ID

__all__ = ["ExitDeltas", "exit_task_id", "late_task_id"]


def _parts(task_id: str) -> list[str]:
    try:
        return str(uuid.UUID(task_id)).split("-")
    except ValueError:  # not a UUID: one made of it
        return str(uuid.uuid5(uuid.NAMESPACE_OID, task_id)).split("-")


def exit_task_id(step: int, task_id: str) -> str:
    """A task id for an exit write of the input or the first step: a UUID whose first group is the step."""
    parts = _parts(task_id)
    out = f"{step + 2:08x}-{parts[1]}-{parts[2]}-{parts[3]}-{parts[4]}"  # steps start at -2 (a stub's)
    return f"{step + 2:08x}-0000-0000-0000-000000000001" if out == NULL_TASK_ID else out


def late_task_id(step: int, task_id: str) -> str:
    """A task id for an exit write of a later step: after every real task id, in step order."""
    parts = _parts(task_id)
    return f"ffffffff-{(step >> 16) & 0xFFFF:04x}-{step & 0xFFFF:04x}-{parts[3]}-{parts[4]}"


class ExitDeltas:
    """One ``"exit"`` run's delta writes, kept until it stores its version."""

    __slots__ = ("names", "writes", "first_step", "loaded", "addressed", "stub_id", "seen")

    def __init__(self, names: Iterable[str]) -> None:
        self.names = frozenset(names)
        #: a new thread's stub version's id, made before any of the run's (ids are time-ordered: it is not the newest)
        self.stub_id = new_checkpoint_id()
        #: (step, task id, task path, channel, value), in the order the run applied them
        self.writes: list[tuple[int, str, str, str, Any]] = []
        self.first_step: int | None = None
        #: (task id, channel) of the writes the continued version held already (its step's finished tasks')
        self.loaded: set[tuple[str, str]] = set()
        #: the run continues a version the call named: its other children read what is stored on it
        self.addressed = False
        #: the channel versions of the run's last version
        self.seen: dict[str, Any] = {}

    def add_input(self, step: int, writes: Iterable[tuple[str, Any]]) -> None:
        self.writes.extend((step, NULL_TASK_ID, "", c, v) for c, v in writes if c in self.names)

    def add_step(self, step: int, tasks: Iterable[Any]) -> None:
        """A finished step's tasks' writes (on the first, not those the continued version held)."""
        if self.first_step is None:
            self.first_step = step
        loaded, self.loaded = self.loaded, set()
        for t in tasks:
            path = None
            for c, v in t.writes or ():
                if c in self.names and (t.id, c) not in loaded:
                    if path is None:
                        path = task_path_str(t.path)
                    self.writes.append((step, t.id, path, c, v))

    def step_updates(self, versions: dict[str, Any], dirty: dict[str, Any]) -> set[str]:
        """The channels whose version moved since the run's last version (``dirty`` holds what
        moved since the last one stored); ``versions``: this version's."""
        seen, self.seen = self.seen, dict(versions)
        return {k for k, v in dirty.items() if seen.get(k) != v}

    def channels(self) -> set[str]:
        return {w[3] for w in self.writes}

    def rows(self, snapped: set[str]) -> dict[tuple[str, str], list[tuple[str, Any]]]:
        """The writes to store, of channels not in ``snapped``: (task id, task path) -> writes."""
        grouped: dict[tuple[str, str], list[tuple[str, Any]]] = {}
        for step, tid, path, c, v in self.writes:
            if c in snapped:
                continue
            if tid == NULL_TASK_ID:
                key = (exit_task_id(step, tid), "")
            elif step == self.first_step:
                key = (exit_task_id(step, tid), path)
            else:
                key = (late_task_id(step, tid), f"~~{step:010d}{path}")
            grouped.setdefault(key, []).append((c, v))
        return grouped

    def clear(self) -> None:
        self.writes = []
