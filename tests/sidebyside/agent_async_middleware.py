"""create_agent with middleware written async only (awrap_model_call, an async before_model, an async
wrap_tool_call), run by ainvoke and astream: LangGraph runs the model node's async face under an async
call (its sync face raises "Synchronous implementation of wrap_model_call is not available"). The
history after the async turns. (Under a sync invoke LangGraph refuses the async-only before_model node,
a TypeError; the engine awaits it, as docs/porting.md says of async-only functions under sync calls.)"""

import asyncio

from langchain.agents import create_agent
from langchain.agents.middleware import before_model, wrap_model_call, wrap_tool_call
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from observe import history, record

log = []


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


@before_model
async def count(state, runtime):
    log.append(("before_model", len(state["messages"])))
    return None


@wrap_model_call
async def shout(request, handler):
    response = await handler(request)
    log.append(("model", [type(m).__name__ for m in response.result]))
    return response


@wrap_tool_call
async def audit(request, handler):
    log.append(("tool", request.tool_call["name"]))
    return await handler(request)


def agent():
    replies = iter([
        AIMessage("", id="m1", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "t1"}]),
        AIMessage("five", id="m2"),
        AIMessage("again", id="m3"),
    ])
    return create_agent(Fake(messages=replies), tools=[add], middleware=[count, shout, audit], checkpointer=InMemorySaver())


async def main():
    a = agent()
    config = {"configurable": {"thread_id": "t"}}
    out = await a.ainvoke({"messages": [{"role": "user", "content": "add 2 and 3"}]}, config)
    record("ainvoke", out)
    record("log after ainvoke", list(log))
    chunks = [c async for c in a.astream({"messages": [{"role": "user", "content": "again"}]}, config, stream_mode="updates")]
    record("astream updates", [sorted(c) for c in chunks])
    record("log after astream", list(log))
    history(a, config)


asyncio.run(main())
