"""The functional API, as LangGraph 1.2's ``langgraph.func``: ``@entrypoint`` and ``@task``."""

from engine.func._entrypoint import entrypoint
from engine.func._task import task

__all__ = ["entrypoint", "task"]
