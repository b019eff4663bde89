"""A named projection of a v3 stream (``langgraph.stream.stream_channel.StreamChannel``).

A transformer pushes items into it and a consumer iterates them; this one
holds its items in order, and iterating it yields what was pushed until it
is closed (or raises what it was failed with).
"""

from __future__ import annotations

from collections import deque
from typing import Generic, Iterator, TypeVar

__all__ = ["StreamChannel"]

T = TypeVar("T")


class StreamChannel(Generic[T]):
    """Items pushed by a transformer, read in order (``maxlen``: only the newest are kept)."""

    def __init__(self, name: str | None = None, *, maxlen: int | None = None) -> None:
        self.name = name
        self._items: deque[T] = deque(maxlen=maxlen)
        self._closed = False
        self._error: BaseException | None = None

    def push(self, item: T) -> None:
        if self._closed:
            raise RuntimeError(f"StreamChannel {self.name!r} is closed")
        self._items.append(item)

    def close(self) -> None:
        self._closed = True

    def fail(self, err: BaseException) -> None:
        self._error = err
        self._closed = True

    def __iter__(self) -> Iterator[T]:
        while self._items:
            yield self._items.popleft()
        if self._error is not None:
            raise self._error
