"""The v3 stream's dispatcher (``langgraph.stream._mux.StreamMux``).

A mux owns a run's main event log and its transformers. Each event goes
through every transformer in order (any of them may keep it out of the log),
then into the log; the root mux numbers the events it logs (``seq``). A
transformer's named channels are forwarded: what it pushes there goes into
the log too, as an event of its own, without passing the transformers again
(one would otherwise see its own pushes).

Made from ``factories`` (one-argument callables of the scope), a mux can make
a child for a subgraph's namespace (``_make_child``): the same transformers,
freshly made for that scope, fed by the parent's ``SubgraphTransformer`` and
driven by the same pump. Children do not number events: they share the
parent's event objects.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Awaitable, Callable, Iterable

from engine.stream._types import ProtocolEvent, StreamTransformer, transformer_requires_async
from engine.stream.stream_channel import StreamChannel

__all__ = ["StreamMux", "TransformerFactory"]

#: A callable of a scope (a namespace tuple) making a transformer for it; a transformer class is one.
TransformerFactory = Callable[["tuple[str, ...]"], StreamTransformer]


class StreamMux:
    """A run's transformers, its merged projections (``extensions``) and its main event log (``_events``).

    ``transformers``: made already, used by this mux only; ``factories``: made
    here for ``scope``, and again for each child. Transformers with
    ``before_builtins`` come first (factories' before instances').
    """

    def __init__(
        self,
        transformers: list[StreamTransformer] | None = None,
        *,
        is_async: bool = False,
        factories: list[TransformerFactory] | None = None,
        scope: tuple[str, ...] = (),
        _assign_seq: bool = True,
    ) -> None:
        self.is_async = is_async
        self.scope: tuple[str, ...] = scope
        self._assign_seq = _assign_seq
        self._events: StreamChannel[ProtocolEvent] = StreamChannel()
        self._events._bind(is_async=is_async)
        self._events._bind_mux(self)
        self._transformers: list[StreamTransformer] = []
        self._channels: list[StreamChannel[Any]] = []
        self._seq = 0
        self._push_seq = 0
        self.extensions: dict[str, Any] = {}
        self.native_keys: set[str] = set()
        self._projection_owners: dict[str, str] = {}
        self._transformer_by_key: dict[str, StreamTransformer] = {}
        self._factories: list[TransformerFactory] | None = None if factories is None else list(factories)
        self._pump_fn: Callable[[], bool] | None = None
        self._apump_fn: Callable[[], Awaitable[bool]] | None = None
        if factories is not None:
            self._register_all(factory(scope) for factory in factories)
        self._register_all(transformers or ())

    def _register_all(self, transformers: Iterable[StreamTransformer]) -> None:
        made = list(transformers)
        first = [t for t in made if getattr(t, "before_builtins", False)]
        for t in [*first, *(t for t in made if not getattr(t, "before_builtins", False))]:
            self._register(t)

    def _register(self, transformer: StreamTransformer) -> None:
        if transformer_requires_async(transformer) and not self.is_async:
            raise RuntimeError(
                f"{type(transformer).__name__} requires an async run — it overrides aprocess/afinalize/afail "
                "or sets requires_async=True. Use astream(), not stream()."
            )
        projection = transformer.init()
        if not isinstance(projection, dict):
            raise TypeError(f"StreamTransformer.init() must return a dict, got {type(projection).__name__}")
        taken = sorted(set(projection) & set(self.extensions))
        if taken:
            owners = ", ".join(f"{k!r} (owned by {self._projection_owners[k]})" for k in taken)
            raise ValueError(
                f"Transformer {type(transformer).__name__} returned projection keys that conflict with "
                f"already-registered keys: {owners}"
            )
        native = bool(getattr(transformer, "_native", False))
        self._transformers.append(transformer)
        for value in projection.values():
            if isinstance(value, StreamChannel):
                self._adopt(value, native=native)
        self.extensions.update(projection)
        for key in projection:
            self._projection_owners[key] = type(transformer).__name__
            self._transformer_by_key[key] = transformer
        if native:
            self.native_keys.update(projection)
        transformer._on_register(self)

    def _adopt(self, channel: StreamChannel[Any], *, native: bool) -> None:
        channel._bind(is_async=self.is_async)
        channel._bind_mux(self)
        self._channels.append(channel)
        if channel.name is not None:
            method = channel.name if native else f"custom:{channel.name}"
            channel._wire(lambda item: self._forward(method, item))

    def transformer_by_key(self, key: str) -> StreamTransformer | None:
        """The transformer whose projection is named ``key``."""
        return self._transformer_by_key.get(key)

    def _next_push_seq(self) -> int:
        self._push_seq += 1
        return self._push_seq

    # -- the pump ------------------------------------------------------------------
    def bind_pump(self, fn: Callable[[], bool]) -> None:
        """Let every reader of this mux (its log, its channels, transformers with ``_bind_pump``) drive the run by ``fn``."""
        self._pump_fn = fn
        self._events._request_more = fn
        for ch in self._channels:
            ch._request_more = fn
        for t in self._transformers:
            if (bind := getattr(t, "_bind_pump", None)) is not None:
                bind(fn)

    def bind_apump(self, fn: Callable[[], Awaitable[bool]]) -> None:
        """The async lane's :meth:`bind_pump`."""
        self._apump_fn = fn
        self._events._arequest_more = fn
        for ch in self._channels:
            ch._arequest_more = fn
        for t in self._transformers:
            if (bind := getattr(t, "_bind_apump", None)) is not None:
                bind(fn)

    def _make_child(self, scope: tuple[str, ...]) -> StreamMux:
        """A mux for the subgraph at ``scope``: this one's factories made anew, driven by this one's pump."""
        if self._factories is None:
            raise RuntimeError(
                "StreamMux._make_child requires the mux to be constructed with `factories=`; "
                "pre-built transformers can't be cloned to a new scope."
            )
        child = StreamMux(factories=self._factories, is_async=self.is_async, scope=scope, _assign_seq=False)
        if self._pump_fn is not None:
            child.bind_pump(self._pump_fn)
        if self._apump_fn is not None:
            child.bind_apump(self._apump_fn)
        return child

    # -- events --------------------------------------------------------------------
    def _log(self, event: ProtocolEvent) -> None:
        # numbered as it enters the log, so what transformers forwarded while seeing it comes first
        if self._assign_seq:
            self._seq += 1
            event["seq"] = self._seq
        self._events.push(event)

    def push(self, event: ProtocolEvent) -> None:
        """``event`` through every transformer (each sees it, whatever the others answer), then into the log."""
        keep = True
        for t in self._transformers:
            if not t.process(event):
                keep = False
        if keep:
            self._log(event)

    async def apush(self, event: ProtocolEvent) -> None:
        """The async lane's :meth:`push`: each transformer's ``aprocess`` awaited in turn."""
        keep = True
        for t in self._transformers:
            if not await t.aprocess(event):
                keep = False
        if keep:
            self._log(event)

    def _forward(self, method: str, item: Any) -> None:
        event: ProtocolEvent = {
            "type": "event",
            "method": method,
            "params": {"namespace": [], "timestamp": int(time.time() * 1000), "data": item},
        }
        self._log(event)

    # -- the end -------------------------------------------------------------------
    def _close_channels(self) -> None:
        for ch in self._channels:
            if not ch._closed:
                ch.close()
        self._events.close()

    def _fail_channels(self, err: BaseException) -> None:
        for ch in self._channels:
            if not ch._closed:
                ch.fail(err)
        if not self._events._closed:
            self._events.fail(err)

    def close(self) -> None:
        """The run ended: every transformer's ``finalize``, then every channel and the log closed
        (all of them even if a ``finalize`` raised; the first such error raised after)."""
        first: BaseException | None = None
        for t in self._transformers:
            try:
                t.finalize()
            except BaseException as e:
                first = first or e
        self._close_channels()
        if first is not None:
            raise first

    def fail(self, err: BaseException) -> None:
        """The run failed with ``err``: every transformer's ``fail`` (errors ignored), every channel and the log failed."""
        for t in self._transformers:
            try:
                t.fail(err)
            except BaseException:
                pass
        self._fail_channels(err)

    async def aclose(self) -> None:
        """:meth:`close` on the async lane, after the transformers' scheduled work has finished
        (its first error, from ``schedule(on_error="raise")``, raised instead)."""
        pending = self._pending_tasks()
        if pending:
            results = await asyncio.gather(*pending, return_exceptions=True)
            for r in results:
                if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
                    raise r
        first: BaseException | None = None
        for t in self._transformers:
            try:
                await t.afinalize()
            except BaseException as e:
                first = first or e
        self._close_channels()
        if first is not None:
            raise first

    async def afail(self, err: BaseException) -> None:
        """:meth:`fail` on the async lane, after cancelling the transformers' scheduled work."""
        pending = self._pending_tasks()
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        for t in self._transformers:
            try:
                await t.afail(err)
            except BaseException:
                pass
        self._fail_channels(err)

    def _pending_tasks(self) -> list[asyncio.Task[Any]]:
        return [task for t in self._transformers for task in getattr(t, "_stream_scheduled_tasks", ()) if not task.done()]
