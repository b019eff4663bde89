"""``langgraph.graph.state``'s names."""

from __future__ import annotations

from engine.graph._state import CompiledStateGraph, StateGraph

__all__ = ["StateGraph", "CompiledStateGraph"]
