"""``langgraph.utils.runnable``: ``RunnableCallable`` and ``RunnableLike`` at their old path (LangGraph's shim, kept here alike)."""

from engine._internal._runnable import RunnableCallable, RunnableLike

__all__ = ["RunnableCallable", "RunnableLike"]
