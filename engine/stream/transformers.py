"""The built-in transformers of a v3 stream (``langgraph.stream.transformers``): names only, refused when made."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from typing_extensions import NotRequired

from engine.stream._types import V3_REFUSED, StreamTransformer

__all__ = [
    "CheckpointsTransformer", "CustomTransformer", "DebugTransformer", "LifecyclePayload", "LifecycleTransformer",
    "MessagesTransformer", "SubgraphStatus", "SubgraphTransformer", "TasksTransformer", "UpdatesTransformer",
    "ValuesTransformer",
]  # fmt: skip

#: Where a subgraph's run is, as a lifecycle event says.
SubgraphStatus = Literal["started", "completed", "failed", "interrupted", "drained"]


class LifecyclePayload(TypedDict, total=False):
    """A lifecycle event's data: the status of the subgraph at ``namespace``."""

    event: SubgraphStatus
    namespace: list[str]
    graph_name: NotRequired[str]
    trigger_call_id: NotRequired[str]
    cause: NotRequired[Any]
    error: NotRequired[str]


class _Refused(StreamTransformer):
    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        raise NotImplementedError(V3_REFUSED)

    def init(self) -> dict[str, Any]:  # pragma: no cover - never made
        return {}


class _TasksLifecycleBase(_Refused):
    """The base of the transformers that follow subgraphs' runs by the tasks mode (LangChain's agents subclass it)."""


class ValuesTransformer(_Refused):
    pass


class CustomTransformer(_Refused):
    pass


class UpdatesTransformer(_Refused):
    pass


class MessagesTransformer(_Refused):
    pass


class LifecycleTransformer(_TasksLifecycleBase):
    pass


class SubgraphTransformer(_TasksLifecycleBase):
    pass


class CheckpointsTransformer(_Refused):
    pass


class DebugTransformer(_Refused):
    pass


class TasksTransformer(_Refused):
    pass
