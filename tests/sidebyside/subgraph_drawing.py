"""Issue 17 item 8: get_graph(xray=) draws the subgraphs' nodes, as LangGraph 1.2 draws them.

A supervisor with two agent subgraphs (Commands without annotations, so
LangGraph's walk finds few edges; with annotated Commands; and as
examples/supervisor draws it: the supervisor's Command annotated, the
researcher's handoff to the writer given as its ``destinations``), drawn with xray False, True, 1 and 2 on a graph three deep: node ids
``parent:child``, the subgraph's START/END trimmed, the parent's edges moved to
its first and last nodes, Mermaid ``subgraph`` blocks. A subgraph compiled with
checkpointer=False is not expanded; one with two entry nodes neither. Also the
walk itself: node metadata (defer, breakpoints, a node's own) in the Mermaid
labels, a join, long edge labels, a loop with no END.
"""

import operator
from typing import Annotated, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command

from observe import record


class State(TypedDict):
    messages: Annotated[list, add_messages]


def noop(state):
    return {}


def show(title, graph, xray=False):
    drawn = graph.get_graph(xray=xray)
    record(f"{title} nodes", [(k, n.name, n.metadata) for k, n in drawn.nodes.items()])
    record(f"{title} edges", [(e.source, e.target, e.conditional, e.data) for e in drawn.edges])
    record(f"{title} mermaid", drawn.draw_mermaid())


def agent(first, second, annotated_handoff=False):
    b = StateGraph(State)
    b.add_node(first, noop)
    if annotated_handoff:
        def handoff(state) -> Command[Literal["__end__"]]:
            return Command(graph=Command.PARENT, goto="writer")
        b.add_node(second, handoff)
    else:
        b.add_node(second, noop)
    b.add_edge(START, first)
    b.add_edge(first, second)
    return b


def supervisor_graph(kind):
    def supervisor(state) -> Command:
        return Command(goto="researcher")

    def routed(state) -> Command[Literal["researcher", "writer"]]:
        return Command(goto="researcher")

    def to_researcher(state) -> Command[Literal["researcher"]]:
        return Command(goto="researcher")

    b = StateGraph(State)
    b.add_node("supervisor", {"plain": supervisor, "annotated": routed, "example": to_researcher}[kind])
    researcher = agent("research", "handoff", kind == "annotated").compile()
    if kind == "example":  # as examples/supervisor: the handoff drawn as the researcher's destination
        b.add_node("researcher", researcher, destinations=("writer",))
    else:
        b.add_node("researcher", researcher)
    b.add_node("writer", agent("draft", "approve").compile())
    b.add_edge(START, "supervisor")
    b.add_edge("writer", END)
    return b.compile()


for kind in ("plain", "annotated", "example"):
    g = supervisor_graph(kind)
    for xray in (False, True, 1):
        show(f"supervisor {kind} xray={xray}", g, xray)

# three deep: xray=1 expands one level, 2 and True all
leaf = agent("l1", "l2").compile()
mid = StateGraph(State)
mid.add_node("m1", noop)
mid.add_node("leaf", leaf)
mid.add_edge(START, "m1")
mid.add_edge("m1", "leaf")
mid.add_edge("leaf", END)
top = StateGraph(State)
top.add_node("mid", mid.compile())
top.add_node("after", noop)
top.add_edge(START, "mid")
top.add_edge("mid", "after")
top.add_edge("after", END)
deep = top.compile()
for xray in (1, 2, True):
    show(f"deep xray={xray}", deep, xray)

# not expanded: checkpointer=False, and a subgraph with two entry nodes
two = StateGraph(State)
two.add_node("x", noop)
two.add_node("y", noop)
two.add_edge(START, "x")
two.add_edge(START, "y")
p = StateGraph(State)
p.add_node("off", agent("o1", "o2").compile(checkpointer=False))
p.add_node("two", two.compile())
p.add_edge(START, "off")
p.add_edge("off", "two")
show("not expanded", p.compile(), True)


# the walk: metadata, defer, breakpoints, a join, long labels, a loop
class S(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def route(state) -> Literal["b", "__end__"]:
    return "b"


w = StateGraph(S)
w.add_node("a", noop, metadata={"owner": "team [a]", "tags": ["x", "y"], "skip": {"n": 1}})
w.add_node("b", noop)
w.add_node("c", noop)
w.add_node("d", noop, defer=True)
w.add_edge(START, "a")
w.add_edge(START, "c")
w.add_conditional_edges("a", route)
w.add_edge(["b", "c"], "d")
w.add_conditional_edges("d", lambda s: "e", {"a label of more than nine words so that it wraps somewhere": "e", "stop": END})
w.add_node("e", noop)
w.add_edge("e", "a")
show("walk", w.compile(interrupt_before=["b"], interrupt_after=["b", "c"]))
loop = StateGraph(S)
loop.add_node("a", noop)
loop.add_node("b", noop)
loop.add_edge(START, "a")
loop.add_edge("a", "b")
loop.add_edge("b", "a")
show("pure loop", loop.compile())
