"""The persistence how-to on PostgreSQL, as its docs write it: PostgresSaver.from_conn_string,
setup(), a chat thread, list(); then AsyncPostgresSaver the same way."""

import asyncio
import os

import psycopg
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.graph import START, MessagesState, StateGraph
from langchain_core.messages import AIMessage

from observe import record

impl = os.environ.get("SBS_IMPL", "x")
DB = "sbs_pg_docs_" + impl
with psycopg.connect("postgresql://root@127.0.0.1:5432/test", autocommit=True) as c:
    c.execute(f"DROP DATABASE IF EXISTS {DB}")
    c.execute(f"CREATE DATABASE {DB}")
URI = f"postgresql://root@127.0.0.1:5432/{DB}"

g = StateGraph(MessagesState)
g.add_node("bot", lambda s: {"messages": [AIMessage(f"reply {len(s['messages'])}")]})
g.add_edge(START, "bot")

with PostgresSaver.from_conn_string(URI) as checkpointer:
    checkpointer.setup()
    app = g.compile(checkpointer=checkpointer)
    cfg = {"configurable": {"thread_id": "1"}}
    app.invoke({"messages": [("user", "hi")]}, cfg)
    out = app.invoke({"messages": [("user", "again")]}, cfg)
    record("sync", [m.content for m in out["messages"]])
    record("listed", [t.metadata["step"] for t in checkpointer.list(cfg)])
    record("tuple", checkpointer.get_tuple(cfg).metadata["step"])


async def main():
    async with AsyncPostgresSaver.from_conn_string(URI) as checkpointer:
        await checkpointer.setup()
        app = g.compile(checkpointer=checkpointer)
        cfg = {"configurable": {"thread_id": "2"}}
        out = await app.ainvoke({"messages": [("user", "hello")]}, cfg)
        record("async", [m.content for m in out["messages"]])
        record("async history", [s.metadata["step"] async for s in app.aget_state_history(cfg)])
        await checkpointer.adelete_thread("2")
        record("deleted", (await app.aget_state(cfg)).values)


asyncio.run(main())
with psycopg.connect("postgresql://root@127.0.0.1:5432/test", autocommit=True) as c:
    c.execute(f"DROP DATABASE IF EXISTS {DB}")
