"""Stream mode messages: the metadata dict of each chunk, key by key, for a node, a subgraph node and a Send task."""
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import Send

from observe import record

model = GenericFakeChatModel(messages=iter([AIMessage(f"r{i}", id=f"m{i}") for i in range(10)]))


def chat(state):
    return {"messages": [model.invoke(state["messages"])]}


def meta(m):
    out = {k: v for k, v in m.items() if k not in ("checkpoint_ns", "langgraph_checkpoint_ns")}
    out["ns parts"] = [p.split(":")[0] for p in m.get("langgraph_checkpoint_ns", "").split("|") if p]
    return out


g = StateGraph(MessagesState).add_node("chat", chat).add_edge(START, "chat").compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1", "user": "ann"}, "metadata": {"app": "x"}, "tags": ["t1"]}
record("node", [meta(m) for _, m in g.stream({"messages": [("user", "q")]}, cfg, stream_mode="messages")])
inner = StateGraph(MessagesState).add_node("inner", chat).add_edge(START, "inner").compile()
outer = StateGraph(MessagesState).add_node("agent", inner).add_edge(START, "agent").compile(checkpointer=InMemorySaver())
record("subgraph", [(ns and [p.split(":")[0] for p in ns], meta(m)) for ns, (_, m) in outer.stream({"messages": [("user", "q")]}, {"configurable": {"thread_id": "2"}}, stream_mode="messages", subgraphs=True)])
s = StateGraph(MessagesState).add_node("w", lambda a: {"messages": [model.invoke(a["q"])]})
s.add_conditional_edges(START, lambda st: [Send("w", {"q": "x"})], ["w"])
record("send", [meta(m) for _, m in s.compile().stream({"messages": []}, stream_mode="messages")])
h = StateGraph(MessagesState).add_node("hand", lambda s: {"messages": [AIMessage("hand", id="h1")]}).add_edge(START, "hand").compile()
record("returned message", [meta(m) for _, m in h.stream({"messages": []}, {"configurable": {"thread_id": "h", "user": "ann"}, "tags": ["tt"]}, stream_mode="messages")])
