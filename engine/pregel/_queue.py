"""A run's events on their way out: a queue the loop drains, which a node on a thread cannot outrun.

The loop and its parts emit events as things happen; the loop's generator
drains the queue between awaits and yields what it holds, in order. Only
kinds the caller asked for are built at all (:meth:`EventQueue.want`).
Events from other threads (a sync node's writer, a model's callbacks, a
subgraph run by a sync node) reach it through the runner, which hops them
onto the run's event loop first.

Such a thread can write far faster than the run's consumer takes events (an
LLM's token stream written in a tight loop; a server that turns each event
into a message), and nothing would stop it: every event it wrote would wait
here, and in the event loop's queue of callbacks, for as long as the burst
lasts. So it is paced (:meth:`EventQueue.room`): before handing an event over,
the thread waits while those it handed over and the consumer has not taken
yet reach :data:`MAX_WAITING_EVENTS` or, roughly weighed, :data:`MAX_WAITING_BYTES`.
To the node a pause is invisible but for time, as LangGraph's writer returns
once the event is queued. A node on the event loop's own thread (an async
node) is not paced: it cannot wait in a plain call, and what it writes
between two awaits is taken at the next one (it holds the loop meanwhile).

When the run ends (:meth:`EventQueue.close`) whatever still waits is dropped,
and so is anything written later: a sync node of a cancelled run goes on to
its end (Python cannot stop a thread), and what it writes then has no reader.
A queue whose loop stops running callbacks altogether (its thread blocked,
perhaps on the very thread that waits; or the sync face's loop, which runs
only while its caller asks for the next event) stops pacing until the loop
moves again, rather than wait for it forever.

A run nested in another's task (a subgraph) would emit to its parent's
``emit`` instead, under its namespace: nothing here assumes who reads.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from engine.events import NAMED_ONLY, Event

__all__ = ["MAX_WAITING_BYTES", "MAX_WAITING_EVENTS", "EventQueue", "weigh", "weigh_event"]

#: Events a thread may have handed to a run and its consumer not taken yet before the thread waits.
MAX_WAITING_EVENTS = 64
#: The same, in bytes (as :func:`weigh_event` estimates them); a lone event is never held back.
MAX_WAITING_BYTES = 256 * 1024
#: A thread that has waited this long while none of its events reached the loop stops waiting (see the module).
STALLED_SECONDS = 5.0

_SAMPLE = 16  # items of a container weighed; the rest are taken to weigh as much
_DEPTH = 4  # levels looked into; deeper values count as a small constant
_FIELDS: dict[type, tuple[str, ...]] = {}


def weigh(value: Any, depth: int = 0) -> int:
    """About how many bytes ``value`` takes as JSON, without serializing it: what a queue counts.

    Strings and bytes count their length; containers their first few items,
    scaled to their length; anything else a small constant. Cheap for the
    values events carry (a token, a state of a few keys, a long message list).
    """
    if isinstance(value, (str, bytes, bytearray)):
        return len(value) + 2
    if value is None or isinstance(value, (bool, int, float)) or depth >= _DEPTH:
        return 8
    if isinstance(value, dict):
        n = len(value)
        total = 2
        for i, (k, v) in enumerate(value.items()):
            if i == _SAMPLE:
                return total * n // _SAMPLE
            total += weigh(k, depth + 1) + weigh(v, depth + 1)
        return total
    if isinstance(value, (list, tuple, set, frozenset, deque)):
        n = len(value)
        total = 2
        for i, v in enumerate(value):
            if i == _SAMPLE:
                return total * n // _SAMPLE
            total += weigh(v, depth + 1) + 1
        return total
    fields = getattr(value, "__dict__", None)  # a message, a dataclass or model instance
    if isinstance(fields, dict):
        return weigh(fields, depth + 1)
    return 64


def weigh_event(ev: Event) -> int:
    """About how many bytes event ``ev`` takes on its way out (:func:`weigh` of its fields)."""
    names = _FIELDS.get(type(ev))
    if names is None:
        names = _FIELDS[type(ev)] = tuple(n for c in type(ev).__mro__ for n in getattr(c, "__slots__", ()))
    return 64 + sum(weigh(getattr(ev, n), 1) for n in names)


class EventQueue:
    """The events of one run not yet yielded, and which kinds its caller wants.

    Args:
        kinds: the kinds the caller asked for (None: all but :data:`engine.events.NAMED_ONLY`).
        max_events: :data:`MAX_WAITING_EVENTS`, for this queue.
        max_bytes: :data:`MAX_WAITING_BYTES`, for this queue.
    """

    __slots__ = ("kinds", "_out", "_lock", "_room", "_max_events", "_max_bytes", "_posted", "_taken", "_arrived", "_pending",
                 "_weights", "_weight", "_closed", "_stalled_at")

    def __init__(self, kinds: frozenset[type[Event]] | None, *, max_events: int = MAX_WAITING_EVENTS,
                 max_bytes: int = MAX_WAITING_BYTES) -> None:
        #: the kinds the caller asked for (None: all); others are never built
        self.kinds = kinds
        self._out: deque[Event] = deque()
        self._max_events = max_events
        self._max_bytes = max_bytes
        # Pacing of other threads (under _lock): events they handed over, how many of those the
        # consumer took, how many reached the loop, and the weights of those not taken. The
        # condition they wait on is made by the first (most runs have no other thread: a
        # Condition costs ~2 µs a run).
        self._lock = threading.Lock()
        self._room: threading.Condition | None = None
        self._posted = 0
        self._taken = 0
        self._arrived = 0
        self._weights: deque[int] = deque()
        self._weight = 0
        self._pending = 0  # arrived and not drained yet (the loop's thread only: drain takes the lock only then)
        self._closed = False
        self._stalled_at = -1  # _arrived when the loop was last found stalled (no pacing until it moves)

    def want(self, kind: type[Event]) -> bool:
        # engine.events.wants, inlined: asked several times a step
        return kind in self.kinds if self.kinds is not None else kind not in NAMED_ONLY

    def emit(self, ev: Event) -> None:
        """Queue ``ev`` (on the loop's thread, or while the loop's thread is inside a node)."""
        if not self._closed:
            self._out.append(ev)

    def arrive(self, ev: Event) -> None:
        """Queue ``ev``, handed over by another thread after :meth:`room` (on the loop's thread)."""
        with self._lock:
            self._arrived += 1
        self._pending += 1
        self.emit(ev)

    def room(self, ev: Event) -> bool:
        """On a thread other than the loop's, before handing ``ev`` over: wait until the events handed
        over and not taken leave room for it. False once the run is over: drop it."""
        weight = weigh_event(ev)
        room = self._room
        if room is None:
            with self._lock:
                room = self._room
                if room is None:
                    room = self._room = threading.Condition(self._lock)
        with room:
            while not self._closed and self._posted > self._taken and self._full(weight):
                if self._stalled_at == self._arrived:
                    break  # the loop has not moved since it was found stalled
                seen = self._arrived
                if not room.wait(STALLED_SECONDS) and self._arrived == seen and self._posted > seen:
                    self._stalled_at = seen  # none of ours reached the loop: it is blocked, maybe on this thread
            if self._closed:
                return False
            self._posted += 1
            self._weights.append(weight)
            self._weight += weight
            return True

    def _full(self, weight: int) -> bool:
        return self._posted - self._taken >= self._max_events or self._weight + weight > self._max_bytes

    def holds(self) -> bool:
        """Whether events wait to be drained."""
        return bool(self._out)

    def drain(self) -> list[Event]:
        out = list(self._out)
        self._out.clear()
        if self._pending:  # events came through room(), which made the condition
            room = self._room
            assert room is not None
            with room:
                for _ in range(self._pending):
                    self._weight -= self._weights.popleft()
                self._taken += self._pending
                room.notify_all()
            self._pending = 0
        return out

    def close(self) -> None:
        """The run is over: drop what waits, refuse what comes, let waiting threads go."""
        with self._lock:
            self._closed = True
            if self._room is not None:  # threads may wait on it
                self._room.notify_all()
        self._out.clear()
