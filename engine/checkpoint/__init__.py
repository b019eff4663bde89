"""Checkpointers: where a thread's versions of state live between calls.

:class:`BaseCheckpointSaver` is the contract (async, with a derived sync
face); :class:`InMemorySaver` serves tests, :class:`SqliteSaver` is the
embedded default, and ``engine.checkpoint.postgres.PostgresSaver`` the
production store (imported from its package, so that importing the engine
does not import psycopg). Every saver passes the conformance suite in
``tests/checkpoint``, and stores append-only lists as deltas
(:mod:`engine.checkpoint._delta`).
"""

from __future__ import annotations

from engine.checkpoint.base import (
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from engine.checkpoint.memory import InMemorySaver, MemorySaver
from engine.checkpoint.sqlite import SqliteSaver

__all__ = [
    "BaseCheckpointSaver",
    "Checkpoint",
    "CheckpointMetadata",
    "CheckpointTuple",
    "InMemorySaver",
    "MemorySaver",
    "SqliteSaver",
]
