"""Human in the loop, as the how-tos show it: review a tool call (approve, edit, reject), two
interrupts in one node, interrupt_before a node then editing state by message id, replay."""

from typing import Literal

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, interrupt

from observe import history, record


def model(state: MessagesState):
    last = state["messages"][-1]
    if isinstance(last, ToolMessage):
        return {"messages": [AIMessage(f"done: {last.content}", id="final")]}
    return {"messages": [AIMessage("", id="ai-1", tool_calls=[{"name": "search", "args": {"q": "cats"}, "id": "t1"}])]}


def review(state: MessagesState) -> Command[Literal["model", "tools"]]:
    call_ = state["messages"][-1].tool_calls[0]
    decision = interrupt({"question": "ok?", "tool_call": call_})
    if decision["action"] == "approve":
        return Command(goto="tools")
    if decision["action"] == "edit":
        edited = AIMessage("", id=state["messages"][-1].id, tool_calls=[{**call_, "args": decision["args"]}])
        return Command(goto="tools", update={"messages": [edited]})
    return Command(goto="model", update={"messages": [ToolMessage("rejected by user", tool_call_id=call_["id"], name=call_["name"])]})


def tools(state: MessagesState):
    call_ = state["messages"][-1].tool_calls[0]
    return {"messages": [ToolMessage(f"found {call_['args']['q']}", tool_call_id=call_["id"], name=call_["name"])]}


def route(state: MessagesState):
    last = state["messages"][-1]
    return "review" if getattr(last, "tool_calls", None) else END


g = StateGraph(MessagesState)
g.add_node("model", model)
g.add_node("review", review)
g.add_node("tools", tools)
g.add_edge(START, "model")
g.add_conditional_edges("model", route, ["review", END])
g.add_edge("tools", "model")
app = g.compile(checkpointer=InMemorySaver())

for n, decision in enumerate([{"action": "approve"}, {"action": "edit", "args": {"q": "dogs"}}, {"action": "reject"}]):
    cfg = {"configurable": {"thread_id": f"r{n}"}}
    out = app.invoke({"messages": [HumanMessage("find cats")]}, cfg)
    record(f"{n} asked", [i.value for i in out["__interrupt__"]])
    record(f"{n} state", app.get_state(cfg))
    out = app.invoke(Command(resume=decision), cfg)
    record(f"{n} after", [(type(m).__name__, m.content, getattr(m, "tool_calls", None)) for m in out["messages"]])
history(app, {"configurable": {"thread_id": "r1"}}, "edit history")


def two_questions(state: MessagesState):
    name = interrupt("name?")
    age = interrupt("age?")
    return {"messages": [AIMessage(f"{name} is {age}")]}


g2 = StateGraph(MessagesState)
g2.add_node("ask", two_questions)
g2.add_edge(START, "ask")
asker = g2.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "q"}}
record("first question", asker.invoke({"messages": []}, cfg)["__interrupt__"][0].value)
record("second question", asker.invoke(Command(resume="Ada"), cfg)["__interrupt__"][0].value)
record("answered", asker.invoke(Command(resume=36), cfg)["messages"][-1].content)

paused = g.compile(checkpointer=InMemorySaver(), interrupt_before=["tools"])
cfg = {"configurable": {"thread_id": "p"}}
paused.invoke({"messages": [HumanMessage("find cats")]}, cfg)
record("paused at review", paused.get_state(cfg).next)
paused.invoke(Command(resume={"action": "approve"}), cfg)
st = paused.get_state(cfg)
record("paused before tools", [st.next, st.values["messages"][-1].tool_calls])
new_call = AIMessage("", id="ai-1", tool_calls=[{"name": "search", "args": {"q": "birds"}, "id": "t1"}])
cfg2 = paused.update_state(cfg, {"messages": [new_call]})
record("after edit", paused.get_state(cfg).next)
record("continued", [m.content for m in paused.invoke(None, cfg)["messages"]])
replay_from = [s for s in paused.get_state_history(cfg) if s.next == ("tools",)][-1]
record("replayed", [m.content for m in paused.invoke(None, replay_from.config)["messages"]])
history(paused, cfg, "paused history")
