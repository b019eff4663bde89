"""LangGraph's module path of :class:`~engine.channels.ephemeral.EphemeralValue` (``langgraph.channels.ephemeral_value``)."""

from engine.channels.ephemeral import EphemeralValue

__all__ = ["EphemeralValue"]
