"""LangGraph's deprecated shallow PostgreSQL savers (ShallowPostgresSaver, AsyncShallowPostgresSaver):
a thread keeps only its newest version, with its pending writes: two turns, an interrupt and its
resume, a subgraph's namespace; the state, the history and list() after each (a database per side)."""

import asyncio
import os
import warnings
from typing import TypedDict

import psycopg
from langgraph.checkpoint.postgres import ShallowPostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncShallowPostgresSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import Command, interrupt
from langchain_core.messages import AIMessage

from observe import record

warnings.simplefilter("ignore", DeprecationWarning)
impl = os.environ.get("SBS_IMPL", "x")
DB = "sbs_shallow_" + impl
with psycopg.connect("postgresql://root@127.0.0.1:5432/test", autocommit=True) as c:
    c.execute(f"DROP DATABASE IF EXISTS {DB}")
    c.execute(f"CREATE DATABASE {DB}")
URI = f"postgresql://root@127.0.0.1:5432/{DB}"


class Sub(TypedDict):
    n: int


sub = StateGraph(Sub)
sub.add_node("inc", lambda s: {"n": s["n"] + 1})
sub.add_edge(START, "inc")


class S(MessagesState):
    n: int


def bot(s: S) -> dict:
    answer = interrupt("ok?") if len(s["messages"]) > 2 else "no question"
    return {"messages": [AIMessage(f"reply {len(s['messages'])} {answer}")]}


g = StateGraph(S)
g.add_node("bot", bot)
g.add_node("sub", sub.compile())
g.add_edge(START, "bot")
g.add_edge("bot", "sub")


def look(key, app, cfg, saver):
    state = app.get_state(cfg)
    record(key + " state", [state.values, state.next, [t.interrupts for t in state.tasks], state.metadata["step"]])
    record(key + " history", [(h.metadata["step"], h.next) for h in app.get_state_history(cfg)])
    record(key + " list", sorted((t.config["configurable"]["checkpoint_ns"].split(":")[0], t.metadata["step"]) for t in saver.list({"configurable": {"thread_id": cfg["configurable"]["thread_id"]}})))


with ShallowPostgresSaver.from_conn_string(URI) as saver:
    saver.setup()
    app = g.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "1"}}
    app.invoke({"messages": [("user", "hi")], "n": 0}, cfg)
    look("turn 1", app, cfg, saver)
    app.invoke({"messages": [("user", "again")], "n": 0}, cfg)
    look("turn 2 (interrupted)", app, cfg, saver)
    app.invoke(Command(resume="yes"), cfg)
    look("resumed", app, cfg, saver)


async def main():
    async with AsyncShallowPostgresSaver.from_conn_string(URI) as saver:
        await saver.setup()
        app = g.compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": "2"}}
        await app.ainvoke({"messages": [("user", "hi")], "n": 5}, cfg)
        state = await app.aget_state(cfg)
        record("async state", [state.values, state.metadata["step"]])
        record("async history", [h.metadata["step"] async for h in app.aget_state_history(cfg)])


asyncio.run(main())
