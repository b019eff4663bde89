"""config["max_concurrency"]: how many of a step's tasks, and of an entrypoint's calls, run at once.

An entrypoint's calls: LangGraph counts the calling task's own slot too (N-1 calls at once; at 1
they never run), the engine runs them within it (docs/porting.md): both stay within the limit.
"""
import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import Send

from observe import record

running = {"now": 0, "most": 0}


async def busy() -> None:
    running["now"] += 1
    running["most"] = max(running["most"], running["now"])
    await asyncio.sleep(0.01)
    running["now"] -= 1


class State(TypedDict):
    items: Annotated[list, operator.add]


async def fan(state: State) -> dict:
    return {}


async def work(n: int) -> dict:
    await busy()
    return {"items": [n]}


builder = StateGraph(State)
builder.add_node("fan", fan)
builder.add_node("work", work)
builder.add_edge(START, "fan")
builder.add_conditional_edges("fan", lambda s: [Send("work", i) for i in range(12)])
graph = builder.compile(checkpointer=InMemorySaver())


@task
async def job(n: int) -> int:
    await busy()
    return n * 10


@entrypoint()
async def jobs(n: int) -> list:
    return list(await asyncio.gather(*(job(i) for i in range(n))))


async def main() -> None:
    for limit in (None, 3, 1):
        running["most"] = 0
        config = {"configurable": {"thread_id": f"t{limit}"}}
        if limit:
            config["max_concurrency"] = limit
        out = await graph.ainvoke({"items": []}, config)
        record(f"graph max_concurrency={limit}", {"items": sorted(out["items"]), "at once": running["most"]})
    for limit in (None, 2):
        running["most"] = 0
        out = await jobs.ainvoke(8, {"max_concurrency": limit} if limit else None)
        most = running["most"]
        record(f"entrypoint max_concurrency={limit}", {"out": out, "bounded": most <= limit if limit else most == 8})


asyncio.run(main())
