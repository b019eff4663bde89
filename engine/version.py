"""``langgraph.version.__version__`` under the import swap: the LangGraph release whose public
behaviour the engine follows (packages that pick a code path by LangGraph's version pick that
release's)."""

from __future__ import annotations

__all__ = ("__version__",)

__version__ = "1.2.22"
