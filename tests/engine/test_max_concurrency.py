"""config["max_concurrency"] bounds how many of a step's tasks and of a task's calls run at once (LangGraph's).

Twin of tests/sidebyside/max_concurrency.py. The tasks yield to the event loop while they count,
so every task the limit lets start is running at once; the count does not depend on timing.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from engine.func import entrypoint, task
from engine.graph import START, StateGraph
from engine.types import Send


class Meter:
    def __init__(self) -> None:
        self.now = self.most = 0

    async def busy(self) -> None:
        self.now += 1
        self.most = max(self.most, self.now)
        for _ in range(5):
            await asyncio.sleep(0)
        self.now -= 1


class State(TypedDict):
    items: Annotated[list, operator.add]


def fan_out(meter: Meter, checkpointer: object = None):
    async def work(n: int) -> dict:
        await meter.busy()
        return {"items": [n]}

    builder = StateGraph(State)
    builder.add_node("fan", lambda s: {})
    builder.add_node("work", work)
    builder.add_edge(START, "fan")
    builder.add_conditional_edges("fan", lambda s: [Send("work", i) for i in range(12)])
    return builder.compile(checkpointer=checkpointer)


@pytest.mark.parametrize("limit, at_once", [(None, 12), (3, 3), (1, 1)])
def test_a_steps_tasks_run_at_most_max_concurrency_at_once(checkpointer, limit, at_once) -> None:
    meter = Meter()
    config: dict = {"configurable": {"thread_id": f"t{limit}"}}
    if limit:
        config["max_concurrency"] = limit
    out = asyncio.run(fan_out(meter, checkpointer).ainvoke({"items": []}, config))
    assert sorted(out["items"]) == list(range(12))
    assert (meter.most, meter.now) == (at_once, 0)


def test_the_limit_holds_on_the_sync_face_too() -> None:
    meter = Meter()
    out = fan_out(meter).invoke({"items": []}, {"max_concurrency": 4})
    assert sorted(out["items"]) == list(range(12)) and meter.most == 4


@pytest.mark.parametrize("limit, at_once", [(None, 8), (2, 2), (1, 1)])
def test_an_entrypoints_calls_run_at_most_max_concurrency_at_once(limit, at_once) -> None:
    meter = Meter()

    @task
    async def job(n: int) -> int:
        await meter.busy()
        return n * 10

    @entrypoint()
    async def jobs(n: int) -> list:
        return list(await asyncio.gather(*(job(i) for i in range(n))))

    out = asyncio.run(jobs.ainvoke(8, {"max_concurrency": limit} if limit else None))
    assert out == [i * 10 for i in range(8)]
    assert meter.most == at_once


def test_a_tasks_calls_run_within_its_slot_so_a_limit_of_one_does_not_wait_for_ever() -> None:
    meter = Meter()

    @task
    async def inner(n: int) -> int:
        await meter.busy()
        return n + 1

    async def work(n: int) -> dict:
        return {"items": [await inner(n)]}

    builder = StateGraph(State)
    builder.add_node("work", work)
    builder.add_conditional_edges(START, lambda s: [Send("work", i) for i in range(3)])
    out = asyncio.run(builder.compile().ainvoke({"items": []}, {"max_concurrency": 1}))
    assert sorted(out["items"]) == [1, 2, 3] and meter.most == 1
