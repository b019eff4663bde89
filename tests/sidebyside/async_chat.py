"""An async chat service as people write one: AsyncSqliteSaver, astream with several modes, a tool loop."""

import asyncio
import os
import tempfile

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, interrupt

from observe import record


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


model = Fake(messages=iter([
    AIMessage("let me look", tool_calls=[{"name": "weather", "args": {"city": "Paris"}, "id": "w1"}]),
    AIMessage("It is sunny in Paris."),
    AIMessage("Bye now."),
]))


async def chatbot(state: MessagesState):
    return {"messages": [await model.ainvoke(state["messages"])]}


def approve(state: MessagesState):
    answer = interrupt({"question": "send it?", "draft": state["messages"][-1].content})
    if answer != "yes":
        return Command(goto=END, update={"messages": [AIMessage("cancelled")]})
    return {}


g = StateGraph(MessagesState)
g.add_node("chatbot", chatbot)
g.add_node("tools", ToolNode([weather]))
g.add_node("approve", approve)
g.add_edge(START, "chatbot")
g.add_conditional_edges("chatbot", tools_condition, {"tools": "tools", END: "approve"})
g.add_edge("tools", "chatbot")
g.add_edge("approve", END)


def summarize(chunk):
    mode, data = chunk
    if mode == "messages":
        msg, meta = data
        return [mode, type(msg).__name__, msg.content, meta.get("langgraph_node")]
    if mode == "updates":
        return [mode, {k: (sorted(v) if isinstance(v, dict) else repr(v)[:40]) for k, v in data.items()}]
    return [mode, data]


async def main():
    path = os.path.join(tempfile.mkdtemp(), "chat.db")
    async with AsyncSqliteSaver.from_conn_string(path) as saver:
        app = g.compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": "u1"}}
        chunks = [summarize(c) async for c in app.astream({"messages": [HumanMessage("weather in Paris?")]}, cfg, stream_mode=["updates", "messages"])]
        record("turn 1", chunks)
        state = await app.aget_state(cfg)
        record("waiting", [state.next, [i.value for i in state.interrupts]])
        chunks = [summarize(c) async for c in app.astream(Command(resume="yes"), cfg, stream_mode=["updates", "values"])]
        record("resumed", [c[0] for c in chunks])
        final = await app.aget_state(cfg)
        record("messages", [(type(m).__name__, m.content) for m in final.values["messages"]])
        hist = [s async for s in app.aget_state_history(cfg)]
        record("history", [(s.metadata["step"], s.metadata["source"], s.next) for s in hist])
        out = await app.ainvoke({"messages": [("user", "thanks")]}, cfg)
        record("turn 2", [m.content for m in out["messages"]][-2:])
        record("turn 2 interrupt", [i.value for i in out.get("__interrupt__", [])])
        out = await app.ainvoke(Command(resume="no"), cfg)
        record("cancelled", out["messages"][-1].content)
        tool_msgs = [m for m in out["messages"] if isinstance(m, ToolMessage)]
        record("tool message", [(m.name, m.tool_call_id, m.content) for m in tool_msgs])


asyncio.run(main())
