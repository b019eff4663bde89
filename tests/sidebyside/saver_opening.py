"""Persistence how-to: SqliteSaver, AsyncSqliteSaver, PostgresSaver and AsyncPostgresSaver opened LangGraph's way (from_conn_string, setup)."""
import asyncio
import operator
import os
import tempfile
import uuid
from typing import Annotated, TypedDict

import psycopg

from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import START, END, StateGraph

from observe import history, record


class S(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def inc(s):
    return {"n": s["n"] + 1, "log": [f"inc {s['n']}"]}


builder = StateGraph(S).add_node("inc", inc).add_edge(START, "inc").add_edge("inc", END)
cfg = {"configurable": {"thread_id": "t"}}
d = tempfile.mkdtemp()

with SqliteSaver.from_conn_string(os.path.join(d, "a.db")) as saver:
    saver.setup()
    g = builder.compile(checkpointer=saver)
    g.invoke({"n": 1, "log": []}, cfg)
    record("sqlite", g.invoke({"n": 5}, cfg))
    history(g, cfg)
with SqliteSaver.from_conn_string(os.path.join(d, "a.db")) as saver:
    record("sqlite reopened", builder.compile(checkpointer=saver).get_state(cfg).values)


async def asqlite():
    async with AsyncSqliteSaver.from_conn_string(os.path.join(d, "b.db")) as saver:
        await saver.setup()
        g = builder.compile(checkpointer=saver)
        await g.ainvoke({"n": 1, "log": []}, cfg)
        out = await g.ainvoke({"n": 7}, cfg)
        snap = await g.aget_state(cfg)
        hist = [s.metadata["step"] async for s in g.aget_state_history(cfg)]
        tup = await saver.aget_tuple(cfg)
        listed = [t.metadata["source"] async for t in saver.alist(cfg)]
        return out, snap.values, hist, tup.checkpoint["channel_values"]["n"], listed


record("async sqlite", asyncio.run(asqlite()))

admin = "postgresql://root@127.0.0.1:5432/test"
db = "sbs_" + uuid.uuid4().hex[:12]
with psycopg.connect(admin, autocommit=True) as c:
    c.execute(f"CREATE DATABASE {db}")
uri = f"postgresql://root@127.0.0.1:5432/{db}"
try:
    with PostgresSaver.from_conn_string(uri) as saver:
        saver.setup()
        g = builder.compile(checkpointer=saver)
        g.invoke({"n": 1, "log": []}, cfg)
        record("postgres", g.invoke({"n": 3}, cfg))
        history(g, cfg)

    async def apg():
        async with AsyncPostgresSaver.from_conn_string(uri) as saver:
            await saver.setup()
            g = builder.compile(checkpointer=saver)
            c2 = {"configurable": {"thread_id": "t2"}}
            await g.ainvoke({"n": 10, "log": []}, c2)
            return [c async for c in g.astream({"n": 20}, c2, stream_mode="updates")], (await g.aget_state(cfg)).values

    record("async postgres", asyncio.run(apg()))
finally:
    with psycopg.connect(admin, autocommit=True) as c:
        c.execute(f"DROP DATABASE {db} WITH (FORCE)")
