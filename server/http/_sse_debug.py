"""The ``checkpoints`` and ``debug`` stream modes, made from a run's events (part of :class:`~server.http._sse.SseShaper`).

LangGraph's ``checkpoints`` chunk is a saved version as ``{config,
parent_config, values, metadata, next, tasks}``; ``debug`` wraps it, and each
task's start and result (the ``tasks`` mode's payloads), as ``{type:
checkpoint|task|task_result, timestamp, step, payload}``. graphwire's events
carry what they need, spread out: ``CheckpointSaved`` names the version (its
id, parent, step, source, next), the ``Values`` event before it has its
values, and the ``StepStarted`` after it names the tasks its ``next`` runs. So
a version's frame is held until the next event of its namespace that is not
its own (the step's start, or the run's end) and sent then, before that
event's frames, which is where LangGraph sends it.

The values of a version saved with a run's new input (``source`` "input") are
the last values the stream saw before it; at a run's start, the thread's state
before the input, as LangGraph shows it (read by the run routes when the run
starts: :meth:`CheckpointFrames.start_values`); on a new thread, the graph's
empty channels (``{"messages": []}``), as LangGraph reads a version saved before
any input.

What differs from the Agent Server: a version's ``metadata`` is ``{source,
step, parents}`` (the server's own keys, the run's metadata, are not in the
events); a task's ``timestamp`` is when the frame was made (a version's is its
``created_at``). ``debug``'s version payload also names the version and its
parent as ``checkpoint`` and ``parent_checkpoint``, as the Agent Server's does.

Pure but for the clock.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from graphwire_proto.v1 import graphwire_pb2 as pb

__all__ = ["CHECKPOINT_KINDS", "CheckpointFrames"]

#: The run events the two modes are made of.
CHECKPOINT_KINDS = (pb.EVENT_KIND_CHECKPOINT_SAVED, pb.EVENT_KIND_VALUES, pb.EVENT_KIND_STEP_STARTED)


class CheckpointFrames:
    """One stream's ``checkpoints`` and ``debug`` frames, as ``(event name, payload)`` pairs.

    Args:
        thread_id: the caller's thread id, as the versions' ``config`` names it.
        checkpoints: whether ``checkpoints`` was asked for; debug: whether ``debug`` was.
    """

    def __init__(self, thread_id: str, *, checkpoints: bool, debug: bool) -> None:
        self.thread_id, self.checkpoints, self.debug = thread_id, checkpoints, debug
        self._values: dict[tuple[str, ...], Any] = {}  # namespace -> its last values
        self._held: dict[tuple[str, ...], pb.CheckpointRef] = {}  # namespace -> its version not sent yet

    def start_values(self, values: Any) -> None:
        """The graph's values when the run began (the thread's version it starts from): the values of the
        version its input saves, unless the stream saw values since."""
        self._values.setdefault((), values)

    def before(self, e: pb.RunEvent) -> list[tuple[str, Any]]:
        """The frames due before ``e``'s own (a held version), and ``e`` noted."""
        kind = e.WhichOneof("event")
        ns = tuple(e.namespace)
        if kind == "values":
            self._values[ns] = json.loads(e.values.values_json) if e.values.values_json else None
            return []
        out: list[tuple[str, Any]] = []
        if kind == "run_finished":
            for held_ns in list(self._held):
                out += self._release(held_ns, [])
            return out
        if ns in self._held:
            tasks = list(e.step_started.tasks) if kind == "step_started" else []
            out += self._release(ns, tasks)
        if kind == "checkpoint_saved":
            self._held[ns] = e.checkpoint_saved.checkpoint
        return out

    def task(self, step: int, kind: str, payload: Any) -> list[tuple[str, Any]]:
        """A ``tasks`` mode payload (``kind`` "task" or "task_result") as a ``debug`` frame."""
        if not self.debug:
            return []
        return [("debug", {"step": step, "timestamp": datetime.now(UTC).isoformat(), "type": kind, "payload": payload})]

    def _release(self, ns: tuple[str, ...], tasks: list[pb.TaskRef]) -> list[tuple[str, Any]]:
        ref = self._held.pop(ns)
        named = {t.node: t.task_id for t in tasks}
        payload = {
            "config": self._config(ns, ref.checkpoint_id),
            "parent_config": self._config(ns, ref.parent_id) if ref.parent_id else None,
            "values": self._values.get(ns) or {},
            "metadata": {"source": ref.source, "step": ref.step, "parents": {}},
            "next": list(ref.next),
            "tasks": [{"id": named.get(n, ""), "name": n, "interrupts": [], "state": None} for n in ref.next],
        }  # fmt: skip
        out: list[tuple[str, Any]] = []
        if self.checkpoints:
            out.append(("checkpoints", payload))
        if self.debug:  # LangGraph's server adds the version and its parent as checkpoints here
            when = ref.created_at.ToDatetime(tzinfo=UTC).isoformat() if ref.HasField("created_at") else datetime.now(UTC).isoformat()
            versions = {"checkpoint": self._named(ns, ref.checkpoint_id), "parent_checkpoint": self._named(ns, ref.parent_id) if ref.parent_id else None}
            out.append(("debug", {"step": ref.step, "timestamp": when, "type": "checkpoint", "payload": {**payload, **versions}}))
        return out

    def _named(self, ns: tuple[str, ...], checkpoint_id: str) -> dict[str, Any]:
        return {"checkpoint_id": checkpoint_id, "thread_id": self.thread_id, "checkpoint_ns": "|".join(ns)}

    def _config(self, ns: tuple[str, ...], checkpoint_id: str) -> dict[str, Any]:
        return {"configurable": {"checkpoint_ns": "|".join(ns), "thread_id": self.thread_id, "checkpoint_id": checkpoint_id}}
