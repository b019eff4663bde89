"""A LangChain 1.x agent as its author writes it: create_agent with a tool behind HumanInTheLoopMiddleware,
on a scripted chat model (it asks to send a mail, then says it did). No checkpointer: the server's."""

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    return f"sent to {to}: {body}"


class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def replies():
    while True:
        yield AIMessage("", tool_calls=[{"name": "send_email", "args": {"to": "ann", "body": "hi"}, "id": "c1"}])
        yield AIMessage("mail sent")


graph = create_agent(Scripted(messages=replies()), [send_email], middleware=[HumanInTheLoopMiddleware(interrupt_on={"send_email": True})])
