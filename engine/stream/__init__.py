"""LangGraph's v3 streaming protocol (``langgraph.stream``): ``stream_events(version="v3")``.

A v3 run is a layer over the graph's own stream: each part the graph streams
(mode, namespace, data) becomes a :class:`ProtocolEvent`, goes through a chain
of :class:`StreamTransformer` objects owned by a mux (:mod:`._mux`), and lands
in the run's main log; the transformers build projections out of the events
(``run.values``, ``run.messages``, ``run.lifecycle``, ``run.subgraphs``, and
those of the transformers a graph is compiled with or a call names). Reading
any of them drives the run (:mod:`.run_stream`). The engine's Pregel starts
such a run in :mod:`engine.pregel._v3`.
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
