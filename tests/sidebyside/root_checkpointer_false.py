"""A graph compiled with checkpointer=False (or True) run as a root graph (trustcall compiles its extractor so):
False keeps no state (invoke, stream with the checkpoints mode, get_state); True is refused at the root."""

import asyncio
from typing import TypedDict

from langgraph.graph import START, StateGraph

from observe import call, record


class S(TypedDict):
    n: int


def build(checkpointer):
    g = StateGraph(S)
    g.add_node("inc", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "inc")
    return g.compile(checkpointer=checkpointer)


off = build(False)
record("invoke", off.invoke({"n": 1}))
record("invoke with a thread", off.invoke({"n": 1}, {"configurable": {"thread_id": "t"}}))
record("stream", list(off.stream({"n": 1}, stream_mode=["values", "checkpoints", "updates"])))
record("ainvoke", asyncio.run(off.ainvoke({"n": 5})))
call("get_state", off.get_state, {"configurable": {"thread_id": "t"}})
on = build(True)
call("True: invoke", on.invoke, {"n": 1})
call("True: invoke with a thread", on.invoke, {"n": 1}, {"configurable": {"thread_id": "t"}})
