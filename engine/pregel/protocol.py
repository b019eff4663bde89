"""``langgraph.pregel.protocol``'s :class:`StreamProtocol`: a parent graph's stream, as a node is handed one.

A node that runs a graph elsewhere (a :class:`~engine.pregel.remote.RemoteGraph`)
passes that graph's chunks on to its caller's stream through it: each chunk as
``(namespace, mode, payload)``, for the modes in ``modes``. The engine's own
runs hand it one of their own (a ``RemoteGraph`` inside a task finds it);
code written against LangGraph may put one in ``configurable`` under
``langgraph._internal._constants.CONFIG_KEY_STREAM`` itself.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

__all__ = ["StreamProtocol"]


class StreamProtocol:
    """A stream that takes ``(namespace, mode, payload)`` chunks of the stream modes ``modes``."""

    __slots__ = ("modes", "__call__")

    def __init__(self, __call__: Callable[[tuple[tuple[str, ...], str, Any]], None], modes: Iterable[str]) -> None:
        self.__call__ = __call__  # type: ignore[method-assign]  # an instance's own callable, as LangGraph's
        self.modes = set(modes)
