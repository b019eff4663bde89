"""astream_events(version="v2") through create_react_agent (tools), a subgraph, an interrupt and an error."""

import asyncio
from typing import TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import create_react_agent
from langgraph.types import Command, interrupt

from observe import call, record


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def summary(ev):
    out = {"event": ev["event"], "name": ev["name"], "parents": len(ev["parent_ids"]),
           "tags": sorted(t for t in ev["tags"] if not t.startswith("seq:step"))}
    meta = ev.get("metadata", {})
    for k in ("langgraph_node", "langgraph_step", "checkpoint_ns"):
        if k in meta:
            out[k] = meta[k] if k != "checkpoint_ns" else meta[k].split(":")[0]
    data = ev["data"]
    if ev["event"] == "on_chat_model_stream":
        out["chunk"] = data["chunk"].content
    if ev["event"] in ("on_tool_start", "on_tool_end"):
        out["data"] = {k: (v if k == "input" else getattr(v, "content", v)) for k, v in data.items()}
    if ev["event"] == "on_chain_stream" and ev["name"] == "LangGraph":
        out["chunk_keys"] = sorted(data["chunk"]) if isinstance(data["chunk"], dict) else repr(type(data["chunk"]))
    if ev["event"] == "on_chain_error" or "error" in data:
        out["error"] = type(data.get("error")).__name__
    return out


async def collect(app, inp, config, **kw):
    return [summary(ev) async for ev in app.astream_events(inp, config, version="v2", **kw)]


m = Fake(messages=iter([AIMessage("calling", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}]), AIMessage("three")]))
agent = create_react_agent(m, [add], checkpointer=InMemorySaver())
record("agent events", asyncio.run(collect(agent, {"messages": [("user", "1+2")]}, {"configurable": {"thread_id": "a"}})))


class S(TypedDict):
    x: str


def ask(s):
    return {"x": interrupt("ok?")}


inner = StateGraph(S)
inner.add_node("ask", ask)
inner.add_edge(START, "ask")
sub = inner.compile()
outer = StateGraph(S)
outer.add_node("sub", sub)
outer.add_node("end", lambda s: {"x": s["x"] + "!"})
outer.add_edge(START, "sub")
outer.add_edge("sub", "end")
app = outer.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "s"}}
record("interrupt events", asyncio.run(collect(app, {"x": ""}, cfg)))
record("resume events", asyncio.run(collect(app, Command(resume="yes"), cfg)))
record("names filter", asyncio.run(collect(app, {"x": "again"}, {"configurable": {"thread_id": "t"}}, include_names=["sub"])))


def boom(s):
    raise ValueError("bad")


bad = StateGraph(S)
bad.add_node("boom", boom)
bad.add_edge(START, "boom")
bad_app = bad.compile()
call("error events", lambda: asyncio.run(collect(bad_app, {"x": ""}, {})))


async def partial():
    out = []
    try:
        async for ev in bad_app.astream_events({"x": ""}, {}, version="v2"):
            out.append(summary(ev))
    except ValueError as e:
        out.append({"raised": str(e)})
    return out


record("error events seen", asyncio.run(partial()))
