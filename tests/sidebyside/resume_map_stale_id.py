"""A resume map naming an interrupt that is no longer pending: the node asks again.

Two questions in a row; the first is answered, then a resume names the first
question's id again (a late second answer). LangGraph 1.2 answers nothing
with it: the waiting node runs again and asks its question again, no version
is written. A stale id beside the pending one is ignored; a dict whose keys
are not interrupt ids is one plain answer.
"""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from observe import record


class State(TypedDict, total=False):
    log: list


def ask(state: State) -> dict:
    return {"log": state.get("log", []) + [interrupt("first?")]}


def ask2(state: State) -> dict:
    return {"log": state["log"] + [interrupt("second?")]}


def ask3(state: State) -> dict:
    return {"log": state["log"] + [interrupt("third?")]}


builder = StateGraph(State)
builder.add_node("ask", ask)
builder.add_node("ask2", ask2)
builder.add_node("ask3", ask3)
builder.add_edge(START, "ask")
builder.add_edge("ask", "ask2")
builder.add_edge("ask2", "ask3")
builder.add_edge("ask3", END)
graph = builder.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "t"}}
first = graph.invoke({"log": []}, config)["__interrupt__"][0]
second = graph.invoke(Command(resume={first.id: "A"}), config)["__interrupt__"][0]
record("stale id alone", graph.invoke(Command(resume={first.id: "late"}), config))
record("still waiting", graph.get_state(config))
record("stale id beside the pending one", graph.invoke(Command(resume={first.id: "X", second.id: "B"}), config))
record("a dict that is one answer", graph.invoke(Command(resume={"city": "Oslo"}), config))
# Which versions were written (a stale resume writes none).
record("versions", [(s.metadata["source"], s.metadata["step"], s.next) for s in graph.get_state_history(config)])
