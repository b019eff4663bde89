"""LangGraph's v3 streaming protocol's names (``langgraph.stream``).

Code built on it imports and subclasses these (LangChain 1.x's ``create_agent``
compiles its graph with ``transformers=[ToolCallTransformer, ...]``), so they
exist; the protocol itself is not run by the engine: making a run stream, a
mux or a built-in transformer raises NotImplementedError, and a graph's
compiled-in transformers are kept (``stream_transformers``) for that stream
only, as LangGraph uses them nowhere else.
"""

from engine.stream._types import ProtocolEvent, StreamTransformer
from engine.stream.run_stream import AsyncGraphRunStream, AsyncSubgraphRunStream, GraphRunStream, SubgraphRunStream
from engine.stream.stream_channel import StreamChannel
from engine.stream.transformers import (
    CheckpointsTransformer,
    CustomTransformer,
    DebugTransformer,
    LifecyclePayload,
    LifecycleTransformer,
    SubgraphStatus,
    SubgraphTransformer,
    TasksTransformer,
    UpdatesTransformer,
)

__all__ = [
    "AsyncGraphRunStream", "AsyncSubgraphRunStream", "CheckpointsTransformer", "CustomTransformer", "DebugTransformer",
    "GraphRunStream", "LifecyclePayload", "LifecycleTransformer", "ProtocolEvent", "StreamChannel", "StreamTransformer",
    "SubgraphRunStream", "SubgraphStatus", "SubgraphTransformer", "TasksTransformer", "UpdatesTransformer",
]  # fmt: skip
