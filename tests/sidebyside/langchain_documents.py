"""LangChain's documents and agent steps in state keys whose type does not name them (a RAG graph's untyped
`documents: list`): LangGraph stores them and reads them back; so does the engine."""

from typing import TypedDict
from langchain_core.documents import Document
from langchain_core.agents import AgentAction
from langgraph.graph import StateGraph, START
from langgraph.checkpoint.memory import InMemorySaver
from observe import call, record
class S(TypedDict, total=False):
    question: str
    context: list
    extra: object
def retrieve(s):
    return {"context": [Document(page_content="a doc", metadata={"src": "x"})], "extra": AgentAction("tool", {"a": 1}, "log")}
app = StateGraph(S).add_node("retrieve", retrieve).add_edge(START, "retrieve").compile(checkpointer=InMemorySaver())
record("out", call("invoke", app.invoke, {"question": "q"}, {"configurable": {"thread_id": "1"}}))
record("state", call("state", lambda: app.get_state({"configurable": {"thread_id": "1"}}).values))
