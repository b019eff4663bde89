"""Multi-agent handoffs as the how-to builds them: two create_react_agent agents as nodes of a
parent graph, each with a handoff tool returning Command(goto=..., graph=Command.PARENT)."""

from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, create_react_agent
from langgraph.types import Command

from observe import history, record


def make_handoff(agent_name: str):
    @tool(f"transfer_to_{agent_name}")
    def handoff(state: Annotated[dict, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Hand the conversation to another agent."""
        msg = ToolMessage(f"Transferred to {agent_name}", name=f"transfer_to_{agent_name}", tool_call_id=tool_call_id)
        return Command(goto=agent_name, graph=Command.PARENT, update={"messages": state["messages"] + [msg]})

    return handoff


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def calls(name, args, cid):
    return AIMessage("calling", tool_calls=[{"name": name, "args": args, "id": cid}])


alice = create_react_agent(
    Fake(messages=iter([calls("add", {"a": 1, "b": 2}, "a1"), calls("transfer_to_bob", {}, "a2")])),
    [add, make_handoff("bob")], name="alice",
)
bob = create_react_agent(Fake(messages=iter([AIMessage("bob says 3")])), [make_handoff("alice")], name="bob")

g = StateGraph(MessagesState)
g.add_node("alice", alice, destinations=("bob",))
g.add_node("bob", bob, destinations=("alice",))
g.add_edge(START, "alice")
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "h"}}
updates = list(app.stream({"messages": [HumanMessage("add 1 and 2, then ask bob")]}, cfg, stream_mode="updates", subgraphs=True))
record("updates", [(ns[0].split(":")[0] if ns else "", sorted(chunk)) for ns, chunk in updates])
state = app.get_state(cfg)
record("messages", [(type(m).__name__, m.content, getattr(m, "name", None)) for m in state.values["messages"]])
record("next", state.next)
history(app, cfg)
record("graph", sorted((e.source, e.target) for e in app.get_graph().edges))
