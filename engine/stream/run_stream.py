"""The handles of a v3 stream (``langgraph.stream.run_stream``).

:class:`GraphRunStream` (``stream_events(version="v3")``) and
:class:`AsyncGraphRunStream` (``await astream_events(version="v3")``) hold a
run that has not started: whoever reads it (its main log, a projection such
as ``run.values``, ``run.output``) drives it, one graph event per pull, by
the pump. There is no background task or thread: a reader that stops stops
the graph, and nothing piles up behind it. Reading the same projection twice
raises (``tee`` it); projections nobody subscribed to keep nothing.

A subgraph handle (``SubgraphRunStream``) has no graph of its own: its mux
is a child of its parent's, fed by the parent's ``SubgraphTransformer``, and
reading it drives the root run.
"""

from __future__ import annotations

import asyncio
from types import MappingProxyType
from typing import Any, AsyncIterator, Awaitable, Callable, Iterator, Mapping, NoReturn

from engine.stream._convert import convert_to_protocol_event
from engine.stream._mux import StreamMux
from engine.stream._types import ProtocolEvent, SubgraphStatus
from engine.stream.stream_channel import StreamChannel


__all__ = ["AsyncGraphRunStream", "AsyncSubgraphRunStream", "GraphRunStream", "SubgraphRunStream"]


def _missing(run: object, name: str) -> NoReturn:
    mux = run.__dict__.get("_mux")  # not getattr: on a half-made run that would come back here
    names = ", ".join(sorted(mux.native_keys)) if mux is not None else ""
    raise AttributeError(f"{type(run).__name__!r} object has no attribute {name!r} (registered projections: {names or 'none'})")


class _RunState:
    """What both lanes' handles keep of a run: its mux, its last values at its own level, its interrupts."""

    _mux: StreamMux
    # the native projections, set from the mux's extensions by _start
    values: StreamChannel[dict[str, Any]]
    messages: StreamChannel[Any]
    lifecycle: StreamChannel[Any]
    subgraphs: StreamChannel[Any]
    updates: StreamChannel[dict[str, Any]]
    custom: StreamChannel[Any]
    checkpoints: StreamChannel[dict[str, Any]]
    debug: StreamChannel[dict[str, Any]]
    tasks: StreamChannel[dict[str, Any]]

    def _start(self, mux: StreamMux) -> None:
        self._mux = mux
        self.extensions: Mapping[str, Any] = MappingProxyType(mux.extensions)
        self._exhausted = False
        self._latest: dict[str, Any] | None = None
        self._interrupted = False
        self._interrupts: list[Any] = []
        self._scope_list: list[str] = list(mux.scope)
        for key in mux.native_keys:
            setattr(self, key, mux.extensions[key])

    def __getattr__(self, name: str) -> StreamChannel[Any]:
        _missing(self, name)

    def _observe_event(self, event: ProtocolEvent) -> None:
        """Keep the run's own values (``output``) and interrupts, whatever transformers it has."""
        params = event["params"]
        if event["method"] != "values" or params["namespace"] != self._scope_list:
            return
        self._latest = params["data"]
        if interrupts := params.get("interrupts", ()):
            self._interrupted = True
            self._interrupts.extend(interrupts)

    def _raise_error(self) -> None:
        if (err := self._mux._events._error) is not None:
            raise err


class GraphRunStream(_RunState):
    """A run streamed by the v3 protocol, driven by whoever reads it (sync lane).

    Iterating it yields the main log's :class:`ProtocolEvent` objects;
    ``run.values``, ``run.messages``, ``run.lifecycle``, ``run.subgraphs``
    (and the projections of other transformers, also in ``extensions``) are
    its projections; ``output``, ``interrupted`` and ``interrupts`` run it to
    its end first.
    """

    def __init__(self, graph_iter: Iterator[Any] | None, mux: StreamMux, *, wire_pump: bool = True) -> None:
        self._graph_iter = graph_iter
        self._start(mux)
        if wire_pump:
            mux.bind_pump(self._pump_next)

    def _pump_next(self) -> bool:
        """Pull one part from the graph into the mux; False once the run is over (the mux then closed or failed)."""
        if self._exhausted or self._graph_iter is None:
            return False
        try:
            event = convert_to_protocol_event(next(self._graph_iter))
            self._observe_event(event)
            self._mux.push(event)
            return True
        except StopIteration:
            self._mux.close()
        except Exception as e:
            self._mux.fail(e)
        self._exhausted = True
        return False

    def abort(self) -> None:
        """Stop the run now (its generator closed, so running nodes and subgraphs stop) and close the mux; idempotent."""
        if self._exhausted:
            return
        self._exhausted = True
        graph_iter, self._graph_iter = self._graph_iter, None
        if (close := getattr(graph_iter, "close", None)) is not None:
            try:
                close()
            except Exception:
                pass
        try:
            self._mux.close()
        except Exception:
            pass

    def __enter__(self) -> GraphRunStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.abort()

    def _run_out(self) -> None:
        while self._pump_next():
            pass
        self._raise_error()

    @property
    def output(self) -> dict[str, Any] | None:
        """The run's last values at its own level, once it has ended (its error raised, if it failed)."""
        self._run_out()
        return self._latest

    @property
    def interrupted(self) -> bool:
        self._run_out()
        return self._interrupted

    @property
    def interrupts(self) -> list[Any]:
        self._run_out()
        return self._interrupts

    def __iter__(self) -> Iterator[ProtocolEvent]:
        return iter(self._mux._events)

    def interleave(self, *names: str) -> Iterator[tuple[str, Any]]:
        """The projections ``names`` read together, ``(name, item)`` in the order the items were pushed."""
        channels: dict[str, StreamChannel[Any]] = {}
        try:
            for name in names:
                channels[name] = _claim(self.extensions[name], name)
            open_ = dict(channels)
            while open_:
                for name, ch in list(open_.items()):
                    if ch._closed and not ch._items:
                        if ch._error is not None:
                            raise ch._error
                        del open_[name]
                ready = [(ch._items[0][0], name) for name, ch in open_.items() if ch._items]
                if ready:
                    name = min(ready)[1]
                    yield name, open_[name]._items.popleft()[1]
                    continue
                pump = self._mux._pump_fn
                if open_ and (pump is None or not pump()) and not any(ch._closed or ch._items for ch in open_.values()):
                    break  # the run is over and left these channels open
        finally:
            for ch in channels.values():
                ch._subscribed = False


def _claim(ch: Any, name: str) -> StreamChannel[Any]:
    if not isinstance(ch, StreamChannel):
        raise TypeError(f"interleave() requires StreamChannel projections, got {type(ch).__name__} for {name!r}")
    if ch._is_async is None:
        raise TypeError(f"StreamChannel {name!r} has not been bound yet. Register the transformer with a StreamMux first.")
    if ch._is_async:
        raise TypeError(f"StreamChannel {name!r} is bound to async mode — sync interleave() cannot consume async channels.")
    if ch._subscribed:
        raise RuntimeError(f"StreamChannel {name!r} already has a subscriber; use .tee(n) for fan-out.")
    ch._subscribed = True
    return ch


class AsyncGraphRunStream(_RunState):
    """A run streamed by the v3 protocol, driven by whoever reads it (async lane).

    Several readers may wait at once: one pulls from the graph, the others
    wait for that pull to land (their item may be in it). ``output()``,
    ``interrupted()`` and ``interrupts()`` are coroutines. ``async with``
    aborts the run on the way out.
    """

    def __init__(self, graph_aiter: AsyncIterator[Any] | None, mux: StreamMux, *, wire_pump: bool = True) -> None:
        self._graph_aiter = graph_aiter
        self._start(mux)
        self._pump_cond = asyncio.Condition()
        self._pumping = False
        self._anext_task: asyncio.Future[Any] | None = None
        self._aborting = False
        if wire_pump:
            mux.bind_apump(self._apump_next)

    async def _apump_next(self) -> bool:
        """Pull one part (or wait while another reader pulls one); False once the run is over."""
        async with self._pump_cond:
            if self._exhausted or self._graph_aiter is None:
                return False
            if self._pumping:
                await self._pump_cond.wait()
                return not self._exhausted
            self._pumping = True
        try:
            return await self._pull(self._graph_aiter)
        finally:
            async with self._pump_cond:
                self._pumping = False
                self._pump_cond.notify_all()

    async def _pull(self, graph_aiter: AsyncIterator[Any]) -> bool:
        try:
            # a task of its own, so abort() can cancel a pull in flight (and the nodes it is running)
            self._anext_task = asyncio.ensure_future(graph_aiter.__anext__())
            try:
                part = await self._anext_task
            except asyncio.CancelledError:
                if self._aborting:
                    self._exhausted = True
                    return False
                self._anext_task.cancel()  # this reader was cancelled: so is its pull
                raise
            finally:
                self._anext_task = None
            event = convert_to_protocol_event(part)
            self._observe_event(event)
            await self._mux.apush(event)
            return True
        except StopAsyncIteration:
            self._exhausted = True
            await self._mux.aclose()
        except Exception as e:
            self._exhausted = True
            await self._mux.afail(e)
        return False

    async def abort(self) -> None:
        """Stop the run now: a pull in flight cancelled (with the nodes it runs), the generator closed, the mux closed; idempotent."""
        async with self._pump_cond:
            if self._exhausted:
                return
            self._exhausted = self._aborting = True
            graph_aiter, self._graph_aiter = self._graph_aiter, None
            pulling = self._anext_task
            self._pump_cond.notify_all()
        if pulling is not None and not pulling.done():
            pulling.cancel()
            try:
                await pulling
            except (asyncio.CancelledError, Exception):
                pass
        if (aclose := getattr(graph_aiter, "aclose", None)) is not None:
            try:
                await aclose()
            except Exception:
                pass
        try:
            await self._mux.aclose()
        except Exception:
            pass

    async def __aenter__(self) -> AsyncGraphRunStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.abort()

    async def _run_out(self) -> None:
        while await self._apump_next():
            pass
        self._raise_error()

    async def output(self) -> dict[str, Any] | None:
        """The run's last values at its own level, once it has ended (its error raised, if it failed)."""
        await self._run_out()
        return self._latest

    async def interrupted(self) -> bool:
        await self._run_out()
        return self._interrupted

    async def interrupts(self) -> list[Any]:
        await self._run_out()
        return self._interrupts

    def __aiter__(self) -> AsyncIterator[ProtocolEvent]:
        return self._mux._events.__aiter__()


class _SubgraphFacts:
    """What a subgraph handle says of its subgraph; ``SubgraphTransformer`` keeps ``status`` and ``error`` current."""

    def _describe(self, path: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None) -> None:
        self.path = path
        self.graph_name = graph_name
        self.trigger_call_id = trigger_call_id
        self.status: SubgraphStatus = "started"
        self.error: str | None = None
        self._seen_terminal = False


class SubgraphRunStream(GraphRunStream, _SubgraphFacts):
    """A subgraph's part of a sync v3 run (an item of ``run.subgraphs``); reading it drives the root run."""

    def __init__(self, mux: StreamMux, *, path: tuple[str, ...], graph_name: str | None = None, trigger_call_id: str | None = None) -> None:
        self._parent_pump_fn: Callable[[], bool] | None = mux._pump_fn
        super().__init__(None, mux, wire_pump=False)
        self._describe(path, graph_name, trigger_call_id)

    def _pump_next(self) -> bool:
        if self._exhausted or self._seen_terminal or self._mux._events._closed or self._parent_pump_fn is None:
            return False
        return self._parent_pump_fn()


class AsyncSubgraphRunStream(AsyncGraphRunStream, _SubgraphFacts):
    """A subgraph's part of an async v3 run (an item of ``run.subgraphs``); reading it drives the root run."""

    def __init__(self, mux: StreamMux, *, path: tuple[str, ...], graph_name: str | None = None, trigger_call_id: str | None = None) -> None:
        self._parent_apump_fn: Callable[[], Awaitable[bool]] | None = mux._apump_fn
        super().__init__(None, mux, wire_pump=False)
        self._describe(path, graph_name, trigger_call_id)

    async def _apump_next(self) -> bool:
        if self._exhausted or self._seen_terminal or self._mux._events._closed or self._parent_apump_fn is None:
            return False
        return await self._parent_apump_fn()
