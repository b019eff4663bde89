"""A run's engine events on their way to its call's bookkeeping, and the backpressure between them.

Each run is two tasks (:mod:`server._stream`): the one that drives the
engine (the one ``CancelRun`` cancels: :meth:`Transit.pump`) and the
bookkeeping, which turns each event into its wire message, stores it when the
run keeps its events and hands it to the caller's outbox. Between them
events wait in a :class:`Transit`.

The bookkeeping never waits for the reader (its outbox bounds what waits for
one, and cuts a call past it), so it usually takes everything that waits as
soon as it runs: then what waits here is what the engine yields at once, the
events its queue held (:mod:`engine.pregel._queue` bounds what a node on a
thread leaves there) and what an async node wrote since its last await. The
hop does not bound itself then: it would only let an async node that writes
more per await than the bound get ahead of it.

It does wait for the database. A run that keeps its events sends each one
only once stored, and a node can write faster than the store takes rows:
while the events given to the store and not stored yet (:class:`StoreLag`)
would pass :data:`StoreLag.MAX_UNSTORED_BYTES`, or with those waiting in the
outbox the call's ``max_unsent_bytes``, the bookkeeping waits and holds the
hop (:meth:`Transit.hold`): the engine is not asked for more once
:data:`~engine.pregel._queue.MAX_WAITING_EVENTS` events, or
:data:`~engine.pregel._queue.MAX_WAITING_BYTES` as
:func:`~engine.pregel._queue.weigh_event` estimates them, wait here, so a
node on a thread waits in its writer in turn. The driving task then waits
outside the engine, where a cancellation would miss it: the engine must see
it, to end the run as cancelled (its versions flushed, RunFinished
CANCELLED), so one that arrives then is handed on to the engine's next wait,
and the hop stops holding.

Events are weighed only while the hop is held: then whatever waits is weighed
at once, and each event put after it as it comes, so the bound is checked
against every event waiting, as if each had been weighed on arrival. While
the hop flows nothing reads the weights, and weighing every event cost about
a twentieth of the server's CPU on a run streaming every event (sampled).

When the bookkeeping stops (the call ended, or was cut short), what waits is
dropped and so is what comes later (:meth:`Transit.close`): a cancelled
engine still yields what its queue held, and an exception keeping the
bookkeeping's frames (gRPC keeps a call's last error) must not keep them.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, AsyncIterator, Callable

from engine.events import Event
from engine.host import MAX_WAITING_BYTES, MAX_WAITING_EVENTS, weigh_event

__all__ = ["DONE", "StoreLag", "Transit"]


class _Done:
    __slots__ = ()


#: The last item: the engine's events ended (after them, their exception, if any).
DONE = _Done()


class Transit:
    """Events from :meth:`pump` (the run's task) to :meth:`get` (its bookkeeping)."""

    def __init__(self, *, max_events: int = MAX_WAITING_EVENTS, max_bytes: int = MAX_WAITING_BYTES) -> None:
        self._items: deque[tuple[Any, int]] = deque()  # (item, its weight; 0 when put while the hop flowed)
        self._weight = 0  # of the items waiting, as weighed (while held: all of them)
        self._max_events = max_events
        self._max_bytes = max_bytes
        self._ready = asyncio.Event()  # set while items wait
        self._flowing = asyncio.Event()  # clear while held
        self._flowing.set()
        self._closed = False
        self.peak = 0  # the most estimated bytes that waited at once while the hop was held

    async def pump(self, events: AsyncIterator[Event]) -> None:
        """Move ``events`` here (waiting while held and full); then their exception, if any
        (cancellation included), and :data:`DONE`."""
        handed_on = False  # a cancellation came while it waited: no more waiting
        try:
            async for e in events:
                if handed_on or self._flowing.is_set():
                    self._put(e, 0)
                    continue
                self._put(e, weigh_event(e))
                if not self._full():
                    continue
                try:
                    await self._flowing.wait()
                except asyncio.CancelledError:
                    handed_on = True
                    task = asyncio.current_task()
                    assert task is not None
                    task.uncancel()
                    task.cancel()  # raised at the engine's next wait, inside the run
        except BaseException as exc:  # incl. cancellation: reported as an item
            self._put(exc, 0)
        finally:
            self._put(DONE, 0)

    def __len__(self) -> int:
        """How many items wait."""
        return len(self._items)

    def _full(self) -> bool:
        return len(self._items) >= self._max_events or self._weight >= self._max_bytes

    def _put(self, item: Any, weight: int) -> None:
        if self._closed:
            return
        self._items.append((item, weight))
        self._weight += weight
        self.peak = max(self.peak, self._weight)
        self._ready.set()

    async def get(self) -> Any:
        """The next item (an event, an exception, or :data:`DONE`); waits only when none waits."""
        while not self._items:
            self._ready.clear()
            await self._ready.wait()
        item, weight = self._items.popleft()
        self._weight -= weight
        return item

    def hold(self) -> None:
        """The bookkeeping waits: the engine is asked for no more once the hop is full."""
        if self._flowing.is_set():  # what waits was not weighed: it is now
            self._items = deque((item, w or (weigh_event(item) if isinstance(item, Event) else 0)) for item, w in self._items)
            self._weight = sum(w for _, w in self._items)
            self.peak = max(self.peak, self._weight)
        self._flowing.clear()

    def release(self) -> None:
        self._flowing.set()

    def close(self) -> None:
        """The bookkeeping stopped: drop what waits, and what comes later."""
        self._closed = True
        self._items.clear()
        self._weight = 0
        self._flowing.set()


class StoreLag:
    """Bytes of a run's events given to its event log and not stored yet, against the call's budget.

    At most :data:`MAX_UNSTORED_BYTES` wait for the store, whatever the
    budget: a write holds what it carries a few times over while it is in
    flight (the serialized events, packed, then in the driver's buffer),
    and the replica's writer carries every run's in one write, so the
    store's share must not grow with the budget.

    Args:
        budget: the call's ``max_unsent_bytes``.
        failed: the event log's failure, once its store failed (then nothing more is stored).
    """

    #: The most bytes of one run's events that wait for the store (what ``max_unsent_bytes`` leaves, if less).
    MAX_UNSTORED_BYTES = 1024 * 1024

    #: How often a wait for the store looks whether the store failed (a failure stores nothing, and says so only there).
    CHECK_SECONDS = 1.0

    def __init__(self, budget: int, failed: Callable[[], BaseException | None]) -> None:
        self.budget = budget
        self.most = min(budget, self.MAX_UNSTORED_BYTES)
        self.unstored = 0
        self.peak = 0
        self._failed = failed
        self._stored = asyncio.Event()

    def added(self, size: int) -> None:
        self.unstored += size
        self.peak = max(self.peak, self.unstored)

    def stored(self, size: int) -> None:
        self.unstored -= size
        self._stored.set()

    def _over(self, size: int, unsent: int) -> bool:
        more = self.unstored + size
        return bool(self.unstored) and (more > self.most or more + unsent > self.budget)

    async def room(self, size: int, unsent: Callable[[], int], transit: Transit) -> None:
        """Wait (holding ``transit``) while ``size`` bytes more, with what waits to be stored, would pass
        :data:`MAX_UNSTORED_BYTES`, or with ``unsent()`` (the outbox's) too, the budget; a lone event
        always goes. Raises the store's failure."""
        if not self._over(size, unsent()):
            return
        transit.hold()
        try:
            while self._over(size, unsent()):
                failed = self._failed()
                if failed is not None:
                    raise failed
                self._stored.clear()
                try:
                    async with asyncio.timeout(self.CHECK_SECONDS):
                        await self._stored.wait()
                except TimeoutError:
                    pass
        finally:
            transit.release()
