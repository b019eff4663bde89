"""The engine's one door to LangChain (langchain-core, optional: the ``langchain`` extra).

LangGraph is built on LangChain's runnables, callbacks and messages; the
engine runs without them and uses them when they are installed. Every part
of the engine that needs LangChain reaches it through this package, and
nowhere else (tests/codebase/test_langchain_door.py keeps it so):

* this module: what LangChain offers, looked up when first asked for and
  None (or a stand-in) when it is not installed: :func:`messages`,
  :func:`ambient_config`, :func:`runnable_class`, :func:`runnables`, :func:`tool_output_bases`, :func:`callback_manager` (and async),
  :func:`handlers_asked`,
  :func:`init_embeddings`, ``RunnableConfig``, ``Embeddings``;
* :mod:`.stream`: the callback handlers of the "messages" stream mode and the
  config a node runs with (its LangChain run, the run's callbacks);
* :mod:`.runs`: a node's run as its tracers record it (a trace policy's payloads)
  and as LangSmith's current run while the node's code runs;
* :mod:`.tools`: the "tools" stream mode's handler (a task's tool calls);
* :mod:`.calls`: the functional API's entrypoint and task calls under LangChain's config;
* :mod:`.chat_streams`: the chat model streams of a v3 run's ``run.messages`` (:mod:`engine.stream`);
* :mod:`.serde`: the message classes the serializer stores by name.

Outside it, three places are LangChain by nature and import it themselves:
``engine/prebuilt`` (tool nodes and agents made of LangChain's tools and
models, as LangGraph's prebuilt), and the two modules at the paths LangGraph's
ecosystem imports by name, ``engine/callbacks.py`` (``langgraph.callbacks``)
and ``engine/_internal/_runnable.py`` (``langgraph._internal._runnable``).
This module imports nothing of the engine, so any module may use it.
"""

from __future__ import annotations

import abc
import asyncio
import functools
import sys
from typing import TYPE_CHECKING, Any

__all__ = [
    "Embeddings",
    "RunnableConfig",
    "ambient_config",
    "async_callback_manager",
    "callback_manager",
    "drawing",
    "handlers_asked",
    "init_embeddings",
    "messages",
    "runnable_class",
    "runnables",
    "serializable_runnable_class",
    "tool_output_bases",
]


@functools.cache
def messages() -> Any:
    """``langchain_core.messages`` (a module), or None when langchain-core is not installed."""
    try:
        import langchain_core.messages as module
    except ImportError:
        return None
    return module


def ambient_config() -> dict[str, Any] | None:
    """The config LangChain's runnables see as their caller's (its ``var_child_runnable_config``), if any."""
    if messages() is None:
        return None
    from langchain_core.runnables.config import var_child_runnable_config

    found: Any = var_child_runnable_config.get()
    return found


def runnable_class() -> type | None:
    """LangChain's ``Runnable`` (a compiled graph is one, and a node may be one), or None without langchain-core."""
    lc = runnables()
    return None if lc is None else lc.Runnable


def runnables() -> Any:
    """``langchain_core.runnables`` (a module), or None when langchain-core is not installed."""
    if messages() is None:
        return None
    import langchain_core.runnables as module

    return module


def drawing() -> Any:
    """``langchain_core.runnables.graph`` (LangChain's drawable ``Graph``, ``Node``, ``Edge``: a remote
    graph's drawing), or None without langchain-core."""
    if runnables() is None:
        return None
    import langchain_core.runnables.graph as module

    return module


def serializable_runnable_class() -> Any:
    """LangChain's ``RunnableSerializable`` (a drawn node's data), or None without langchain-core."""
    lc = runnables()
    return None if lc is None else lc.RunnableSerializable


def tool_output_bases() -> tuple[type, ...]:
    """LangChain's ``ToolOutputMixin`` when installed (a tool returning a Command returns it as it is)."""
    if messages() is None:
        return ()
    from langchain_core.messages.tool import ToolOutputMixin

    return (ToolOutputMixin,)


def callback_manager() -> type[CallbackManager]:
    """LangChain's ``CallbackManager`` class; only asked for when a call's config has callbacks,
    which means langchain-core is installed."""
    from langchain_core.callbacks import CallbackManager

    return CallbackManager


@functools.cache
def _asked_checks() -> tuple[Any, Any, Any, Any, Any]:
    from langchain_core.globals import get_debug
    from langchain_core.tracers import context
    from langchain_core.utils.env import env_var_is_set
    from langsmith.utils import tracing_is_enabled

    hooks = getattr(context, "_configure_hooks", [])  # the list register_configure_hook fills (LangChain's own)
    return context.tracing_v2_callback_var, tracing_is_enabled, get_debug, hooks, env_var_is_set


def handlers_asked() -> bool:
    """Whether LangChain gives a call without callbacks handlers of its own, as its callback managers
    do (``CallbackManager.configure``): LangSmith's tracer when tracing is on (``LANGSMITH_TRACING``
    in the environment, ``langsmith.tracing_context(enabled=True)``, ``tracing_v2_enabled()``), a
    console printer in LangChain's debug mode (``set_debug(True)``), a configure hook's handler
    (``collect_runs()``, ``get_usage_metadata_callback()``). False when langchain-core is not loaded
    (the engine never imports it for this: a program using LangChain has)."""
    if "langchain_core" not in sys.modules:
        return False
    tracer_var, tracing_is_enabled, get_debug, hooks, env_var_is_set = _asked_checks()
    if tracer_var.get() is not None or tracing_is_enabled() or get_debug():
        return True
    return any(
        var.get() is not None or (env_var is not None and handler_class is not None and env_var_is_set(env_var))
        for var, _, handler_class, env_var in hooks
    )


def async_callback_manager() -> type[AsyncCallbackManager]:
    """LangChain's ``AsyncCallbackManager`` class (needs langchain-core)."""
    from langchain_core.callbacks import AsyncCallbackManager

    return AsyncCallbackManager


def init_embeddings(provider: str) -> Any:
    """LangChain's ``init_embeddings(provider)`` (the ``langchain`` package, not only langchain-core).

    Raises:
        ImportError: ``langchain`` is not installed.
    """
    from langchain.embeddings import init_embeddings as make  # type: ignore[import-not-found]

    return make(provider)


if TYPE_CHECKING:
    from langchain_core.callbacks import AsyncCallbackManager, CallbackManager
    from langchain_core.embeddings import Embeddings
    from langchain_core.runnables import RunnableConfig
else:
    try:
        from langchain_core.runnables import RunnableConfig
    except ImportError:  # exercised by tests/engine/test_without_langchain.py
        RunnableConfig = dict[str, Any]
    try:
        from langchain_core.embeddings import Embeddings
    except ImportError:

        class Embeddings(abc.ABC):
            """LangChain's embedding interface, for when langchain-core is not installed."""

            @abc.abstractmethod
            def embed_documents(self, texts: list[str]) -> list[list[float]]:
                """One vector per text."""

            @abc.abstractmethod
            def embed_query(self, text: str) -> list[float]:
                """The vector of one query."""

            async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
                return await asyncio.to_thread(self.embed_documents, texts)

            async def aembed_query(self, text: str) -> list[float]:
                return await asyncio.to_thread(self.embed_query, text)
