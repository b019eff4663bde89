"""A saver passed in the call's config (configurable["__pregel_checkpointer"], CONFIG_KEY_CHECKPOINTER: how
LangGraph's server gives a graph compiled without one its saver): runs, an interrupt and its resume, state,
history and update_state read and write it; it wins over a compiled saver; checkpointer=False ignores it."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.constants import CONFIG_KEY_CHECKPOINTER
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import call, history, record


class S(TypedDict):
    n: int
    answer: str


def ask(s: S) -> dict:
    return {"n": s["n"] + 1, "answer": interrupt("go?")}


g = StateGraph(S)
g.add_node("ask", ask)
g.add_edge(START, "ask")

given = InMemorySaver()
config = {"configurable": {"thread_id": "t", CONFIG_KEY_CHECKPOINTER: given}}
plain = g.compile()
record("first", plain.invoke({"n": 1, "answer": ""}, config))
record("state", [plain.get_state(config).values, plain.get_state(config).next])
record("resumed", plain.invoke(Command(resume="yes"), config))
record("history", history(plain, config))
plain.update_state(config, {"n": 100})
record("after update", plain.get_state(config).values)
record("in the saver", given.get_tuple({"configurable": {"thread_id": "t"}}).checkpoint["channel_values"])
call("no saver", plain.get_state, {"configurable": {"thread_id": "t"}})

own = InMemorySaver()
compiled = g.compile(checkpointer=own)
compiled.invoke({"n": 5, "answer": ""}, {"configurable": {"thread_id": "u", CONFIG_KEY_CHECKPOINTER: given}})
record("config wins", [given.get_tuple({"configurable": {"thread_id": "u"}}) is not None, own.get_tuple({"configurable": {"thread_id": "u"}}) is None])
off = g.compile(checkpointer=False)
call("False ignores it", off.invoke, {"n": 1, "answer": ""}, {"configurable": {"thread_id": "v", CONFIG_KEY_CHECKPOINTER: given}})
record("False stored nothing", given.get_tuple({"configurable": {"thread_id": "v"}}))
