"""The types LangGraph's savers store for it (``langgraph.checkpoint.serde.types``): a delta channel's snapshot."""

from __future__ import annotations

from engine.types import DeltaSnapshot

__all__ = ["DeltaSnapshot"]

#: LangGraph's name for it, which programs that read stored versions check for.
_DeltaSnapshot = DeltaSnapshot
