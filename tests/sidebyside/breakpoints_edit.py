"""Static breakpoints as the how-to uses them: interrupt_after, inspect, update_state(as_node=),
continue; Command(goto=) as input after a breakpoint; a tool error with handle_tool_errors off;
durability modes' histories."""

import operator
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Command

from observe import call, history, record


class S(TypedDict):
    log: Annotated[list, operator.add]
    draft: str


def write(s: S):
    return {"draft": "v1", "log": ["write"]}


def polish(s: S):
    return {"draft": s["draft"] + "+polished", "log": ["polish"]}


def publish(s: S):
    return {"log": [f"publish {s['draft']}"]}


g = StateGraph(S)
g.add_node("write", write)
g.add_node("polish", polish)
g.add_node("publish", publish)
g.add_edge(START, "write")
g.add_edge("write", "polish")
g.add_edge("polish", "publish")
g.add_edge("publish", END)
app = g.compile(checkpointer=InMemorySaver(), interrupt_after=["write"])
cfg = {"configurable": {"thread_id": "b"}}
record("stopped", app.invoke({"log": [], "draft": ""}, cfg))
record("next", app.get_state(cfg).next)
new = app.update_state(cfg, {"draft": "v2 edited"}, as_node="write")
record("after edit", [app.get_state(cfg).next, app.get_state(cfg).values])
record("continued", app.invoke(None, cfg))
history(app, cfg)
cfg2 = {"configurable": {"thread_id": "g"}}
app.invoke({"log": [], "draft": ""}, cfg2)
record("goto input", app.invoke(Command(goto="publish", update={"draft": "skipped"}), cfg2))
history(app, cfg2, "goto history")
for mode in ("sync", "async", "exit"):
    c = {"configurable": {"thread_id": f"d-{mode}"}}
    plain = g.compile(checkpointer=InMemorySaver())
    plain.invoke({"log": [], "draft": ""}, c, durability=mode)
    record(f"durability {mode}", [(s.metadata["step"], s.next) for s in plain.get_state_history(c)])


@tool
def broken(x: int) -> int:
    """Always fails."""
    raise ValueError(f"bad {x}")


def agent(state: MessagesState):
    return {"messages": [AIMessage("", tool_calls=[{"name": "broken", "args": {"x": 1}, "id": "b1"}])]}


t = StateGraph(MessagesState)
t.add_node("agent", agent)
t.add_node("tools", ToolNode([broken], handle_tool_errors=False))
t.add_edge(START, "agent")
t.add_edge("agent", "tools")
tapp = t.compile(checkpointer=InMemorySaver())
tcfg = {"configurable": {"thread_id": "t"}}
call("tool raises", tapp.invoke, {"messages": [HumanMessage("go")]}, tcfg)
st = tapp.get_state(tcfg)
record("after tool error", [st.next, [(t.name, t.error is not None) for t in st.tasks]])
t2 = StateGraph(MessagesState)
t2.add_node("agent", agent)
t2.add_node("tools", ToolNode([broken]))
t2.add_edge(START, "agent")
t2.add_edge("agent", "tools")
call("default handling", t2.compile().invoke, {"messages": [HumanMessage("go")]})
