"""A compiled graph inside LCEL, as LangChain users compose it: graph | RunnableLambda,
with_config(run_name=, tags=), batch with configs, astream_events names and tags."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langchain_core.runnables import RunnableLambda
from langgraph.graph import START, StateGraph

from observe import record


class S(TypedDict):
    n: Annotated[int, operator.add]
    log: Annotated[list, operator.add]


g = StateGraph(S)
g.add_node("inc", lambda s: {"n": 1, "log": ["inc"]})
g.add_node("dbl", lambda s: {"n": s["n"], "log": ["dbl"]})
g.add_edge(START, "inc")
g.add_edge("inc", "dbl")
app = g.compile()
chain = RunnableLambda(lambda x: {"n": x, "log": []}) | app | RunnableLambda(lambda out: out["n"])
record("chain", chain.invoke(3))
record("chain batch", chain.batch([1, 2, 5]))
named = app.with_config(run_name="counter", tags=["mine"])
record("named invoke", named.invoke({"n": 1, "log": []}))


async def events():
    out = []
    async for ev in named.astream_events({"n": 2, "log": []}, version="v2", include_tags=["mine"]):
        out.append((ev["event"], ev["name"], sorted(t for t in ev["tags"] if not t.startswith("seq:"))))
    return out


record("named events", asyncio.run(events()))


record("stream in chain", list((RunnableLambda(lambda x: {"n": x, "log": []}) | app).stream(1)))
