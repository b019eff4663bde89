"""A LangChain 1.x agent program for tests/engine/test_langchain_agents.py, run in a fresh interpreter.

It imports ``langgraph`` as any LangChain program does; the test runs it with
the import swap installed (``engine.swap``), so LangChain's ``create_agent``
and its middleware run on the engine. ``argv[1]`` names the saver: ``memory``,
or the path of an SQLite file. It prints one JSON object of what it saw.
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import tool
from langgraph.types import Command


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    return f"sent to {to}: {body}"


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def calls(mid: str, name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage("", id=mid, tool_calls=[{"name": name, "args": args, "id": f"{mid}-c"}])


def brief(messages: list[BaseMessage]) -> list[list[Any]]:
    return [[m.type, m.content, [(c["name"], c["args"]) for c in getattr(m, "tool_calls", [])]] for m in messages]


def saver(stack: ExitStack, where: str) -> Any:
    if where == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        return InMemorySaver()
    from langgraph.checkpoint.sqlite import SqliteSaver

    return stack.enter_context(SqliteSaver.from_conn_string(where))


def main(where: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    with ExitStack() as stack:
        model = Fake(messages=iter([calls("a1", "add", {"a": 2, "b": 3}), AIMessage("5", id="a2")]))
        agent = create_agent(model, [add], system_prompt="be brief", checkpointer=saver(stack, where))
        config = {"configurable": {"thread_id": "turn"}}
        out = agent.invoke({"messages": [{"role": "user", "content": "2+3?", "id": "h1"}]}, config)
        seen["turn"] = brief(out["messages"])
        seen["turn history"] = [(s.metadata["source"], s.metadata["step"], list(s.next)) for s in agent.get_state_history(config)]

        model = Fake(messages=iter([calls("b1", "send_email", {"to": "ann", "body": "hi"}), AIMessage("sent", id="b2")]))
        hitl = HumanInTheLoopMiddleware(interrupt_on={"send_email": True})
        agent = create_agent(model, [send_email], middleware=[hitl], checkpointer=saver(stack, where))
        config = {"configurable": {"thread_id": "hitl"}}
        out = agent.invoke({"messages": [{"role": "user", "content": "mail ann", "id": "h1"}]}, config)
        (asked,) = out["__interrupt__"]
        seen["asked"] = asked.value
        waiting = agent.get_state(config)
        seen["waiting next"] = list(waiting.next)
        seen["waiting interrupts"] = [i.value for i in waiting.interrupts]
        edit = {"type": "edit", "edited_action": {"name": "send_email", "args": {"to": "ann", "body": "hello"}}}
        out = agent.invoke(Command(resume={"decisions": [edit]}), config)
        seen["resumed"] = brief(out["messages"])
        seen["resumed next"] = list(agent.get_state(config).next)
        seen["hitl history"] = [(s.metadata["source"], s.metadata["step"], list(s.next)) for s in agent.get_state_history(config)]
    return seen


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
