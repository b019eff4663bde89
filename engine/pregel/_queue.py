"""A run's events on their way out: a queue the loop drains.

The loop and its parts emit events as things happen; the loop's generator
drains the queue between awaits and yields what it holds, in order. Only
kinds the caller asked for are built at all (:meth:`EventQueue.want`).
Events from other threads (a sync node's, a model's callbacks) reach it
through the runner, which hops them onto the run's event loop first.

A run nested in another's task (a subgraph) would emit to its parent's
``emit`` instead, under its namespace: nothing here assumes who reads.
"""

from __future__ import annotations

from collections import deque

from engine.events import Event

__all__ = ["EventQueue"]


class EventQueue:
    """The events of one run not yet yielded, and which kinds its caller wants."""

    __slots__ = ("kinds", "_out")

    def __init__(self, kinds: frozenset[type[Event]] | None) -> None:
        #: the kinds the caller asked for (None: all); others are never built
        self.kinds = kinds
        self._out: deque[Event] = deque()

    def want(self, kind: type[Event]) -> bool:
        return self.kinds is None or kind in self.kinds

    def emit(self, ev: Event) -> None:
        self._out.append(ev)

    def drain(self) -> list[Event]:
        out = list(self._out)
        self._out.clear()
        return out
