"""create_agent's v3 stream (its compiled transformers: ToolCallTransformer, LangChain's subagents): the
projections it has, run.messages / run.tool_calls / run.values read together with interleave (a model
reply asking for a tool, the tool call, the answer), and the async run's messages and output."""

import asyncio

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from observe import record


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def make_agent():
    replies = [AIMessage("", id="ai-1", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}]), AIMessage("the sum is 3", id="ai-2")]
    # not streaming: a fake model streams no tool calls; its whole reply is replayed as a stream
    return create_agent(Fake(messages=iter(replies), disable_streaming=True), [add], system_prompt="be brief")


INPUT = {"messages": [{"role": "user", "content": "add"}]}
run = make_agent().stream_events(INPUT, version="v3")
record("extensions", sorted(run.extensions))
log = []
for name, item in run.interleave("messages", "tool_calls", "values"):
    if name == "messages":
        log.append(("message", item.node, item.output.text, [tc["name"] for tc in item.output.tool_calls]))
    elif name == "tool_calls":
        log.append(("tool", item.tool_call_id, item.tool_name, item.input, item.output))
    else:
        log.append(("values", [m.type for m in item["messages"]]))
record("log", log)


async def main():
    run = await make_agent().astream_events(INPUT, version="v3")
    texts = [(s.node, (await s).text) async for s in run.messages]
    return texts, [m.type for m in (await run.output())["messages"]]


record("async", asyncio.run(main()))
