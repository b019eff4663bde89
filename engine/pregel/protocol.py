"""``langgraph.pregel.protocol``: :class:`PregelProtocol`, what a graph is whether it runs here or on a
server, and :class:`StreamProtocol`, a parent graph's stream, as a node is handed one.

A compiled graph (:class:`~engine.pregel.Pregel` and its subclasses) and a
:class:`~engine.pregel.remote.RemoteGraph` are both ``PregelProtocol`` instances (registered
as virtual subclasses), so code that tells a graph from another object by
``isinstance(x, PregelProtocol)`` (LangGraph's server does) finds them.

A node that runs a graph elsewhere (a :class:`~engine.pregel.remote.RemoteGraph`)
passes that graph's chunks on to its caller's stream through it: each chunk as
``(namespace, mode, payload)``, for the modes in ``modes``. The engine's own
runs hand it one of their own (a ``RemoteGraph`` inside a task finds it);
code written against LangGraph may put one in ``configurable`` under
``langgraph._internal._constants.CONFIG_KEY_STREAM`` itself.
"""

from __future__ import annotations

import abc
from typing import Any, Callable, Generic, Iterable, TypeVar

__all__ = ["PregelProtocol", "StreamChunk", "StreamProtocol"]

_S = TypeVar("_S")
_C = TypeVar("_C")
_I = TypeVar("_I")
_O = TypeVar("_O")
#: a chunk a StreamProtocol takes: ``(namespace, mode, payload)``
StreamChunk = tuple[tuple[str, ...], str, Any]


class PregelProtocol(abc.ABC, Generic[_S, _C, _I, _O]):
    """A graph, local or remote (LangGraph's state, context, input and output types as parameters):
    ``invoke``/``stream``, their async twins, and the thread's state, history and updates."""


class StreamProtocol:
    """A stream that takes ``(namespace, mode, payload)`` chunks of the stream modes ``modes``."""

    __slots__ = ("modes", "__call__")

    def __init__(self, __call__: Callable[[tuple[tuple[str, ...], str, Any]], None], modes: Iterable[str]) -> None:
        self.__call__ = __call__  # type: ignore[method-assign]  # an instance's own callable, as LangGraph's
        self.modes = set(modes)
