"""The callback run of a ``@task`` call records its arguments by parameter name (issue 29).

Twin of tests/sidebyside/task_run_inputs.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler

from engine.checkpoint import InMemorySaver
from engine.func import entrypoint, task
from engine._langchain.calls import call_inputs


class Runs(BaseCallbackHandler):
    def __init__(self) -> None:
        self.seen: list[tuple[Any, Any]] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.seen.append((kwargs.get("name"), inputs))


@task
def two(a: int, b: str = "b") -> str:
    return f"{a}{b}"


@task()
async def amapper(input: int) -> str:
    await asyncio.sleep(0)
    return str(input) * 2


def test_task_runs_record_arguments_by_name_with_defaults() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def graph(x: int) -> list:
        return [two(x, b="z").result(), two(x + 1).result()]

    runs = Runs()
    assert graph.invoke(1, {"configurable": {"thread_id": "s"}, "callbacks": [runs]}) == ["1z", "2b"]
    assert [i for n, i in runs.seen if n == "two"] == [{"a": 1, "b": "z"}, {"a": 2, "b": "b"}]


def test_async_task_runs_too() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    async def graph(xs: list) -> list:
        return list(await asyncio.gather(*[amapper(i) for i in xs]))

    runs = Runs()
    assert asyncio.run(graph.ainvoke([0, 1], {"configurable": {"thread_id": "a"}, "callbacks": [runs]})) == ["00", "11"]
    assert sorted((i for n, i in runs.seen if n == "amapper"), key=str) == [{"input": 0}, {"input": 1}]


def test_keyword_catch_alls_are_flattened_and_misfits_kept_as_given() -> None:
    def f(a: int, *rest: int, k: int = 1, **more: Any) -> None: ...

    assert call_inputs(f, (1, 2, 3), {"x": 4}) == {"a": 1, "rest": (2, 3), "k": 1, "x": 4}
    assert call_inputs(f, (), {"nope": 1, "a": 2, "k": 3}) == {"a": 2, "rest": (), "k": 3, "nope": 1}
    assert call_inputs(lambda a: a, (1, 2), {}) == ((1, 2), {})
