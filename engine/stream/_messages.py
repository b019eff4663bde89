"""``run.messages``: one langchain-core ``ChatModelStream`` per chat model call of the run's own level.

A v3 run streams "messages" with a handler that forwards a chat model's
protocol events (``message-start``, content blocks, ``message-finish``) as
``(event, metadata)`` pairs, the model call's ``run_id`` in the metadata;
this transformer routes them by that id to one stream per call. A message a
node returns whole (not streamed) arrives as a message and becomes a stream
replayed from it. Token chunks of the v1 shape, tool results and other
levels' messages are left out. LangChain's part (the streams, replaying a
message) is :mod:`engine._langchain.chat_streams`, imported when a stream is
made: the engine runs without langchain-core, and then no model streams.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from engine._langchain import messages as _messages
from engine.stream._types import ProtocolEvent, StreamTransformer
from engine.stream.stream_channel import StreamChannel

__all__ = ["MessagesTransformer"]


class MessagesTransformer(StreamTransformer):
    """Turns the run's own "messages" events into chat model streams (``run.messages``).

    A stream made while a pump is bound drives the run when read (the async
    one when the run is async); one made without (events dispatched by hand)
    is an async stream with nothing to drive.
    """

    _native = True
    required_stream_modes = ("messages",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Any] = StreamChannel()
        self._by_run: dict[str, Any] = {}  # run_id -> the open stream of that model call
        self._ignored_runs: set[str] = set()  # model calls whose messages are tool results
        self._pump_fn: Callable[[], bool] | None = None
        self._apump_fn: Callable[[], Awaitable[bool]] | None = None
        self._scope_list: list[str] = list(scope)

    def init(self) -> dict[str, Any]:
        return {"messages": self._log}

    def _bind_pump(self, fn: Callable[[], bool]) -> None:
        self._pump_fn = fn

    def _bind_apump(self, fn: Callable[[], Awaitable[bool]]) -> None:
        self._apump_fn = fn

    def _make_stream(self, *, namespace: list[str], node: str | None, message_id: str | None) -> Any:
        from engine._langchain.chat_streams import make_stream

        if self._apump_fn is not None or self._pump_fn is None:
            astream = make_stream(is_async=True, namespace=namespace, node=node, message_id=message_id)
            if self._apump_fn is not None:
                astream.set_arequest_more(self._apump_fn)
            return astream
        stream = make_stream(is_async=False, namespace=namespace, node=node, message_id=message_id)
        stream.set_request_more(self._pump_fn)
        return stream

    def process(self, event: ProtocolEvent) -> bool:
        params = event["params"]
        if event["method"] != "messages" or params["namespace"] != self._scope_list:
            return True
        payload, metadata = params["data"]
        node = metadata.get("langgraph_node") if metadata else None
        run_id = str(metadata.get("run_id", "")) if metadata else ""
        if isinstance(payload, dict) and "event" in payload:
            self._route_event(payload, run_id=run_id, node=node)
        elif _is_whole_reply(payload):
            self._replay(payload, node=node)
        return True

    def _route_event(self, event: dict[str, Any], *, run_id: str, node: str | None) -> None:
        kind = event.get("event")
        if kind == "message-start":
            if event.get("role") == "tool":  # a tool's result: on the state and the tools mode, not here
                self._ignored_runs.add(run_id)
                return
            message_id = event.get("message_id")
            stream = self._make_stream(namespace=[], node=node, message_id=None if message_id is None else str(message_id))
            self._by_run[run_id] = stream
            self._log.push(stream)
            stream.dispatch(event)
        elif run_id in self._ignored_runs:
            if kind == "message-finish":
                self._ignored_runs.discard(run_id)
        elif (stream := self._by_run.get(run_id)) is not None:
            stream.dispatch(event)
            if kind == "message-finish":
                del self._by_run[run_id]

    def _replay(self, message: Any, *, node: str | None) -> None:
        from engine._langchain.chat_streams import replayed

        stream = self._make_stream(namespace=[], node=node, message_id=message.id)
        for part in replayed(message):
            stream.dispatch(part)
        self._log.push(stream)

    def finalize(self) -> None:
        self._by_run.clear()
        self._ignored_runs.clear()

    def fail(self, err: BaseException) -> None:
        """Streams still open when the run failed fail with its error."""
        for stream in list(self._by_run.values()):
            stream.fail(err)
        self.finalize()


def _is_whole_reply(payload: Any) -> bool:
    """A whole message (not a chunk, not a tool's result): replayed as a stream. Without langchain-core
    (no message classes, no model streams) nothing is."""
    if _messages() is None:
        return False
    from engine._langchain.chat_streams import is_whole_reply

    return is_whole_reply(payload)
