"""A LangChain 1.x agent with a structured response, for tests/engine/test_agent_structured_response.py.

Run in a fresh interpreter with the import swap installed (``engine.swap``).
``argv[1]``: the SQLite file; ``argv[2]``: ``write`` (a turn of an agent
whose ``response_format`` is a Pydantic model and of one whose format is a
``ToolStrategy`` of a dataclass, each on its own thread) or ``read`` (the
agents made again, as a restarted program makes them, and their threads'
state read back). The saver's serializer is told nothing. Prints one JSON
object of what it saw.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from pydantic import BaseModel


class Weather(BaseModel):
    city: str
    degrees: int


@dataclass
class Booking:
    city: str
    nights: int


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def _answer(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage("", id=f"m-{name}", tool_calls=[{"name": name, "args": args, "id": f"c-{name}"}])


def main() -> None:
    path, phase = sys.argv[1], sys.argv[2]
    seen: dict[str, Any] = {}
    with SqliteSaver.from_conn_string(path) as saver:
        agents = {
            "weather": (Weather, _answer("Weather", {"city": "Oslo", "degrees": 3})),
            "booking": (ToolStrategy(Booking), _answer("Booking", {"city": "Rome", "nights": 2})),
        }
        for name, (fmt, reply) in agents.items():
            agent = create_agent(Fake(messages=iter([reply])), tools=[], response_format=fmt, checkpointer=saver)
            config = {"configurable": {"thread_id": name}}
            if phase == "write":
                out = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, config)["structured_response"]
            else:
                out = agent.get_state(config).values["structured_response"]
            seen[name] = [type(out).__name__, out.model_dump() if isinstance(out, BaseModel) else vars(out)]
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
