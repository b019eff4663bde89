"""``BasePostgresSaver`` at LangGraph's import path (``langgraph.checkpoint.postgres.base``): the
saver class itself, which graphwire's async and shallow savers subclass (so ``isinstance`` holds
for each, as with LangGraph's base)."""

from __future__ import annotations

from engine.checkpoint.postgres._saver import PostgresSaver

__all__ = ["BasePostgresSaver"]

BasePostgresSaver = PostgresSaver
