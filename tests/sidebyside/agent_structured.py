"""create_agent with structured output: response_format as a Pydantic model (its automatic strategy) and as
ToolStrategy (a TypedDict, a refused answer retried with the error sent back, a tool turn first), the
structured_response in the state and the history."""

from typing_extensions import TypedDict

from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from pydantic import BaseModel, Field

from observe import call, history, record

# The structured response is stored in the state, whose schema does not name its class (create_agent's
# state has a type variable there): the saver is told about it, as LangGraph's strict msgpack mode needs
# (its default stores any class and warns when it reads one back); the engine always needs it.
def saver():
    return InMemorySaver(serde=JsonPlusSerializer(allowed_msgpack_modules=[(__name__, "Weather")]))


class Weather(BaseModel):
    """The weather in a city."""

    city: str
    degrees: int = Field(ge=-60, le=60)


class Contact(TypedDict):
    """Someone to call."""

    name: str
    phone: str


@tool
def lookup(city: str) -> str:
    """Look the weather up."""
    return f"{city}: 21 degrees"


class Fake(GenericFakeChatModel):
    bound: list = []

    def bind_tools(self, tools, **kwargs):
        self.bound.append(sorted(getattr(t, "name", None) or t.get("function", {}).get("name") or repr(t) for t in tools))
        return self


def answer(mid, name, args, cid):
    return AIMessage("", id=mid, tool_calls=[{"name": name, "args": args, "id": cid}])


m = Fake(messages=iter([answer("a1", "Weather", {"city": "Oslo", "degrees": 3}, "w1")]), bound=[])
agent = create_agent(m, [], response_format=Weather, checkpointer=saver())
config = {"configurable": {"thread_id": "auto"}}
record("auto", agent.invoke({"messages": [{"role": "user", "content": "weather?", "id": "h1"}]}, config))
record("auto bound", m.bound)
history(agent, config, "auto history")

m = Fake(
    messages=iter(
        [
            answer("a1", "lookup", {"city": "Rome"}, "l1"),
            answer("a2", "Weather", {"city": "Rome", "degrees": 99}, "w1"),
            answer("a3", "Weather", {"city": "Rome", "degrees": 21}, "w2"),
        ]
    ),
    bound=[],
)
agent = create_agent(m, [lookup], response_format=ToolStrategy(Weather), checkpointer=saver())
config = {"configurable": {"thread_id": "retry"}}
record("retried", agent.invoke({"messages": [{"role": "user", "content": "weather in rome", "id": "h1"}]}, config))
record("retried bound", m.bound)
history(agent, config, "retried history")

m = Fake(messages=iter([answer("a1", "Contact", {"name": "Ann", "phone": "123"}, "c1")]), bound=[])
agent = create_agent(m, [], response_format=ToolStrategy(Contact, tool_message_content="got it"))
record("typed dict", agent.invoke({"messages": [("user", "who?")]}))

m = Fake(messages=iter([answer("a1", "Weather", {"city": "Oslo", "degrees": 99}, "w1")]), bound=[])
agent = create_agent(m, [], response_format=ToolStrategy(Weather, handle_errors=False))
call("no retry", agent.invoke, {"messages": [("user", "weather?")]})
