"""create_agent(response_format=...) with a checkpointer whose serializer was told nothing: a Pydantic
model (the automatic strategy), a dataclass through ToolStrategy and a union of two models. LangGraph's
default serializer stores the response's class and warns when it reads it back; the engine allows the
classes the agent's response format names (its state names the response by a type variable), as it
allows those of a state schema. Values and histories over two turns on one thread."""

from dataclasses import dataclass
from typing import Union

from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel

from observe import history, record


class Weather(BaseModel):
    city: str
    degrees: int


@dataclass
class Booking:
    city: str
    nights: int


class Refusal(BaseModel):
    reason: str


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def answer(mid, name, args):
    return AIMessage("", id=mid, tool_calls=[{"name": name, "args": args, "id": f"{mid}-0"}])


cases = [
    ("model", Weather, [answer("a1", "Weather", {"city": "Oslo", "degrees": 3}), answer("a2", "Weather", {"city": "Rome", "degrees": 19})]),
    ("dataclass", ToolStrategy(Booking), [answer("b1", "Booking", {"city": "Oslo", "nights": 2}), answer("b2", "Booking", {"city": "Rome", "nights": 1})]),
    ("union", ToolStrategy(Union[Weather, Refusal]), [answer("c1", "Refusal", {"reason": "no"}), answer("c2", "Weather", {"city": "Kyiv", "degrees": 5})]),
]
for name, fmt, replies in cases:
    agent = create_agent(Fake(messages=iter(replies)), tools=[], response_format=fmt, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": name}}
    for turn in ("first", "second"):
        try:
            out = agent.invoke({"messages": [{"role": "user", "content": turn}]}, config)
            record(f"{name} {turn}", [type(out["structured_response"]).__name__, out["structured_response"]])
        except Exception as e:
            record(f"{name} {turn}", [type(e).__name__])
    state = agent.get_state(config)
    record(f"{name} state", [type(state.values.get("structured_response")).__name__, state.values.get("structured_response")])
    history(agent, config)
