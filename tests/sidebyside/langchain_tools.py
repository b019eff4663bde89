"""LangChain 1.x's langchain.tools (its ToolRuntime, InjectedState, ToolCallRequest re-exported from LangGraph) on the graph."""

from langchain.tools import InjectedState, ToolRuntime, tool
from langchain.tools.tool_node import ToolCallRequest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.prebuilt import ToolRuntime as LangGraphToolRuntime
from typing_extensions import Annotated

from observe import record


@tool
def count(runtime: ToolRuntime, state: Annotated[dict, InjectedState]) -> str:
    """Counts the messages, two ways."""
    return f"{len(runtime.state['messages'])} / {len(state['messages'])} / {runtime.tool_call_id}"


def wrapper(request: ToolCallRequest, execute):
    return execute(request)


record("one ToolRuntime", ToolRuntime is LangGraphToolRuntime)
g = StateGraph(MessagesState)
g.add_node("agent", lambda s: {"messages": [AIMessage("", tool_calls=[{"name": "count", "args": {}, "id": "k1"}])]})
g.add_node("tools", ToolNode([count], wrap_tool_call=wrapper))
g.add_edge(START, "agent").add_edge("agent", "tools")
record("run", g.compile().invoke({"messages": [HumanMessage("hi")]}))
record("schema", count.tool_call_schema.model_json_schema())
