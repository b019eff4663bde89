"""Issue 14 item 11: the recursion limit of a call that continues a thread.

With S the step of the version a call starts from, a superstep at step s runs
only while s < S + limit + 2: new input gets `limit` node steps, invoke(None)
continuing gets limit + 2.
"""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from observe import call, history, record


class State(TypedDict):
    n: int


def build(**kw):
    builder = StateGraph(State)
    builder.add_node("inc", lambda s: {"n": s["n"] + 1})
    builder.add_conditional_edges("inc", lambda s: "inc" if s["n"] < 100 else "__end__")
    builder.add_edge(START, "inc")
    return builder.compile(checkpointer=InMemorySaver(), **kw)


graph = build()
config = {"configurable": {"thread_id": "loop"}, "recursion_limit": 3}
call("new input", graph.invoke, {"n": 0}, config)
record("after input", graph.get_state(config).values)
call("continue", graph.invoke, None, config)
record("after continue", graph.get_state(config).values)
call("input again", graph.invoke, {"n": 0}, config)
record("after input again", graph.get_state(config).values)

stopped = build(interrupt_before=["inc"])
config = {"configurable": {"thread_id": "bp"}, "recursion_limit": 2}
call("to the breakpoint", stopped.invoke, {"n": 0}, config)
for i in range(3):
    call(f"past breakpoint {i}", stopped.invoke, None, config)
history(stopped, config)
