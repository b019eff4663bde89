"""LangGraph's deprecated shallow savers at its import path (``langgraph.checkpoint.postgres.shallow``):
see :mod:`._shallow`."""

from __future__ import annotations

from engine.checkpoint.postgres._shallow import ShallowPostgresSaver
from engine.checkpoint.postgres.aio import AsyncShallowPostgresSaver

__all__ = ["AsyncShallowPostgresSaver", "ShallowPostgresSaver"]
