"""Issue 29: a plain class (not a TypedDict, dataclass or Pydantic model) as the state schema:
its annotations are the keys, reducers included; states are dicts."""

from operator import add
from typing import Annotated

from langgraph.graph import START, StateGraph

from observe import record


class State:
    info: Annotated[list[str], add]
    n: int


def node(state: dict) -> dict:
    return {"info": [f"n={state.get('n')}"], "n": state.get("n", 0) + 1}


builder = StateGraph(State)
builder.add_node("node", node)
builder.add_edge(START, "node")
graph = builder.compile()
record("invoke", graph.invoke({"info": ["start"], "n": 1}))
record("updates", list(graph.stream({"info": []}, stream_mode="updates")))
