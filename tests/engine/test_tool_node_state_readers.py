"""A ToolNode given bare tool calls outside a graph reads the state its tools see from LangGraph's state readers
in the config (issue 29, prebuilt's test_list_form_send_hydrates_state_*): ``__pregel_read_state`` first, then
``__pregel_read`` (a partial of Pregel's ``local_read``: its second argument names the channels), else empty.
Observed on langgraph-prebuilt 1.1.3 by tests/sidebyside/tool_node_state_readers.py."""

from __future__ import annotations

import asyncio
import functools
from typing import Annotated, Any

from langchain_core.tools import tool

from engine.prebuilt import InjectedState, ToolNode
from engine.runtime import Runtime

VALUES = {"messages": [], "topic": "cats", "files": {"/a": "b"}}
CALLS = [{"name": "topic", "args": {"x": 1}, "id": "c1", "type": "tool_call"}]


@tool
def topic(x: int, state: Annotated[dict, InjectedState]) -> str:
    """Reads the whole state."""
    return f"{x}: {sorted(state)}"


def _node(seen: list[Any]) -> ToolNode:
    def wrapper(request: Any, execute: Any) -> Any:
        seen.append(request.state)
        return execute(request)

    return ToolNode([topic], wrap_tool_call=wrapper)


def _reader(seen: list[Any]) -> Any:
    def local_read(scratchpad: Any, channels: Any, managed: Any, task: Any, select: list[str], fresh: bool) -> Any:
        seen.append(("read", list(select), fresh))
        return {k: VALUES[k] for k in select if k in VALUES}

    return functools.partial(local_read, None, {"topic": None, "files": None}, {}, None)


def _config(**readers: Any) -> Any:
    return {"configurable": {"__pregel_runtime": Runtime(), **readers}}


def _answer(out: Any) -> str:
    return out["messages"][-1].content


def test_read_partial_gives_the_channels_values() -> None:
    seen: list[Any] = []
    node = _node(seen)
    assert _answer(node.invoke(CALLS, _config(__pregel_read=_reader(seen)))) == "1: ['files', 'topic']"
    assert _answer(asyncio.run(node.ainvoke(CALLS, _config(__pregel_read=_reader(seen))))) == "1: ['files', 'topic']"
    state = {"topic": "cats", "files": {"/a": "b"}}
    assert seen == [("read", ["topic", "files"], True), state, ("read", ["topic", "files"], True), state]


def test_read_state_comes_first_and_no_reader_is_empty() -> None:
    seen: list[Any] = []
    node = _node(seen)
    assert _answer(node.invoke(CALLS, _config(__pregel_read_state=lambda: {"topic": "dogs"}))) == "1: ['topic']"
    both = _config(__pregel_read_state=lambda: {"files": {}}, __pregel_read=_reader(seen))
    assert _answer(node.invoke(CALLS, both)) == "1: ['files']"
    assert _answer(node.invoke(CALLS, _config())) == "1: []"
    assert seen == [{"topic": "dogs"}, {"files": {}}, {}]
