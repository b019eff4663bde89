"""The names LangGraph's savers share with its loop (``langgraph.checkpoint.serde.types``): the
special channels of pending writes, the channel of the Sends due next step, and a delta channel's
snapshot."""

from __future__ import annotations

from engine.checkpoint._shapes import ERROR, INTERRUPT, RESUME, SCHEDULED
from engine.types import DeltaSnapshot

__all__ = ["DeltaSnapshot", "ERROR", "INTERRUPT", "RESUME", "SCHEDULED", "TASKS"]

#: the channel of the Sends due next step (``Send`` packets a version keeps until they run)
TASKS = "__pregel_tasks"

#: LangGraph's name for it, which programs that read stored versions check for.
_DeltaSnapshot = DeltaSnapshot
