"""Managed values (langgraph.managed): RemainingSteps and IsLastStep in TypedDict, dataclass and Pydantic states, routers, create_react_agent custom states."""
import operator
from dataclasses import dataclass, field
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.managed import IsLastStep, RemainingSteps

from observe import call, history, record


class S(TypedDict, total=False):
    log: Annotated[list, operator.add]
    remaining_steps: RemainingSteps
    is_last_step: IsLastStep


def node(state):
    return {"log": [(state["remaining_steps"], state["is_last_step"])]}


def route(state):
    return END if state["remaining_steps"] <= 2 else "node"


b = StateGraph(S).add_node("node", node).add_edge(START, "node").add_conditional_edges("node", route)
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}, "recursion_limit": 6}
record("fresh", g.invoke({"log": []}, cfg))
record("continuing", g.invoke({"log": ["again"]}, cfg))
record("state keys", sorted(g.get_state(cfg).values))
history(g, cfg)
record("default limit", g.invoke({"log": []}, {"configurable": {"thread_id": "2"}, "recursion_limit": 3}))
call("write to it", StateGraph(S).add_node("w", lambda s: {"remaining_steps": 5, "log": ["w"]}).add_edge(START, "w").compile().invoke, {"log": []})
call("as input", g.invoke, {"log": [], "remaining_steps": 100}, {"configurable": {"thread_id": "3"}, "recursion_limit": 4})
record("stream values", list(g.stream({"log": []}, {"configurable": {"thread_id": "4"}, "recursion_limit": 4}, stream_mode="values")))


@dataclass
class D:
    log: Annotated[list, operator.add] = field(default_factory=list)
    remaining_steps: RemainingSteps = 0


def dnode(state: D):
    return {"log": [state.remaining_steps]}


record("dataclass", StateGraph(D).add_node("n", dnode).add_edge(START, "n").compile().invoke(D(), {"recursion_limit": 7}))


# a custom create_react_agent state, as the how-to writes it
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langgraph.graph.message import add_messages  # noqa: E402
from langgraph.prebuilt import create_react_agent  # noqa: E402
from langgraph.prebuilt.chat_agent_executor import AgentState  # noqa: E402
from pydantic import BaseModel  # noqa: E402
from typing_extensions import TypedDict as XTypedDict  # noqa: E402


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


class Custom(XTypedDict):
    messages: Annotated[list, add_messages]
    remaining_steps: RemainingSteps
    user: str


class Extended(AgentState):
    user: str


for name, schema in (("custom", Custom), ("extended", Extended)):
    agent = create_react_agent(Fake(messages=iter([AIMessage("hi")])), [], state_schema=schema, checkpointer=InMemorySaver())
    out = agent.invoke({"messages": [("user", "q")], "user": "ann"}, {"configurable": {"thread_id": name}})
    record(name, [(type(m).__name__, m.content) for m in out["messages"]] + [sorted(out)])


class P(BaseModel):
    log: Annotated[list, operator.add] = []
    remaining_steps: RemainingSteps = 25
    last: IsLastStep = False


def pnode(state: P):
    return {"log": [(state.remaining_steps, state.last)]}


record("pydantic", StateGraph(P).add_node("n", pnode).add_edge(START, "n").compile().invoke({"log": []}, {"recursion_limit": 2}))
