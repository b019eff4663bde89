"""The empty-channel sentinel under LangGraph's private path (``langgraph._internal._typing.MISSING``) and ``DeprecatedKwargs``."""

from typing import TypedDict

from engine.channels.base import MISSING

__all__ = ["MISSING", "DeprecatedKwargs"]


class DeprecatedKwargs(TypedDict):
    """The type of ``**kwargs`` a function keeps for arguments it no longer takes (LangGraph's, which
    langgraph-supervisor and langgraph-swarm annotate with): no keys, so a type checker flags any."""
