"""deepagents with interrupt_on (the write_file tool asks first: approve, then a reject) and a StoreBackend
(files kept in the graph's store under a namespace): the interrupts, the resumes, the store's items. Needs `pip install deepagents`."""

from deepagents import create_deep_agent
from deepagents.backends import StoreBackend
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command

from observe import record


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def call(mid, name, args):
    return AIMessage("", id=mid, tool_calls=[{"name": name, "args": args, "id": f"{mid}-0"}])


replies = iter([
    call("m1", "write_file", {"file_path": "/a.md", "content": "alpha\n"}),
    call("m2", "read_file", {"file_path": "/a.md"}),
    AIMessage("wrote a", id="m3"),
    call("m4", "write_file", {"file_path": "/b.md", "content": "beta\n"}),
    AIMessage("not written", id="m5"),
])
store = InMemoryStore()
agent = create_deep_agent(
    model=Fake(messages=replies),
    backend=StoreBackend(namespace=lambda rt: ("files", "u1"), store=store),
    interrupt_on={"write_file": True},
    checkpointer=InMemorySaver(),
    store=store,
)
config = {"configurable": {"thread_id": "t"}, "recursion_limit": 50}


def seen(out):
    return {
        "messages": [(type(m).__name__, str(m.content)[:50]) for m in out.get("messages", [])],
        "interrupts": [i.value for i in out.get("__interrupt__", [])],
    }


out = agent.invoke({"messages": [{"role": "user", "content": "write a"}]}, config)
record("asked", seen(out))
out = agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
record("approved", seen(out))
record("store after a", sorted((item.namespace, item.key) for item in store.search(("files",))))
out = agent.invoke({"messages": [{"role": "user", "content": "write b"}]}, config)
record("asked again", seen(out))
out = agent.invoke(Command(resume={"decisions": [{"type": "reject", "message": "no"}]}), config)
record("rejected", seen(out))
record("store after b", sorted((item.namespace, item.key) for item in store.search(("files",))))
state = agent.get_state(config)
record("state", {"next": list(state.next), "n": len(state.values["messages"])})
