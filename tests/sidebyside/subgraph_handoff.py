"""Issue 17 item 6: Command(graph=Command.PARENT, goto=..., update=...) hands off to a node of the parent.

A supervisor with two agent subgraphs: agent "a" hands off to "b" from inside
its subgraph (with an update the parent's reducer applies), "b" answers and
returns to the supervisor, which ends. From the root graph itself the command
has no parent to go to.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from observe import call, history, record


class S(TypedDict):
    log: Annotated[list, operator.add]
    turn: int


def supervisor(state):
    if state.get("turn", 0) >= 1:
        return Command(goto=END)
    return Command(goto="agent_a", update={"turn": 1})


def work_a(state):
    return {"log": ["a worked"]}


def handoff_a(state):
    return Command(graph=Command.PARENT, goto="agent_b", update={"log": ["a hands off to b"]})


ab = StateGraph(S)
ab.add_node("work", work_a)
ab.add_node("handoff", handoff_a)
ab.add_edge(START, "work")
ab.add_edge("work", "handoff")

bb = StateGraph(S)
bb.add_node("answer", lambda s: {"log": ["b answered"]})
bb.add_edge(START, "answer")

pb = StateGraph(S)
pb.add_node("supervisor", supervisor)
pb.add_node("agent_a", ab.compile())
pb.add_node("agent_b", bb.compile())
pb.add_edge(START, "supervisor")
pb.add_edge("agent_b", "supervisor")
g = pb.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}
record("handoff", g.invoke({"log": ["hi"]}, cfg))
history(g, cfg)
cfg2 = {"configurable": {"thread_id": "s"}}
record("stream", [chunk for chunk in g.stream({"log": ["hi"]}, cfg2, stream_mode="updates")])

root = StateGraph(S)
root.add_node("n", lambda s: Command(graph=Command.PARENT, goto="n"))
root.add_edge(START, "n")
call("from the root", root.compile().invoke, {"log": []})
