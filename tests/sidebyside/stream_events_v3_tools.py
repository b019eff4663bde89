"""run.tool_calls (ToolCallTransformer) of a v3 run: a ToolNode's two calls (one streaming its partial
output with ToolRuntime.emit_output_delta, one failing), each call's id, name, input, deltas, output or
error; the "tools" events in the main log; async; and a tool in a subgraph (its handle's tool_calls)."""

import asyncio

from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolCallTransformer, ToolNode

from observe import record


@tool
def search(q: str, runtime: ToolRuntime) -> str:
    """Search, reporting progress."""
    for part in ("found ", "two"):
        runtime.emit_output_delta(part)
    return f"results for {q}"


@tool
def broken(x: int) -> str:
    """Fail."""
    raise ValueError("no luck")


def agent(state: MessagesState):
    return {"messages": [AIMessage("", tool_calls=[
        {"name": "search", "args": {"q": "cats"}, "id": "s1"},
        {"name": "broken", "args": {"x": 1}, "id": "b1"},
    ])]}


def build(**kw):
    g = StateGraph(MessagesState).add_node("agent", agent).add_node("tools", ToolNode([search, broken], handle_tool_errors=True))
    return g.add_edge(START, "agent").add_edge("agent", "tools").compile(**kw)


def calls(run):
    out = []
    for c in run.tool_calls:
        deltas = list(c)
        out.append((c.tool_call_id, c.tool_name, c.input, deltas, c.output, c.error, c.completed))
    return sorted(out)


app = build(transformers=[ToolCallTransformer])
INPUT = {"messages": [HumanMessage("go")]}
record("tool calls", calls(app.stream_events(INPUT, version="v3")))
events = [e for e in app.stream_events(INPUT, version="v3") if e["method"] == "tools"]
record("tools events", sorted((e["params"]["data"]["tool_call_id"], e["params"]["data"]["event"]) for e in events))
record("without the transformer", sorted(build().stream_events(INPUT, version="v3").extensions))


async def main():
    run = await app.astream_events(INPUT, version="v3")
    out = []
    async for c in run.tool_calls:
        out.append((c.tool_call_id, [d async for d in c], c.output, c.error))
    return sorted(out)


record("async", asyncio.run(main()))

outer = StateGraph(MessagesState).add_node("inner", build(transformers=[ToolCallTransformer])).add_edge(START, "inner")
run = outer.compile(transformers=[ToolCallTransformer]).stream_events(INPUT, version="v3")
found = []
for h in run.subgraphs:
    found.append([(c.tool_call_id, list(c), c.output) for c in h.tool_calls])
record("in a subgraph", (found, list(run.tool_calls)))
