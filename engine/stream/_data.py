"""The v3 stream's one-mode transformers: each copies one stream mode's data, at its own scope, into a projection.

``ValuesTransformer`` (``run.values``) is always registered; the others
(``run.updates``, ``run.custom``, ``run.checkpoints``, ``run.debug``,
``run.tasks``) when a graph or a call asks for them with ``transformers=``,
which also makes the graph stream that mode. Data from deeper subgraphs stays
out (a subgraph handle's own projection has it).
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.stream._types import ProtocolEvent, StreamTransformer
from engine.stream.stream_channel import StreamChannel

__all__ = [
    "CheckpointsTransformer", "CustomTransformer", "DebugTransformer", "TasksTransformer", "UpdatesTransformer",
    "ValuesTransformer",
]  # fmt: skip


class _ModeTransformer(StreamTransformer):
    """Pushes the data of each event of mode ``_mode`` at this scope into the projection named ``_mode``."""

    _native = True
    _mode: ClassVar[str]

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Any] = StreamChannel()
        self._scope_list: list[str] = list(scope)

    def init(self) -> dict[str, Any]:
        return {self._mode: self._log}

    def _mine(self, event: ProtocolEvent) -> bool:
        return event["method"] == self._mode and event["params"]["namespace"] == self._scope_list

    def process(self, event: ProtocolEvent) -> bool:
        if self._mine(event):
            self._log.push(event["params"]["data"])
        return True


class ValuesTransformer(_ModeTransformer):
    """``run.values``: the state after each step of the run (the run's own level only)."""

    _mode = "values"
    required_stream_modes = ("values",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._latest: dict[str, Any] | None = None
        self._interrupted = False
        self._interrupts: list[Any] = []

    @property
    def error(self) -> BaseException | None:
        """What the run failed with (None while it runs or if it succeeded)."""
        return self._log._error

    def process(self, event: ProtocolEvent) -> bool:
        if self._mine(event):
            params = event["params"]
            self._latest = params["data"]
            if interrupts := params.get("interrupts", ()):
                self._interrupted = True
                self._interrupts.extend(interrupts)
            self._log.push(params["data"])
        return True


class CustomTransformer(_ModeTransformer):
    """``run.custom``: what the run's nodes wrote with their stream writer."""

    _mode = "custom"
    required_stream_modes = ("custom",)


class UpdatesTransformer(_ModeTransformer):
    """``run.updates``: each step's ``{node: update}``."""

    _mode = "updates"
    required_stream_modes = ("updates",)


class CheckpointsTransformer(_ModeTransformer):
    """``run.checkpoints``: each version the run saves (nothing without a checkpointer)."""

    _mode = "checkpoints"
    required_stream_modes = ("checkpoints",)


class DebugTransformer(_ModeTransformer):
    """``run.debug``: the debug mode's checkpoint, task and task-result records."""

    _mode = "debug"
    required_stream_modes = ("debug",)


class TasksTransformer(_ModeTransformer):
    """``run.tasks``: each task's start and result (lifecycle and subgraph discovery read the same mode)."""

    _mode = "tasks"
    required_stream_modes = ("tasks",)
