"""What a running node can ask for, at LangGraph's import path (``langgraph.config``).

``get_config()`` is the running task's config, ``get_store()`` the store the
graph was compiled with, ``get_stream_writer()`` the custom-event writer.
Each works anywhere in a node's call stack (a context variable), and raises
``RuntimeError`` outside a running node (``get_stream_writer`` returns a
no-op there). ``RunnableConfig`` is LangChain's (a plain dict type without
langchain-core), for annotating a node's ``config`` parameter.
"""

from __future__ import annotations

from engine._langchain import RunnableConfig
from engine.pregel._context import get_config, get_store, get_stream_writer
from engine.types import StreamWriter

__all__ = ["get_config", "get_store", "get_stream_writer", "RunnableConfig", "StreamWriter"]
