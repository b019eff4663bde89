"""Issue 18 item 8: @task called inside a StateGraph node (sync and async), an interrupt in it,
resumed without running the finished task again."""

import asyncio
import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

from observe import call, history, record

ran: list = []


@task
def double(x):
    ran.append(("double", x))
    return x * 2


@task
def ask(x):
    return interrupt(x)


class S(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def node(s: S):
    y = double(s["x"]).result()
    return {"x": y, "log": [ask(y).result()]}


async def anode(s: S):
    y = await double(s["x"])
    return {"x": y, "log": [await ask(y)]}


for name, fn in (("sync", node), ("async", anode)):
    ran.clear()
    g = StateGraph(S).add_node("node", fn).add_edge(START, "node").compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": name}}
    if name == "sync":
        call(f"{name} first", g.invoke, {"x": 2, "log": []}, cfg)
        call(f"{name} resume", lambda: list(g.stream(Command(resume="ok"), cfg, stream_mode="updates")))
    else:
        call(f"{name} first", lambda: asyncio.run(g.ainvoke({"x": 2, "log": []}, cfg)))

        async def resume():
            return [c async for c in g.astream(Command(resume="ok"), cfg, stream_mode="updates")]

        call(f"{name} resume", lambda: asyncio.run(resume()))
    record(f"{name} ran", ran)
    history(g, cfg)
