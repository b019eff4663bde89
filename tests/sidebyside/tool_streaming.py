"""Tools that stream progress (get_stream_writer inside a tool), a tool with an InjectedToolArg,
an async tool, parallel tool calls' custom events, and "custom" + "updates" modes together."""

import asyncio
from typing import Annotated

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import InjectedToolArg, tool
from langgraph.config import get_stream_writer
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from observe import record


@tool
def slow_search(q: str) -> str:
    """Search slowly."""
    w = get_stream_writer()
    for pct in (50, 100):
        w({"tool": "slow_search", "q": q, "progress": pct})
    return f"results for {q}"


@tool
async def fetch(url: str, user: Annotated[str, InjectedToolArg] = "nobody") -> str:
    """Fetch a page."""
    get_stream_writer()({"tool": "fetch", "url": url})
    await asyncio.sleep(0)
    return f"{url} for {user}"


def agent(state: MessagesState):
    return {"messages": [AIMessage("", tool_calls=[
        {"name": "slow_search", "args": {"q": "cats"}, "id": "s1"},
        {"name": "fetch", "args": {"url": "a.com"}, "id": "f1"},
    ])]}


g = StateGraph(MessagesState)
g.add_node("agent", agent)
g.add_node("tools", ToolNode([slow_search, fetch]))
g.add_edge(START, "agent")
g.add_edge("agent", "tools")
app = g.compile()


async def main():
    chunks = [c async for c in app.astream({"messages": [HumanMessage("go")]}, stream_mode=["custom", "updates"])]
    record("custom", sorted(repr(c) for m, c in chunks if m == "custom"))
    record("updates", [sorted(c) for m, c in chunks if m == "updates"])
    out = await app.ainvoke({"messages": [HumanMessage("go")]})
    record("tool results", [m.content for m in out["messages"][-2:]])
    record("async custom", sorted([repr(c) async for c in app.astream({"messages": [HumanMessage("go")]}, stream_mode="custom")]))


asyncio.run(main())
record("schema hides injected", sorted(fetch.tool_call_schema.model_json_schema()["properties"]))
