"""An async-only tool run by ToolNode under a sync invoke: it runs on the engine; LangGraph refuses (a kept difference, README)."""

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from observe import call


@tool
async def fetch(url: str) -> str:
    """Fetch."""
    return url


g = StateGraph(MessagesState)
g.add_node("agent", lambda s: {"messages": [AIMessage("", tool_calls=[{"name": "fetch", "args": {"url": "a"}, "id": "f1"}])]})
g.add_node("tools", ToolNode([fetch]))
g.add_edge(START, "agent")
g.add_edge("agent", "tools")
call("sync invoke, async-only tool", g.compile().invoke, {"messages": [HumanMessage("go")]})
