"""ag-ui-langgraph's LangGraphAgent (CopilotKit's AG-UI adapter) over a create_react_agent chat: the AG-UI
events two runs on a thread emit (their types, text deltas, state and messages snapshots; the fake model's
streamed reply drops its tool call, on both).
It drives the graph through astream_events, aget_state and aupdate_state. Needs `pip install ag-ui-langgraph`."""

import asyncio
import itertools

from ag_ui.core import RunAgentInput, UserMessage
from ag_ui_langgraph import LangGraphAgent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent

from observe import record


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


replies = itertools.chain(
    [AIMessage("checking", id="m1", tool_calls=[{"name": "weather", "args": {"city": "Oslo"}, "id": "c1"}]), AIMessage("It is sunny.", id="m2")],
    (AIMessage(f"reply {i}", id=f"r{i}") for i in itertools.count()),
)
graph = create_react_agent(Fake(messages=replies), tools=[weather], checkpointer=InMemorySaver())
agent = LangGraphAgent(name="chat", graph=graph, emit_raw_events=False)


def shown(e):
    out = {"type": str(getattr(e, "type", type(e).__name__))}
    for k in ("delta", "tool_call_name", "content", "role"):
        v = getattr(e, k, None)
        if v is not None:
            out[k] = v if not isinstance(v, str) or len(v) < 80 else v[:80]
    if out["type"].endswith("STATE_SNAPSHOT"):
        out["keys"] = sorted((getattr(e, "snapshot", None) or {}).keys())
    if out["type"].endswith("MESSAGES_SNAPSHOT"):
        out["messages"] = [getattr(m, "role", None) for m in getattr(e, "messages", [])]
    return out


async def run(run_id, text, history):
    msgs = [*history, UserMessage(id=f"u-{run_id}", role="user", content=text)]
    inp = RunAgentInput(thread_id="t1", run_id=run_id, state={}, messages=msgs, tools=[], context=[], forwarded_props={})
    return [shown(e) async for e in agent.run(inp)], msgs


async def main():
    events, msgs = await run("r1", "weather in Oslo?", [])
    record("first run", events)
    events, _ = await run("r2", "thanks", msgs)
    record("second run", events)
    state = await graph.aget_state({"configurable": {"thread_id": "t1"}})
    record("state", [(type(m).__name__, m.content) for m in state.values["messages"]])


asyncio.run(main())
