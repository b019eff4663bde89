"""langgraph-swarm's create_swarm of two create_agent agents handing off with create_handoff_tool: the active
agent kept across turns (add_active_agent_router), a handoff there and back, the state and the history."""

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph_swarm import create_handoff_tool, create_swarm

from observe import history, record


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Fake(GenericFakeChatModel):
    seen: list = []

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([(type(m).__name__, m.name, m.content) for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def call(mid, name, args, cid):
    return AIMessage("", id=mid, tool_calls=[{"name": name, "args": args, "id": cid}])


alice_model = Fake(
    messages=iter(
        [
            call("a1", "transfer_to_bob", {}, "t1"),
            AIMessage("hi again, alice here", id="a2"),
        ]
    ),
    seen=[],
)
bob_model = Fake(
    messages=iter(
        [
            call("b1", "add", {"a": 1, "b": 1}, "x1"),
            AIMessage("bob: 1 + 1 = 2", id="b2"),
            call("b3", "transfer_to_alice", {}, "t2"),
        ]
    ),
    seen=[],
)
alice = create_agent(alice_model, [create_handoff_tool(agent_name="bob", description="bob adds")], name="alice")
bob = create_agent(bob_model, [add, create_handoff_tool(agent_name="alice")], name="bob")
app = create_swarm([alice, bob], default_active_agent="alice").compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
record("graph", sorted((e.source, e.target, e.conditional) for e in app.get_graph().edges))
record("turn 1", app.invoke({"messages": [{"role": "user", "content": "add 1 and 1", "id": "u1"}]}, config))
record("active after 1", app.get_state(config).values.get("active_agent"))
record("turn 2", app.invoke({"messages": [{"role": "user", "content": "back to alice", "id": "u2"}]}, config))
record("models saw", [alice_model.seen, bob_model.seen])
record("state", app.get_state(config))
history(app, config)
record("subgraph state", app.get_state(config, subgraphs=True).tasks)
