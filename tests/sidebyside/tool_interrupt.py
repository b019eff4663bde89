"""interrupt() inside a tool run by create_react_agent's ToolNode: the question, then the resume."""

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent
from langgraph.types import Command, interrupt

from observe import call, record


@tool
def ask(question: str) -> str:
    """Asks the user."""
    return f"user said {interrupt(question)}"


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


m = Fake(messages=iter([AIMessage("", tool_calls=[{"name": "ask", "args": {"question": "really?"}, "id": "c1"}]),
                        AIMessage("ok then")]))
agent = create_react_agent(m, [ask], checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "t"}}
call("first", agent.invoke, {"messages": [("user", "go")]}, config)
record("waiting", agent.get_state(config))
call("resumed", agent.invoke, Command(resume="yes"), config)
