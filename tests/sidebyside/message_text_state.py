"""A state value taken from a message's ``.text`` (LangChain's TextAccessor, a str subclass): stored, read back as a str."""
from typing import TypedDict

from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from observe import record


class State(TypedDict):
    result: str
    parts: list


def answer(state: State) -> dict:
    text = AIMessage(content="the answer is 42").text
    return {"result": text, "parts": [text, {"t": text}]}


builder = StateGraph(State)
builder.add_node("answer", answer)
builder.add_edge(START, "answer")
graph = builder.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "t"}}
out = graph.invoke({"result": "", "parts": []}, config)
record("out", out)
values = graph.get_state(config).values
record("stored", values)
record("stored type", type(values["result"]).__name__)
record("history", [s.values for s in graph.get_state_history(config)])
