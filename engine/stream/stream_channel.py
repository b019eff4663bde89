"""A named projection of a v3 stream (``langgraph.stream.stream_channel.StreamChannel``).

A transformer pushes items into a channel; one consumer reads them, in order,
each item dropped once read. Nothing is kept for a channel nobody has
subscribed to yet, so a projection nobody reads costs no memory. Reading
drives the run: when the channel is empty and still open, the cursor asks the
run's pump for one more event (``_request_more`` / ``_arequest_more``, set by
the run stream), so the graph goes only as fast as its slowest reader.

A channel made with a ``name`` is also forwarded: the mux wires each push to
a protocol event in the run's main log (method ``name`` for a native
transformer's channel, ``custom:<name>`` for others). The mux binds each
channel to the sync or the async lane, and closes or fails it when the run
ends.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import AsyncIterator, Awaitable, Callable, Generic, Iterator, Protocol, TypeVar

__all__ = ["StreamChannel"]

T = TypeVar("T")


class _Stamps(Protocol):
    """What a channel needs of its mux: the next push stamp (the mux: :class:`engine.stream._mux.StreamMux`)."""

    def _next_push_seq(self) -> int: ...


class StreamChannel(Generic[T]):
    """Items a transformer pushes, read once each by one subscriber (``tee``/``atee`` for more).

    ``maxlen`` is checked and not used, as in LangGraph: the caller-driven pump
    (one graph event per pull) already bounds what a subscribed channel holds.
    """

    def __init__(self, name: str | None = None, *, maxlen: int | None = None) -> None:
        if maxlen is not None and maxlen <= 0:
            raise ValueError("StreamChannel maxlen must be a positive int or None")
        self.name = name
        self._items: deque[tuple[int, T]] = deque()  # (push stamp, item): the stamps order interleave()
        self._closed = False
        self._error: BaseException | None = None
        self._is_async: bool | None = None
        self._subscribed = False
        self._request_more: Callable[[], bool] | None = None
        self._arequest_more: Callable[[], Awaitable[bool]] | None = None
        self._wire_fn: Callable[[T], None] | None = None
        self._mux: _Stamps | None = None

    # -- set up by the mux -------------------------------------------------------
    def _bind_mux(self, mux: _Stamps) -> None:
        self._mux = mux

    def _bind(self, *, is_async: bool) -> None:
        """Fix the lane once: afterwards only ``for`` (sync) or only ``async for`` reads it."""
        if self._is_async is not None:
            raise RuntimeError("StreamChannel is already bound")
        self._is_async = is_async

    def _wire(self, fn: Callable[[T], None]) -> None:
        self._wire_fn = fn

    # -- the producer's side -------------------------------------------------------
    def push(self, item: T) -> None:
        """Add ``item`` for the subscriber (if there is one yet) and forward it (if wired)."""
        if self._subscribed:
            if self._closed:
                raise RuntimeError("Cannot push to a closed StreamChannel")
            self._items.append((self._mux._next_push_seq() if self._mux is not None else 0, item))
        if self._wire_fn is not None:
            self._wire_fn(item)

    def close(self) -> None:
        self._closed = True

    def fail(self, err: BaseException) -> None:
        """Close with ``err``: the subscriber gets what was pushed before, then ``err`` raised."""
        self._error = err
        self._closed = True

    # -- the consumer's side -------------------------------------------------------
    def _subscribe(self, *, is_async: bool) -> None:
        if self._is_async is None:
            raise TypeError("StreamChannel has not been bound yet. Register the transformer with a StreamMux first.")
        if self._is_async != is_async:
            if self._is_async:
                raise TypeError("This StreamChannel is bound to async mode — use 'async for' instead.")
            raise TypeError("This StreamChannel is bound to sync mode — use 'for' instead.")
        if self._subscribed:
            fanout = ".atee(n)" if is_async else ".tee(n)"
            raise RuntimeError(f"StreamChannel already has a subscriber; use {fanout} for fan-out.")
        self._subscribed = True

    def __iter__(self) -> Iterator[T]:
        self._subscribe(is_async=False)
        return self._read()

    def _read(self) -> Iterator[T]:
        while True:
            if self._items:
                yield self._items.popleft()[1]
            elif self._closed:
                if self._error is not None:
                    raise self._error
                return
            elif self._request_more is None or (not self._request_more() and not self._items and not self._closed):
                return  # nothing drives the run, or it ended without closing this channel

    def __aiter__(self) -> AsyncIterator[T]:
        self._subscribe(is_async=True)
        return self._aread()

    async def _aread(self) -> AsyncIterator[T]:
        while True:
            if self._items:
                yield self._items.popleft()[1]
            elif self._closed:
                if self._error is not None:
                    raise self._error
                return
            elif self._arequest_more is None or (not await self._arequest_more() and not self._items and not self._closed):
                return

    def tee(self, n: int = 2) -> tuple[Iterator[T], ...]:
        """Subscribe, and read through ``n`` iterators that each see every item."""
        if n < 1:
            raise ValueError("tee() requires n >= 1")
        source = iter(self)
        buffers: list[deque[T]] = [deque() for _ in range(n)]
        done = [False]

        def branch(buf: deque[T]) -> Iterator[T]:
            while True:
                if buf:
                    yield buf.popleft()
                    continue
                if done[0]:
                    return
                try:
                    item = next(source)
                except StopIteration:
                    done[0] = True
                    return
                for b in buffers:
                    b.append(item)

        return tuple(branch(b) for b in buffers)

    def atee(self, n: int = 2) -> tuple[AsyncIterator[T], ...]:
        """Subscribe, and read through ``n`` async iterators that each see every item (one pulls at a time)."""
        if n < 1:
            raise ValueError("atee() requires n >= 1")
        source = self.__aiter__()
        buffers: list[deque[T]] = [deque() for _ in range(n)]
        state: dict[str, BaseException | bool | None] = {"done": False, "error": None}
        lock = asyncio.Lock()

        async def branch(buf: deque[T]) -> AsyncIterator[T]:
            while True:
                if buf:
                    yield buf.popleft()
                    continue
                if state["done"]:
                    error = state["error"]
                    if isinstance(error, BaseException):
                        raise error
                    return
                async with lock:
                    if buf or state["done"]:
                        continue
                    try:
                        item = await source.__anext__()
                    except StopAsyncIteration:
                        state["done"] = True
                        continue
                    except Exception as e:
                        state["done"], state["error"] = True, e
                        continue
                    for b in buffers:
                        b.append(item)

        return tuple(branch(b) for b in buffers)
