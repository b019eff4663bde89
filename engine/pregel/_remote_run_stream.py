"""A remote graph's v3 event stream: ``RemoteGraph.stream_events(..., version="v3")``.

The run goes over the server's thread stream (``client.threads.stream``, the
langchain protocol's channels), which ``langgraph-sdk`` decodes; these
adapters give it the surface of a local v3 run stream: entered as a context
manager (which starts the run), its projections (``values``, ``messages``,
``tool_calls``, ``subgraphs``, and by name in ``extensions``), ``output``,
``interrupted``, ``interrupts``, ``abort()``, and iteration over the raw
events. The class and attribute names are LangGraph 1.2's (its tests reach
them).

Unlike a local run stream, ``interrupted`` and ``interrupts`` read the SDK's
current view without driving the run to its end.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, AsyncIterator, Iterator, Mapping

from engine.types import Command

__all__ = [
    "AsyncRunStream", "RunStream", "_AsyncRemoteGraphRunStream", "_ChannelProjection", "_ProjectionRegistry",
    "_RemoteGraphRunStream", "_translate_command_input", "refuse_v3_options",
]

log = logging.getLogger(__name__)


def refuse_v3_options(named: Mapping[str, Any], extra: Mapping[str, Any], supported: frozenset[str]) -> None:
    """NotImplementedError naming the first option given in ``named`` (a v3 remote stream takes none of
    them), or the keyword arguments in ``extra`` outside ``supported``."""
    for name, value in named.items():
        if value:
            raise NotImplementedError(f"RemoteGraph.stream_events(version='v3') does not support `{name}=`.")
    unknown = sorted(set(extra) - supported)
    if unknown:
        raise NotImplementedError(
            f"RemoteGraph.stream_events(version='v3') does not support the keyword arguments {unknown!r}; "
            f"it takes {sorted(supported)!r}."
        )


def _translate_command_input(input: Any) -> Any:
    """The run's wire ``input`` for ``input``: a ``Command(resume=x)`` is ``x`` (the server sees the thread
    is interrupted and resumes it with the input); ``goto`` and ``update`` have no v3 form."""
    if not isinstance(input, Command):
        return input
    if input.goto or input.update:
        raise NotImplementedError(
            "a remote v3 event stream takes Command(resume=...) only; `goto` and `update` have no form in its run.start"
        )
    return input.resume


class _ChannelProjection:
    """One wire channel's items (each event's ``params["data"]``), for a channel the SDK has no typed
    projection of; ``for`` on a sync stream, ``async for`` on an async one (entered first)."""

    def __init__(self, sdk: Any, channel: str) -> None:
        self._sdk = sdk
        self._channel = channel

    def _decoder(self) -> Any:
        from langgraph_sdk.stream.decoders import DataDecoder

        return DataDecoder(self._channel)

    def __iter__(self) -> Iterator[Any]:
        decoder = self._decoder()
        for event in self._sdk.subscribe([self._channel]):
            yield from decoder.feed(event)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._items()

    async def _items(self) -> AsyncIterator[Any]:
        decoder = self._decoder()
        async for event in self._sdk.subscribe([self._channel]):
            for item in decoder.feed(event):
                yield item


class _ProjectionRegistry(Mapping[str, Any]):
    """The projections by channel name, as a local run stream's ``extensions``: the SDK's typed ones,
    decoded channels for the rest of the protocol's, and any other name as a custom extension's channel.
    ``lifecycle`` (the SDK's own control channel) and ``debug`` (no wire channel) are not listed."""

    _TYPED = ("values", "messages", "tool_calls", "subgraphs")
    _DECODED = ("updates", "checkpoints", "tasks", "custom")
    _NATIVE = _TYPED + _DECODED

    def __init__(self, sdk: Any) -> None:
        self._sdk = sdk

    def __getitem__(self, name: str) -> Any:
        if name in self._TYPED:
            return getattr(self._sdk, name)
        if name in self._DECODED:
            return _ChannelProjection(self._sdk, name)
        return self._sdk.extensions[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._NATIVE)

    def __len__(self) -> int:
        return len(self._NATIVE)


class _Projections:
    """What both adapters hold, and read straight from the SDK's thread stream."""

    def __init__(self, *, client: Any, sdk_thread: Any, input: Any, config: Any, metadata: Any) -> None:
        self._client = client  # the SDK's client (sync or async, as the adapter)
        self._sdk = sdk_thread
        self._start_kwargs: dict[str, Any] = {"input": _translate_command_input(input), "config": config, "metadata": metadata}
        self._run_id: str | None = None
        self._closed = False

    @property
    def values(self) -> Any:
        return self._sdk.values

    @property
    def messages(self) -> Any:
        return self._sdk.messages

    @property
    def subgraphs(self) -> Any:
        return self._sdk.subgraphs

    @property
    def tool_calls(self) -> Any:
        """Tool executions (the ``tools`` channel), not the tool calls inside messages."""
        return self._sdk.tool_calls

    @property
    def extensions(self) -> Mapping[str, Any]:
        return _ProjectionRegistry(self._sdk)


class _RemoteGraphRunStream(_Projections):
    """The sync v3 run stream of a remote graph (entering it starts the run)."""

    _events: Iterator[Any] | None = None

    def __init__(self, *, sync_client: Any, sdk_thread: Any, input: Any, config: Any, metadata: Any) -> None:
        super().__init__(client=sync_client, sdk_thread=sdk_thread, input=input, config=config, metadata=metadata)  # LangGraph's keyword

    def __enter__(self) -> _RemoteGraphRunStream:
        if self._closed:
            raise RuntimeError("this remote run stream was closed; make another")
        self._sdk.__enter__()
        try:
            started = self._sdk.run.start(**self._start_kwargs)
        except BaseException:
            self._sdk.__exit__(*sys.exc_info())
            raise
        self._run_id = started["run_id"]
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if not self._closed:
            self._closed = True
            self._sdk.__exit__(exc_type, exc, tb)

    @property
    def output(self) -> Any:
        return self._sdk.output

    @property
    def interrupted(self) -> bool:
        """Whether the run is stopped at an interrupt now (read without waiting for the run's end)."""
        return self._sdk.interrupted

    @property
    def interrupts(self) -> list[Any]:
        return list(self._sdk.interrupts)

    def abort(self) -> None:
        """Cancel the run (if started) and close the stream; once only, failures logged."""
        if self._closed:
            return
        self._closed = True
        if self._run_id is not None:
            try:
                self._client.runs.cancel(self._sdk.thread_id, self._run_id, wait=False)
            except Exception:
                log.debug("cancelling the remote run failed", exc_info=True)
        try:
            self._sdk.close()
        except Exception:
            log.debug("closing the remote run stream failed", exc_info=True)

    def __iter__(self) -> Iterator[Any]:
        if self._events is None:
            self._events = iter(self._sdk.events)
        return self._events

    def interleave(self, *names: str) -> Iterator[tuple[str, Any]]:
        """The named projections' items as they arrive, each as ``(name, item)``."""
        yield from self._sdk.interleave_projections(list(names))


class _AsyncRemoteGraphRunStream(_Projections):
    """The async v3 run stream of a remote graph (``async with`` starts the run). No ``interleave``:
    async callers combine projections themselves, as with a local async run stream."""

    _events: AsyncIterator[Any] | None = None

    async def __aenter__(self) -> _AsyncRemoteGraphRunStream:
        if self._closed:
            raise RuntimeError("this remote run stream was closed; make another")
        await self._sdk.__aenter__()
        try:
            started = await self._sdk.run.start(**self._start_kwargs)
        except BaseException:
            await self._sdk.__aexit__(*sys.exc_info())
            raise
        self._run_id = started["run_id"]
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if not self._closed:
            self._closed = True
            await self._sdk.__aexit__(exc_type, exc, tb)

    async def output(self) -> Any:
        """The run's final values, once it ends."""
        return await self._sdk.output

    async def interrupted(self) -> bool:
        """Whether the run is stopped at an interrupt now (read without waiting for the run's end)."""
        return self._sdk.interrupted

    async def interrupts(self) -> list[Any]:
        return list(self._sdk.interrupts)

    async def abort(self) -> None:
        """Cancel the run (if started) and close the stream; once only, failures logged."""
        if self._closed:
            return
        self._closed = True
        if self._run_id is not None:
            try:
                await self._client.runs.cancel(self._sdk.thread_id, self._run_id, wait=False)
            except Exception:
                log.debug("cancelling the remote run failed", exc_info=True)
        try:
            await self._sdk.close()
        except Exception:
            log.debug("closing the remote run stream failed", exc_info=True)

    def __aiter__(self) -> AsyncIterator[Any]:
        if self._events is None:
            self._events = self._sdk.events.__aiter__()
        return self._events


#: the names remote.py uses
RunStream = _RemoteGraphRunStream
AsyncRunStream = _AsyncRemoteGraphRunStream
