"""The run's context and tools inside a node, at LangGraph's import path (``langgraph.runtime``).

A node takes ``runtime: Runtime[Ctx]`` (by name, whatever its annotation,
as in LangGraph) or calls :func:`get_runtime` anywhere below it::

    @dataclass
    class Ctx:
        user_id: str

    def greet(state: State, runtime: Runtime[Ctx]):
        return {"text": f"hello {runtime.context.user_id}"}

    graph = StateGraph(State, context_schema=Ctx).add_node(greet)...compile()
    graph.invoke({}, context=Ctx(user_id="u1"))   # or context={"user_id": "u1"}
"""

from __future__ import annotations

from typing import Any

from engine._internal._runtime import ExecutionInfo, RunControl, Runtime, ServerInfo
from engine._internal._task import runtime_of_task

__all__ = ["DEFAULT_RUNTIME", "ExecutionInfo", "RunControl", "Runtime", "ServerInfo", "get_runtime"]

#: A Runtime with nothing set (LangGraph's): its stream writer and heartbeat do nothing.
DEFAULT_RUNTIME: Runtime[Any] = Runtime()


def get_runtime(context_schema: Any = None) -> Runtime[Any]:
    """The running node's Runtime (``context_schema`` only types the result, as in LangGraph).

    Raises RuntimeError outside a running node.
    """
    return runtime_of_task()
