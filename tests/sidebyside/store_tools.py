"""Long-term memory in tools, as the memory how-tos do it: InjectedStore and get_store() in tools
run by ToolNode, a store put by one thread read by another, config-scoped namespaces."""

from typing import Annotated

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_store
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedStore, ToolNode
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from observe import record


@tool
def remember(fact: str, config: RunnableConfig, store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Remember a fact about the user."""
    user = config["configurable"]["user_id"]
    store.put(("memories", user), f"fact-{len(store.search(('memories', user)))}", {"fact": fact})
    return f"remembered {fact}"


@tool
def recall(config: RunnableConfig) -> str:
    """Recall what we know."""
    user = config["configurable"]["user_id"]
    return "; ".join(sorted(i.value["fact"] for i in get_store().search(("memories", user))))


def agent(state: MessagesState):
    text = state["messages"][-1].content
    if text.startswith("remember "):
        call = {"name": "remember", "args": {"fact": text[9:]}, "id": f"r{len(state['messages'])}"}
    else:
        call = {"name": "recall", "args": {}, "id": f"c{len(state['messages'])}"}
    return {"messages": [AIMessage("", tool_calls=[call])]}


store = InMemoryStore()
g = StateGraph(MessagesState)
g.add_node("agent", agent)
g.add_node("tools", ToolNode([remember, recall]))
g.add_edge(START, "agent")
g.add_edge("agent", "tools")
app = g.compile(checkpointer=InMemorySaver(), store=store)


def say(text, thread, user):
    out = app.invoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": thread, "user_id": user}})
    return out["messages"][-1].content


record("r1", say("remember likes tea", "t1", "ada"))
record("r2", say("remember hates rain", "t1", "ada"))
record("other thread", say("what do you know?", "t2", "ada"))
record("other user", say("what do you know?", "t3", "bob"))
record("store", sorted((i.namespace, i.key, i.value["fact"]) for i in store.search(("memories",))))
record("namespaces", store.list_namespaces(prefix=("memories",)))
