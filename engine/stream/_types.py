"""The event and the transformer base of LangGraph's v3 streaming protocol (``langgraph.stream._types``).

The engine has the names, so that code built on them (LangChain 1.x's agents
subclass :class:`StreamTransformer` and hand transformer classes to
``compile(transformers=)``) imports and builds its graphs; it does not run
the protocol itself: a v3 stream (``astream_events(version="v3")``) is
refused, and nothing else calls a transformer (as in LangGraph, where only
that stream does).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Literal, TypedDict

from typing_extensions import NotRequired

__all__ = ["ProtocolEvent", "StreamTransformer", "V3_REFUSED"]

V3_REFUSED = (
    'the v3 streaming protocol (stream_events(version="v3"), its run streams and transformers) is not supported yet; '
    'see graphwire\'s docs, "Where it differs" (docs/porting.md)'
)


class _EventParams(TypedDict):
    namespace: list[str]
    timestamp: int
    data: Any


class ProtocolEvent(TypedDict):
    """One event of a v3 stream: a stream mode's chunk (``method``) with its namespace and data."""

    type: Literal["event"]
    event_id: NotRequired[str]
    seq: NotRequired[int]
    method: str
    params: _EventParams


class StreamTransformer(ABC):
    """A projection of a v3 stream's events (LangGraph's extension point): ``init()`` returns the
    projections it exposes, ``process(event)`` sees each event (False drops it for those after)."""

    requires_async: ClassVar[bool] = False
    supports_sync: ClassVar[bool] = False
    required_stream_modes: ClassVar[tuple[str, ...]] = ()
    before_builtins: ClassVar[bool] = False

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        self.scope = tuple(scope)

    @abstractmethod
    def init(self) -> dict[str, Any]:
        """The projections this transformer exposes, by name."""

    def process(self, event: ProtocolEvent) -> bool:
        return True

    async def aprocess(self, event: ProtocolEvent) -> bool:
        return self.process(event)

    def finalize(self) -> None:
        return None

    async def afinalize(self) -> None:
        self.finalize()

    def fail(self, err: BaseException) -> None:
        return None

    async def afail(self, err: BaseException) -> None:
        self.fail(err)
