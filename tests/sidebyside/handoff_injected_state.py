"""Multi-agent handoffs through tools (the LangGraph how-to): a tool returns Command(goto=, graph=Command.PARENT) inside create_react_agent."""
from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, create_react_agent
from langgraph.types import Command

from observe import history, record


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def make_handoff(agent_name):
    @tool(f"transfer_to_{agent_name}")
    def handoff(state: Annotated[MessagesState, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]):
        """Hand off to another agent."""
        msg = ToolMessage(f"Transferred to {agent_name}", name=f"transfer_to_{agent_name}", tool_call_id=tool_call_id, id=f"tm-{agent_name}")
        return Command(goto=agent_name, graph=Command.PARENT, update={"messages": state["messages"] + [msg]})
    return handoff


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


alice_model = Fake(messages=iter([
    AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}], id="a1"),
    AIMessage("", tool_calls=[{"name": "transfer_to_bob", "args": {}, "id": "c2"}], id="a2"),
]))
bob_model = Fake(messages=iter([AIMessage("bob answers 3", id="b1")]))
alice = create_react_agent(alice_model, [add, make_handoff("bob")], name="alice")
bob = create_react_agent(bob_model, [make_handoff("alice")], name="bob")
swarm = StateGraph(MessagesState).add_node(alice, destinations=("bob",)).add_node(bob, destinations=("alice",)).add_edge(START, "alice")
app = swarm.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
out = app.invoke({"messages": [("user", "what is 1+2")]}, cfg)
record("messages", [(type(m).__name__, m.content, getattr(m, "name", None)) for m in out["messages"]])
history(app, cfg)
record("graph", sorted((e.source, e.target) for e in app.get_graph().edges))
