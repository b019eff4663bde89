"""create_react_agent's options: a model function (sync, async, with context), response_format, pre/post
model hooks, its argument checks, an unanswered tool call; ValidationNode."""

import asyncio
import warnings
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import ValidationNode, create_react_agent
from langgraph.prebuilt.chat_agent_executor import AgentState
from pydantic import BaseModel

from observe import call, history, record

warnings.simplefilter("ignore", DeprecationWarning)


class Echo(BaseChatModel):
    calls: list = []
    structured: Any = None
    turn: int = 0
    seen_structured: list = []

    @property
    def _llm_type(self):
        return "echo"

    def _generate(self, messages, stop=None, run_manager=None, **kw):
        calls = self.calls[self.turn] if self.turn < len(self.calls) else []
        self.turn += 1
        text = "-".join(str(m.content) for m in messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text, tool_calls=calls))])

    def bind_tools(self, tools, **kw):
        return self

    def with_structured_output(self, schema, **kw):
        def answer(messages):
            self.seen_structured.append([str(m.content) for m in messages])
            return self.structured

        return RunnableLambda(answer)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@dataclass
class Ctx:
    shout: bool


picked = []


def pick(state, runtime):
    picked.append((len(state["messages"]), runtime.context.shout))
    return Echo(calls=[[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}]] if len(state["messages"]) == 1 else [])


agent = create_react_agent(pick, [add], context_schema=Ctx, checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "dyn"}}
record("dynamic", agent.invoke({"messages": [HumanMessage("hi")]}, cfg, context=Ctx(shout=True)))
record("picked", picked)
history(agent, cfg)


async def apick(state, runtime):
    return Echo()


record("async dynamic", asyncio.run(create_react_agent(apick, []).ainvoke({"messages": [HumanMessage("hello")]})))


class Weather(BaseModel):
    temperature: float


model = Echo(structured=Weather(temperature=21.5))
record("structured", create_react_agent(model, [add], response_format=("Answer in JSON", Weather)).invoke({"messages": [("user", "weather?")]}))
record("structured saw", model.seen_structured)
record("structured nodes", list(create_react_agent(Echo(), [], response_format=Weather).get_graph().nodes))


def pre(state):
    return {"llm_input_messages": [SystemMessage("short"), *state["messages"][-1:]]}


agent = create_react_agent(Echo(), [], pre_model_hook=pre, checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "pre"}}
agent.invoke({"messages": [HumanMessage("one")]}, cfg)
record("pre hook", agent.invoke({"messages": [HumanMessage("two")]}, cfg))


class Flagged(AgentState):
    checks: int


def post(state):
    return {"checks": state.get("checks", 0) + 1}


agent = create_react_agent(Echo(calls=[[{"name": "add", "args": {"a": 2, "b": 2}, "id": "c1"}]]), [add],
                           post_model_hook=post, state_schema=Flagged, checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "post"}}
record("post hook", agent.invoke({"messages": [HumanMessage("sum")], "checks": 0}, cfg))
history(agent, cfg)
record("post hook stream", list(create_react_agent(Echo(), [], post_model_hook=post, state_schema=Flagged).stream(
    {"messages": [HumanMessage("x")], "checks": 5})))

call("unknown kwarg", create_react_agent, Echo(), [], extra=1)
call("bad version", create_react_agent, Echo(), [], version="v3")
call("bound tools differ", create_react_agent, RunnableLambda(lambda x: x).bind(tools=[]), [add])
record("config_schema", create_react_agent(Echo(), [], config_schema=Ctx).context_schema is Ctx)

lost = [HumanMessage("hi"), AIMessage("", tool_calls=[{"name": "add", "args": {}, "id": "lost"}]), HumanMessage("?")]
call("unanswered call", create_react_agent(Echo(), [add]).invoke, {"messages": lost})
record("answered", create_react_agent(Echo(), [add]).invoke({"messages": [*lost[:2], ToolMessage("0", tool_call_id="lost"), lost[2]]}))


class Point(BaseModel):
    x: int
    y: int


record("validation", ValidationNode([Point]).invoke({"messages": [AIMessage("", tool_calls=[
    {"name": "Point", "args": {"x": 1, "y": 2}, "id": "ok"}, {"name": "Point", "args": {"x": "one", "y": 2}, "id": "bad"}])]}))
call("validation, no AIMessage", ValidationNode([Point]).invoke, [HumanMessage("hi")])
