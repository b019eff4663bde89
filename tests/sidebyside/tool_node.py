"""ToolNode and tools_condition: parallel calls, errors as ToolMessages, injected arguments."""

import asyncio
from typing import Annotated

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, ToolNode, tools_condition
from langgraph.types import Command

from observe import call, record


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def boom(x: str) -> str:
    """Always fails."""
    raise ValueError(f"no {x}")


@tool
def as_dict(k: str) -> dict:
    """Returns a dict."""
    return {"k": k, "n": [1, 2]}


@tool
def blocks() -> list:
    """Returns content blocks."""
    return [{"type": "text", "text": "a block"}]


@tool
def who(question: str, state: Annotated[dict, InjectedState]) -> str:
    """Reads the state."""
    return f"{question}: {len(state['messages'])} messages"


@tool
def field(state_field: Annotated[str, InjectedState("topic")]) -> str:
    """Reads one state key."""
    return f"topic={state_field}"


@tool
def ident(tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Knows its call id."""
    return f"id={tool_call_id}"


@tool
def commanding(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Returns a Command."""
    return Command(update={"messages": [ToolMessage("commanded", tool_call_id=tool_call_id)], "topic": "changed"})


@tool
async def slow(n: int) -> str:
    """Async tool."""
    await asyncio.sleep(0)
    return f"slow {n}"


def ai(*calls):
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(calls)])


class State(MessagesState):
    topic: str


def plain(q: int) -> str:
    """A plain function as a tool."""
    return f"plain {q}"


node = ToolNode([add, boom, as_dict, blocks, who, field, ident, commanding, slow, plain])


def run(tools, state, key="messages"):
    """``tools`` as the one node of a graph over ``state`` (a ToolNode needs a graph run)."""
    g = StateGraph(State)
    g.add_node("tools", tools)
    g.add_edge(START, "tools")
    return g.compile().invoke(state)


def arun(tools, state):
    g = StateGraph(State)
    g.add_node("tools", tools)
    g.add_edge(START, "tools")
    return asyncio.run(g.compile().ainvoke(state))


state = {"messages": [HumanMessage("hi"), ai(("add", {"a": 1, "b": 2}), ("as_dict", {"k": "v"}), ("blocks", {}),
                                              ("who", {"question": "how many"}), ("field", {}), ("ident", {}),
                                              ("plain", {"q": 1}))],
         "topic": "cats"}
call("parallel", run, node, state)
call("unknown tool", run, node, {"messages": [ai(("nope", {}))]})
call("bad args", run, node, {"messages": [ai(("add", {"a": "x"}))]})
call("raising tool (default)", run, node, {"messages": [ai(("boom", {"x": "y"}))]})
call("raising tool (handled)", run, ToolNode([boom], handle_tool_errors=True), {"messages": [ai(("boom", {"x": "y"}))]})
call("raising tool (str)", run, ToolNode([boom], handle_tool_errors="sorry"), {"messages": [ai(("boom", {"x": "y"}))]})
call("raising tool (fn)", run, ToolNode([boom], handle_tool_errors=lambda e: f"caught {e}"), {"messages": [ai(("boom", {"x": "y"}))]})
call("raising tool (types)", run, ToolNode([boom], handle_tool_errors=(KeyError,)), {"messages": [ai(("boom", {"x": "y"}))]})
call("raising tool (type ok)", run, ToolNode([boom], handle_tool_errors=(ValueError,)), {"messages": [ai(("boom", {"x": "y"}))]})
call("raising tool (off)", run, ToolNode([boom], handle_tool_errors=False), {"messages": [ai(("boom", {"x": "y"}))]})
call("command", run, node, {"messages": [ai(("commanding", {}))], "topic": "t"})
call("async", arun, node, {"messages": [ai(("slow", {"n": 3}), ("add", {"a": 2, "b": 2}))]})
call("no ai message", run, node, {"messages": [HumanMessage("hi")]})
record("names", sorted(node.tools_by_name))
record("condition tools", tools_condition({"messages": [ai(("add", {}))]}))
record("condition end", tools_condition({"messages": [AIMessage("done")]}))
record("condition list", tools_condition([ai(("add", {}))]))


def model(state: State) -> dict:
    if isinstance(state["messages"][-1], ToolMessage):
        return {"messages": [AIMessage("final: " + state["messages"][-1].content)]}
    return {"messages": [ai(("add", {"a": 40, "b": 2}), ("who", {"question": "count"}))]}


b = StateGraph(State)
b.add_node("model", model)
b.add_node("tools", node)
b.add_edge(START, "model")
b.add_conditional_edges("model", tools_condition)
b.add_edge("tools", "model")
g = b.compile()
call("graph", g.invoke, {"messages": [("user", "go")], "topic": "x"})
record("edges", sorted((e.source, e.target, e.conditional) for e in g.get_graph().edges))
