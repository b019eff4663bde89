"""create_agent's v3 stream, run by tests/engine/test_stream_v3_tools.py under the import swap (LangChain
imports ``langgraph``); prints what it saw as one JSON line. The twin of tests/sidebyside/agent_stream_v3.py."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def make_agent() -> Any:
    replies = iter([AIMessage("", id="ai-1", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}]), AIMessage("the sum is 3", id="ai-2")])
    return create_agent(Fake(messages=replies, disable_streaming=True), [add], system_prompt="be brief")


INPUT = {"messages": [{"role": "user", "content": "add"}]}
seen: dict[str, Any] = {}
run = make_agent().stream_events(INPUT, version="v3")
seen["extensions"] = sorted(run.extensions)
log: list[Any] = []
for name, item in run.interleave("messages", "tool_calls", "values"):
    if name == "messages":
        log.append(["message", item.node, item.output.text, [tc["name"] for tc in item.output.tool_calls]])
    elif name == "tool_calls":
        log.append(["tool", item.tool_call_id, item.tool_name, item.input, list(item), item.output])
    else:
        log.append(["values", [m.type for m in item["messages"]]])
seen["log"] = log


async def main() -> Any:
    run = await make_agent().astream_events(INPUT, version="v3")
    texts = [[s.node, (await s).text] async for s in run.messages]
    return [texts, [m.type for m in (await run.output())["messages"]]]


seen["async"] = asyncio.run(main())
print(json.dumps(seen))
