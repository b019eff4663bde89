"""The v3 stream's built-in transformers (``langgraph.stream.transformers``).

Every v3 run has ``ValuesTransformer``, ``MessagesTransformer``,
``LifecycleTransformer`` and ``SubgraphTransformer``; the one-mode ones
(updates, custom, checkpoints, debug, tasks) come with ``transformers=``.
They live in :mod:`._data`, :mod:`._messages` and :mod:`._lifecycle`.
"""

from __future__ import annotations

from engine.stream._data import (
    CheckpointsTransformer,
    CustomTransformer,
    DebugTransformer,
    TasksTransformer,
    UpdatesTransformer,
    ValuesTransformer,
)
from engine.stream._lifecycle import (
    LifecyclePayload,
    LifecycleTransformer,
    SubgraphStatus,
    SubgraphTransformer,
    _status_from_exception,
    _TasksLifecycleBase,
    _terminal_from_result,
)
from engine.stream._messages import MessagesTransformer

__all__ = [
    "CheckpointsTransformer", "CustomTransformer", "DebugTransformer", "LifecyclePayload", "LifecycleTransformer",
    "MessagesTransformer", "SubgraphStatus", "SubgraphTransformer", "TasksTransformer", "UpdatesTransformer",
    "ValuesTransformer", "_TasksLifecycleBase", "_status_from_exception", "_terminal_from_result",
]  # fmt: skip
