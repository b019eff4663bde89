"""A ToolNode given bare tool calls outside a graph: the state its tools see comes from LangGraph's state readers
in the config (``__pregel_read_state``; ``__pregel_read``, a partial of Pregel's ``local_read`` whose second
argument is the channels), else it is empty; sync and async, a wrapper's request and an InjectedState tool."""

import asyncio
import functools
from typing import Annotated

from langchain_core.tools import tool
from langgraph.prebuilt import InjectedState, ToolNode
from langgraph.runtime import Runtime

from observe import call, record

seen = []


@tool
def topic(x: int, state: Annotated[dict, InjectedState]) -> str:
    """Reads the whole state."""
    return f"{x}: {sorted(state)}"


def wrapper(request, execute):
    seen.append(request.state)
    return execute(request)


values = {"messages": [], "topic": "cats", "files": {"/a": "b"}}


def local_read(scratchpad, channels, managed, task, select, fresh):
    seen.append(("read", list(select), fresh))
    return {k: values[k] for k in select if k in values}


def config(**readers):
    return {"configurable": {"__pregel_runtime": Runtime(), **readers}}


read = functools.partial(local_read, None, {"topic": None, "files": None}, {}, None)
calls = [{"name": "topic", "args": {"x": 1}, "id": "c1", "type": "tool_call"}]
node = ToolNode([topic], wrap_tool_call=wrapper)
record("read", node.invoke(calls, config(__pregel_read=read)))
record("read async", asyncio.run(node.ainvoke(calls, config(__pregel_read=read))))
record("read_state", node.invoke(calls, config(__pregel_read_state=lambda: {"topic": "dogs"})))
record("read_state first", node.invoke(calls, config(__pregel_read_state=lambda: {"files": {}}, __pregel_read=read)))
call("no reader", node.invoke, calls, config())
record("seen", seen)
