"""langgraph-supervisor's create_supervisor over two create_agent agents: handoffs by tool call, the agents'
replies handed back, both output modes; the graph, the state and the history."""

import itertools
import types
import uuid

import langgraph_supervisor.handoff
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph_supervisor import create_supervisor

from observe import history, record

# the handoff messages' ids are random (uuid4) on both: numbered here instead, so that histories compare
_ids = itertools.count(1)
langgraph_supervisor.handoff.uuid = types.SimpleNamespace(uuid4=lambda: uuid.UUID(int=next(_ids)))


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def search(query: str) -> str:
    """Search the web."""
    return f"results for {query}"


class Fake(GenericFakeChatModel):
    seen: list = []

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([(type(m).__name__, m.name, m.content) for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def call(mid, name, args, cid):
    return AIMessage("", id=mid, tool_calls=[{"name": name, "args": args, "id": cid}])


def build(output_mode):
    math_model = Fake(messages=iter([call("m1", "add", {"a": 2, "b": 3}, "a1"), AIMessage("2 + 3 = 5", id="m2")]), seen=[])
    research_model = Fake(messages=iter([call("r1", "search", {"query": "five"}, "s1"), AIMessage("five is a number", id="r2")]), seen=[])
    boss = Fake(
        messages=iter(
            [
                call("b1", "transfer_to_math_expert", {}, "h1"),
                call("b2", "transfer_to_research_expert", {}, "h2"),
                AIMessage("all done: 5, a number", id="b3"),
            ]
        ),
        seen=[],
    )
    math = create_agent(math_model, [add], name="math_expert", system_prompt="you do math")
    research = create_agent(research_model, [search], name="research_expert")
    workflow = create_supervisor(
        [math, research], model=boss, prompt="you manage", output_mode=output_mode
    )
    return workflow.compile(checkpointer=InMemorySaver()), (boss, math_model, research_model)


for mode in ("last_message", "full_history"):
    app, models = build(mode)
    config = {"configurable": {"thread_id": mode}}
    if mode == "last_message":
        record("graph", sorted((e.source, e.target, e.conditional) for e in app.get_graph().edges))
    record(f"{mode}: result", app.invoke({"messages": [{"role": "user", "content": "what is 2+3, and what is it?", "id": "u1"}]}, config))
    record(f"{mode}: models saw", [m.seen for m in models])
    record(f"{mode}: state", app.get_state(config))
    history(app, config, f"{mode}: history")

app, _ = build("last_message")
record("updates", [sorted(chunk) for chunk in app.stream({"messages": [("user", "go")]}, {"configurable": {"thread_id": "s"}}, stream_mode="updates")])

# agents made by create_react_agent (the package's own examples), and the forward-message tool
import warnings  # noqa: E402

from langgraph.prebuilt import create_react_agent  # noqa: E402
from langgraph_supervisor import create_forward_message_tool  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    math = create_react_agent(Fake(messages=iter([AIMessage("5", id="m1")]), seen=[]), [add], name="math_expert")
    boss = Fake(
        messages=iter([call("b1", "transfer_to_math_expert", {}, "h1"), call("b2", "forward_message", {"from_agent": "math_expert"}, "f1")]),
        seen=[],
    )
    app = create_supervisor([math], model=boss, tools=[create_forward_message_tool("supervisor")]).compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "react"}}
record("react agents", app.invoke({"messages": [{"role": "user", "content": "2+3?", "id": "u1"}]}, config))
history(app, config, "react agents history")
