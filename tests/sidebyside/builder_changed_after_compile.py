"""A builder changed after compile(): the compiled graph keeps the shape it was compiled with.

Edges, routes and nodes added to the builder afterwards do not route in the
compiled graph, and each addition logs LangGraph 1.2's warning. A graph
compiled again from the builder has them.
"""

import logging
from typing import TypedDict

from langgraph.graph import END, START, StateGraph

from observe import record


class Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


class State(TypedDict):
    x: int


builder = StateGraph(State)
builder.add_node("a", lambda s: {"x": s["x"] + 1})
builder.add_node("b", lambda s: {"x": s["x"] * 10})
builder.add_edge(START, "a")
def stop(state: State) -> str:
    return END


def to_b(state: State) -> str:
    return "b"


builder.add_conditional_edges("a", stop, [END])
app = builder.compile()

warnings = Warnings()
logging.getLogger().addHandler(warnings)
builder.add_conditional_edges("a", to_b)
builder.add_edge("a", "b")
builder.add_node("c", lambda s: s)
logging.getLogger().removeHandler(warnings)

record("warnings", warnings.seen)
record("compiled before", app.invoke({"x": 1}))
record("compiled again", builder.compile().invoke({"x": 1}))
