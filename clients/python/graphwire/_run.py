"""Folding a run's event stream into a ``RunResult``. Pure; no I/O.

``invoke``, ``resume`` and ``fork`` are ``stream`` plus this fold, in both
clients.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc

from graphwire._errors import error_for_status
from graphwire._events import Event, RunFinished, RunStarted
from graphwire._types import CheckpointRef, ErrorInfo, FinishReason, Interrupt

__all__ = ["RunCollector", "RunResult"]


@dataclass(frozen=True, slots=True)
class RunResult:
    """How a run ended, with every event it streamed.

    A run whose node raised is a result too (``reason`` is ``ERROR`` and
    ``error`` says what), not an exception: the versions saved before the
    error stay, and invoking again with no input retries the failed step.

    Attributes:
        run_id: The run's id.
        thread_id: The thread it ran on.
        reason: Why it ended.
        values: The thread's state at ``checkpoint`` (decoded JSON); None when the
            thread has no version, or when the state is too large for one message
            (possible only on a server whose ``max_state_bytes`` was raised).
        checkpoint: The thread's newest version when the run ended.
        interrupts: The pending questions when ``reason`` is ``INTERRUPT``.
        error: What went wrong when ``reason`` is ``ERROR`` or ``RECURSION_LIMIT``.
        events: Every event received, in order; ``RunFinished`` is last.
    """

    run_id: str
    thread_id: str
    reason: FinishReason
    values: Any
    checkpoint: CheckpointRef | None
    interrupts: tuple[Interrupt, ...]
    error: ErrorInfo | None
    events: tuple[Event, ...]

    @property
    def interrupted(self) -> bool:
        """True when the run stopped to wait for an answer (``resume`` continues it)."""
        return self.reason is FinishReason.INTERRUPT


class RunCollector:
    """Collects a run's events; ``result()`` once the stream has ended."""

    def __init__(self, thread_id: str) -> None:
        self._thread_id = thread_id
        self._events: list[Event] = []
        self._finished: RunFinished | None = None

    def add(self, event: Event) -> None:
        self._events.append(event)
        if isinstance(event, RunStarted):
            self._thread_id = event.thread_id or self._thread_id
        elif isinstance(event, RunFinished):
            self._finished = event

    def result(self) -> RunResult:
        """The run's result.

        Raises:
            Unknown: the stream ended without a ``RunFinished`` event, which
                a correct server never does.
        """
        finished = self._finished
        if finished is None:
            raise error_for_status(
                grpc.StatusCode.UNKNOWN,
                f"the run's stream ended after {len(self._events)} event(s) without a RunFinished event"
                " (a background call ends after RunStarted: follow its run with join_run(run_id))",
            )
        return RunResult(
            run_id=finished.run_id,
            thread_id=self._thread_id,
            reason=finished.reason,
            values=finished.values,
            checkpoint=finished.checkpoint,
            interrupts=finished.interrupts,
            error=finished.error,
            events=tuple(self._events),
        )
