"""create_agent with HumanInTheLoopMiddleware: the interrupt (its request), then resumes with approve, edit,
reject and respond decisions; the per-call mode (an interrupt per tool call, answers checked against the
decision's schema, a refused answer asked again); the snapshots and the history."""

import asyncio

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from observe import call, history, record


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    return f"sent to {to}: {body}"


@tool
def lookup(name: str) -> str:
    """Look a name up."""
    return f"{name} is at home"


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def calls(mid, *pairs):
    return AIMessage("", id=mid, tool_calls=[{"name": n, "args": a, "id": f"{mid}-c{i}"} for i, (n, a) in enumerate(pairs)])


def agent(*replies, **options):
    model = Fake(messages=iter([*replies, AIMessage("done", id="ai-end")]))
    hitl = HumanInTheLoopMiddleware(interrupt_on={"send_email": True, "lookup": False}, **options)
    return create_agent(model, [send_email, lookup], middleware=[hitl], checkpointer=InMemorySaver())


two = (("send_email", {"to": "ann", "body": "hi"}), ("lookup", {"name": "bob"}))
for decision in (
    {"type": "approve"},
    {"type": "edit", "edited_action": {"name": "send_email", "args": {"to": "ann", "body": "hello"}}},
    {"type": "reject", "message": "not now"},
    {"type": "respond", "message": "I sent it myself"},
):
    a = agent(calls("ai-1", *two))
    config = {"configurable": {"thread_id": decision["type"]}}
    first = a.invoke({"messages": [{"role": "user", "content": "mail ann", "id": "h-1"}]}, config)
    record(f"{decision['type']}: asked", first)
    record(f"{decision['type']}: waiting", a.get_state(config))
    record(f"{decision['type']}: resumed", a.invoke(Command(resume={"decisions": [decision]}), config))
    history(a, config, f"{decision['type']}: history")

a = agent(calls("ai-1", *two))
config = {"configurable": {"thread_id": "wrong count"}}
a.invoke({"messages": [("user", "mail ann")]}, config)
call("too many decisions", a.invoke, Command(resume={"decisions": [{"type": "approve"}, {"type": "approve"}]}), config)
record("after the error", a.get_state(config))

a = agent(calls("ai-1", ("send_email", {"to": "ann", "body": "hi"})), interrupt_mode="per_call")
config = {"configurable": {"thread_id": "per call"}}
record("per call: asked", a.invoke({"messages": [("user", "mail ann")]}, config))
record("per call: waiting", a.get_state(config))
call("per call: refused answer", a.invoke, Command(resume={"type": "nonsense"}), config)
record("per call: asked again", a.get_state(config))
record("per call: answered", a.invoke(Command(resume={"type": "edit", "edited_action": {"name": "send_email", "args": {"to": "ann", "body": "yo"}}}), config))
history(a, config, "per call: history")

# two calls in one step: LangGraph lists their interrupts in the order they were raised (its threads'),
# the engine in task order; so they are read by tool call here, and answered by id
a = agent(calls("ai-1", ("send_email", {"to": "ann", "body": "hi"}), ("send_email", {"to": "cy", "body": "yo"})), interrupt_mode="per_call")
config = {"configurable": {"thread_id": "per call, two"}}
a.invoke({"messages": [("user", "mail both")]}, config)
asked = sorted(a.get_state(config).interrupts, key=lambda i: i.value["tool_call_id"])
record("two: asked", [i.value for i in asked])
record("two: one answered", a.invoke(Command(resume={asked[0].id: {"type": "approve"}}), config)["messages"])
record("two: other answered", a.invoke(Command(resume={asked[1].id: {"type": "reject", "message": "no"}}), config))
record("two: state", a.get_state(config).values)


async def asynchronously():
    a = agent(calls("ai-1", *two))
    config = {"configurable": {"thread_id": "async"}}
    asked = await a.ainvoke({"messages": [("user", "mail ann")]}, config)
    resumed = await a.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    return asked, resumed, [s async for s in a.aget_state_history(config)]


record("async", asyncio.run(asynchronously()))
