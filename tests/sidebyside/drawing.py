"""Drawing: Command[Literal] return annotations and Literal routers give edges; draw_mermaid."""

from typing import Literal, TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import Command
from observe import record
class S(TypedDict):
    x: int
def a(s) -> Command[Literal["b", "c"]]:
    return Command(goto="b")
def b(s): return {}
def c(s) -> Command[Literal["__end__"]]: return Command(goto=END)
def route(s) -> Literal["a", "__end__"]: return "a"
g = StateGraph(S); g.add_node("a", a); g.add_node("b", b); g.add_node("c", c); g.add_node("d", b, destinations=("b",))
g.add_conditional_edges(START, route); g.add_edge("b", END)
app = g.compile()
gg = app.get_graph()
record("nodes", list(gg.nodes)); record("edges", [(e.source, e.target, e.conditional, e.data) for e in gg.edges])
record("mermaid", gg.draw_mermaid())
record("run", app.invoke({"x": 1}))
