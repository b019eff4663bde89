"""deepagents streamed as a UI streams it: astream with updates and messages modes, subgraphs on, a custom
subagent called through the task tool; each chunk's namespace depth, mode and node. Needs `pip install deepagents`."""

import asyncio
import itertools

from deepagents import create_deep_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from observe import record


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def call(mid, name, args):
    return AIMessage("", id=mid, tool_calls=[{"name": name, "args": args, "id": f"{mid}-0"}])


async def main():
    main_model = Fake(disable_streaming=True, messages=iter(itertools.chain([
        call("m1", "task", {"description": "find facts", "subagent_type": "researcher"}),
    ], (AIMessage("final answer", id=f"m{i}") for i in itertools.count(2)))))
    sub_model = Fake(disable_streaming=True, messages=(AIMessage("the facts", id=f"s{i}") for i in itertools.count(1)))
    agent = create_deep_agent(
        model=main_model,
        subagents=[{"name": "researcher", "description": "finds facts", "system_prompt": "research", "model": sub_model}],
        checkpointer=InMemorySaver(),
    )
    seen = []
    async for ns, mode, chunk in agent.astream(
        {"messages": [{"role": "user", "content": "go"}]}, {"configurable": {"thread_id": "t"}},
        stream_mode=["updates", "messages"], subgraphs=True,
    ):
        if mode == "updates":
            seen.append([len(ns), mode, sorted(chunk)])
        else:
            msg, meta = chunk
            seen.append([len(ns), mode, meta.get("langgraph_node"), type(msg).__name__, msg.content])
    record("chunks", seen)


asyncio.run(main())
