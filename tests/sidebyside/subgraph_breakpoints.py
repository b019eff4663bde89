"""A subgraph's static breakpoint stops its parent; two subgraph runs in one task; interrupt(response_schema=)."""
import operator
from typing import Annotated, Any, TypedDict

from pydantic import BaseModel

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import is_invalid_resume
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import history, record


class S(TypedDict):
    log: Annotated[list, operator.add]


inner = StateGraph(S)
inner.add_node("first", lambda s: {"log": ["first"]})
inner.add_node("leaf", lambda s: {"log": ["leaf"]})
inner.add_edge(START, "first")
inner.add_edge("first", "leaf")
outer = StateGraph(S)
outer.add_node("child", inner.compile(interrupt_before=["leaf"]))
outer.add_node("side", lambda s: {"log": ["side"]})
outer.add_edge(START, "child")
outer.add_edge(START, "side")
app = outer.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
record("stopped", app.invoke({"log": []}, cfg))
record("state", app.get_state(cfg))
record("went on", app.invoke(None, cfg))
history(app, cfg)

sub = inner.compile()


def twice(state: S) -> dict:
    a = sub.invoke({"log": ["x"]})
    b = sub.invoke({"log": ["y"]})
    return {"log": a["log"] + b["log"]}


t = StateGraph(S)
t.add_node("twice", twice)
t.add_edge(START, "twice")
saver = InMemorySaver()
tg = t.compile(checkpointer=saver)
record("twice", tg.invoke({"log": []}, {"configurable": {"thread_id": "2"}}))
record("namespaces", sorted({len(c.config["configurable"]["checkpoint_ns"].split("|")) for c in saver.list({"configurable": {"thread_id": "2"}})}))


class Decision(BaseModel):
    approved: bool


class A(TypedDict):
    answer: Any


q = StateGraph(A)
q.add_node("ask", lambda s: {"answer": interrupt("approve?", response_schema=Decision)})
q.add_edge(START, "ask")
qg = q.compile(checkpointer=InMemorySaver())
c3 = {"configurable": {"thread_id": "3"}}
out = qg.invoke({"answer": None}, c3)
record("schema", out["__interrupt__"][0].response_schema)
try:
    qg.invoke(Command(resume={"approved": "nope"}), c3)
except Exception as e:  # noqa: BLE001
    record("refused", (type(e).__name__, is_invalid_resume(e)))
record("pending again", [i.value for i in qg.get_state(c3).interrupts])
record("answered", qg.invoke(Command(resume={"approved": True}), c3))
