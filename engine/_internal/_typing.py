"""The empty-channel sentinel under LangGraph's private path (``langgraph._internal._typing.MISSING``)."""

from engine.channels.base import MISSING

__all__ = ["MISSING"]
