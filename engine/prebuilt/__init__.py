"""Prebuilt agent parts, as ``langgraph.prebuilt``: ToolNode, tools_condition, create_react_agent, ValidationNode.

They are built on langchain-core's messages and tools, so this package needs
the ``langchain`` extra: ``pip install -e '.[langchain]'`` in a clone of
graphwire (the server is not on a package index), or ``pip install
'langchain-core>=1,<2'``, which is all the extra holds.
"""

from __future__ import annotations

try:
    import langchain_core  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised by tests/engine/test_without_langchain.py
    raise ImportError(
        "engine.prebuilt needs langchain-core: pip install 'langchain-core>=1,<2' (in a clone of graphwire: "
        "pip install -e '.[langchain]', the langchain extra)"
    ) from e

from engine.prebuilt._agent_parts import AgentState
from engine.prebuilt._react import create_react_agent
from engine.prebuilt._injected import InjectedState, InjectedStore, ToolRuntime
from engine.prebuilt._tool_call_transformer import ToolCallTransformer
from engine.prebuilt._tool_node import ToolNode, tools_condition
from engine.prebuilt.tool_validator import ValidationNode

__all__ = [
    "ToolNode", "tools_condition", "create_react_agent", "InjectedState", "InjectedStore", "ToolRuntime", "AgentState",
    "ValidationNode", "ToolCallTransformer",
]  # fmt: skip
