"""The event envelope and the transformer base of the v3 stream (``langgraph.stream._types``).

A v3 stream wraps each of the graph's stream parts in a :class:`ProtocolEvent`
and hands it to a chain of :class:`StreamTransformer` objects, each of which
builds projections (``StreamChannel`` objects, usually) out of the events it
sees. The mux (:mod:`engine.stream._mux`) owns that chain.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Coroutine, Literal

from typing_extensions import NotRequired, TypedDict

__all__ = ["ProtocolEvent", "StreamTransformer", "SubgraphStatus", "transformer_requires_async"]

_log = logging.getLogger(__name__)

#: Where a subgraph of a v3 run is (a lifecycle event's ``event``, a subgraph handle's ``status``).
SubgraphStatus = Literal["started", "completed", "failed", "interrupted", "drained"]


class _ProtocolEventParams(TypedDict):
    """Where an event comes from (``namespace``), when (wall-clock milliseconds: order by ``seq``), and what."""

    namespace: list[str]
    timestamp: int
    data: Any
    interrupts: NotRequired[tuple[Any, ...]]


class ProtocolEvent(TypedDict):
    """One event of a v3 stream: a stream mode's chunk (``method``) in a uniform envelope.

    The root mux numbers the events it keeps (``seq``, strictly increasing).
    """

    type: Literal["event"]
    event_id: NotRequired[str]
    seq: NotRequired[int]
    method: str
    params: _ProtocolEventParams


class StreamTransformer(ABC):
    """A projection of a v3 stream's events: LangGraph's extension point.

    ``init()`` returns the projections by name (they become the run's
    ``extensions``; a transformer with ``_native = True`` also gets them as
    attributes of the run). ``process(event)`` sees every event in order and
    returns False to keep it out of the main event log. ``finalize`` /
    ``fail`` run when the run ends; the mux closes or fails the
    ``StreamChannel`` projections itself.

    An async transformer overrides ``aprocess`` / ``afinalize`` / ``afail``,
    or calls :meth:`schedule`, or sets ``requires_async``: it can only run
    under ``astream_events``. ``supports_sync`` says an override of the async
    hooks still works on the sync lane. ``required_stream_modes``: the graph's
    stream modes it needs (the run asks the graph for the union).
    ``before_builtins``: registered ahead of the built-in transformers, so
    that what it changes in an event is what they see.
    """

    requires_async: ClassVar[bool] = False
    supports_sync: ClassVar[bool] = False
    required_stream_modes: ClassVar[tuple[str, ...]] = ()
    before_builtins: ClassVar[bool] = False

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        self.scope: tuple[str, ...] = scope

    @abstractmethod
    def init(self) -> dict[str, Any]:
        """The projections this transformer exposes, by name."""

    def _on_register(self, mux: Any) -> None:
        """Told the mux it was registered with (a transformer making child muxes keeps it)."""

    def process(self, event: ProtocolEvent) -> bool:
        """See ``event`` (sync lane); False keeps it out of the main log."""
        raise NotImplementedError(f"{type(self).__name__} must override process() or aprocess()")

    async def aprocess(self, event: ProtocolEvent) -> bool:
        """See ``event`` (async lane, awaited before the next transformer sees it)."""
        return self.process(event)

    def finalize(self) -> None:
        """The run ended normally (sync lane)."""

    async def afinalize(self) -> None:
        """The run ended normally (async lane; scheduled work has been awaited)."""
        self.finalize()

    def fail(self, err: BaseException) -> None:
        """The run ended with ``err`` (sync lane)."""

    async def afail(self, err: BaseException) -> None:
        """The run ended with ``err`` (async lane; scheduled work has been cancelled)."""
        self.fail(err)

    def schedule(self, coro: Coroutine[Any, Any, Any], *, on_error: Literal["log", "raise"] = "log") -> asyncio.Task[Any]:
        """Run ``coro`` alongside the stream; the mux awaits it before ``afinalize`` and cancels it on a failure.

        ``on_error="log"`` logs what it raises; ``"raise"`` fails the run with it.
        Needs a running event loop (``astream_events`` only).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                f"{type(self).__name__}.schedule() requires a running event loop: run this transformer under "
                "astream_events(version='v3'), not stream_events; set requires_async=True on the class so that "
                "a sync run refuses it when it is registered"
            ) from None
        task = asyncio.create_task(_logged(coro) if on_error == "log" else coro)
        pending = self._scheduled()
        pending.add(task)
        task.add_done_callback(pending.discard)
        return task

    def _scheduled(self) -> set[asyncio.Task[Any]]:
        # made on first use: a subclass need not call super().__init__()
        tasks: set[asyncio.Task[Any]] | None = getattr(self, "_stream_scheduled_tasks", None)
        if tasks is None:
            tasks = set()
            self._stream_scheduled_tasks: set[asyncio.Task[Any]] = tasks
        return tasks


async def _logged(coro: Coroutine[Any, Any, Any]) -> Any:
    try:
        return await coro
    except asyncio.CancelledError:
        raise
    except BaseException:
        _log.exception("a StreamTransformer's scheduled task failed")
        return None


_ASYNC_HOOKS = ("aprocess", "afinalize", "afail")


def transformer_requires_async(transformer: StreamTransformer) -> bool:
    """Whether ``transformer`` needs the async lane: it says so, or overrides an async hook without ``supports_sync``."""
    if transformer.requires_async:
        return True
    if transformer.supports_sync:
        return False
    cls = type(transformer)
    return any(getattr(cls, name) is not getattr(StreamTransformer, name) for name in _ASYNC_HOOKS)
