"""LangGraph's old home of its types (``langgraph.pregel.types``): deprecated there, re-exported from :mod:`engine.types`."""

from warnings import warn

from engine.types import CachePolicy, PregelTask, RetryPolicy, StateSnapshot, StateUpdate, StreamMode, StreamWriter
from engine.warnings import LangGraphDeprecatedSinceV10

__all__ = ["CachePolicy", "PregelTask", "RetryPolicy", "StateSnapshot", "StateUpdate", "StreamMode", "StreamWriter"]

warn(
    "Importing from langgraph.pregel.types is deprecated. Please use 'from langgraph.types import ...' instead.",
    LangGraphDeprecatedSinceV10,
    stacklevel=2,
)
