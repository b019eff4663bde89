"""ToolNode(wrap_tool_call=, awrap_tool_call=): requests, overrides, retries, short cuts, a wrapper's failure."""

import asyncio
from typing import Annotated

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, ToolNode, ToolRuntime
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from observe import call, record


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def sees(x: int, state: Annotated[dict, InjectedState]) -> str:
    """Reports the state it was given."""
    return f"{x}: {state.get('note')}"


@tool
def boom(x: int) -> int:
    """Always fails."""
    raise ConnectionError(f"down {x}")


@tool
def asks(q: str) -> str:
    """Asks the user."""
    return f"user said {interrupt(q)}"


# a ToolNode run outside a graph takes its Runtime where LangGraph's nodes look for it
RT = {"configurable": {"__pregel_runtime": Runtime()}}


def calls(*cs):
    return {"messages": [AIMessage("", tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(cs)])]}


seen = []


def passthrough(request, execute):
    seen.append((request.tool_call["name"], request.tool is not None, isinstance(request.runtime, ToolRuntime)))
    return execute(request)


record("passthrough", ToolNode([add], wrap_tool_call=passthrough).invoke(calls(("add", {"a": 1, "b": 2}), ("nope", {})), RT))
record("seen", seen)


def double(request, execute):
    args = request.tool_call["args"]
    return execute(request.override(tool_call={**request.tool_call, "args": {**args, "a": args["a"] * 2}}))


record("override args", ToolNode([add], wrap_tool_call=double).invoke(calls(("add", {"a": 5, "b": 1})), RT))


def note(request, execute):
    return execute(request.override(state={**request.state, "note": "from the wrapper"}))


record("override state", ToolNode([sees], wrap_tool_call=note).invoke(calls(("sees", {"x": 1})), RT))


def short(request, execute):
    return ToolMessage("cached", tool_call_id=request.tool_call["id"], name=request.tool_call["name"])


record("short cut", ToolNode([add], wrap_tool_call=short).invoke(calls(("add", {"a": 1, "b": 2})), RT))


def retry(request, execute):
    try:
        return execute(request)
    except ConnectionError:
        return ToolMessage("gave up", tool_call_id=request.tool_call["id"], status="error")


record("retry", ToolNode([boom], wrap_tool_call=retry).invoke(calls(("boom", {"x": 1})), RT))


def broken(request, execute):
    raise ValueError("wrapper broke")


call("wrapper fails, handled", ToolNode([add], wrap_tool_call=broken, handle_tool_errors=True).invoke, calls(("add", {"a": 1, "b": 2})), RT)
call("wrapper fails, default", ToolNode([add], wrap_tool_call=broken).invoke, calls(("add", {"a": 1, "b": 2})), RT)
call("wrapper fails, False", ToolNode([add], wrap_tool_call=broken, handle_tool_errors=False).invoke, calls(("add", {"a": 1, "b": 2})), RT)
call("tool fails, default", ToolNode([boom], wrap_tool_call=passthrough).invoke, calls(("boom", {"x": 1})), RT)
call("bad args, default", ToolNode([add], wrap_tool_call=passthrough).invoke, calls(("add", {"a": "x"})), RT)
call("bad args, False", ToolNode([add], handle_tool_errors=False).invoke, calls(("add", {"a": "x"})), RT)

order = []


async def awrap(request, execute):
    order.append("async")
    return await execute(request)


def wrap(request, execute):
    order.append("sync")
    return execute(request)


record("async both", asyncio.run(ToolNode([add], wrap_tool_call=wrap, awrap_tool_call=awrap).ainvoke(calls(("add", {"a": 2, "b": 2})), RT)))
record("async only sync", asyncio.run(ToolNode([add], wrap_tool_call=wrap).ainvoke(calls(("add", {"a": 2, "b": 3})), RT)))
record("order", order)

g = StateGraph(MessagesState)
g.add_node("agent", lambda s: calls(("asks", {"q": "colour?"})))
g.add_node("tools", ToolNode([asks], wrap_tool_call=passthrough, handle_tool_errors=True))
g.add_edge(START, "agent").add_edge("agent", "tools")
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "w"}}
record("interrupt", app.invoke({"messages": [HumanMessage("hi")]}, cfg))
record("resumed", app.invoke(Command(resume="blue"), cfg))
