"""A @task call's error goes to its caller (issue 29). Twin of tests/sidebyside/task_error_caught.py."""

from __future__ import annotations

import asyncio

import pytest

from engine.checkpoint import InMemorySaver
from engine.func import entrypoint, task


@task
def double(n: int) -> int:
    return n * 2


@task
def boom(n: int) -> int:
    raise ValueError(f"boom {n}")


def test_a_caught_call_error_lets_the_run_finish() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def caught(n: int) -> str:
        double(n).result()
        try:
            boom(n).result()
        except ValueError as e:
            return f"caught {e}"
        return "not raised"

    assert caught.invoke(1, {"configurable": {"thread_id": "1"}}) == "caught boom 1"
    assert list(caught.stream(2, {"configurable": {"thread_id": "1"}})) == [{"double": 4}, {"caught": "caught boom 2"}]


def test_an_error_nobody_waits_for_does_not_fail_the_run_an_uncaught_one_does() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def ignored(n: int) -> int:
        boom(n)
        return double(n).result()

    @entrypoint(checkpointer=InMemorySaver())
    def uncaught(n: int) -> int:
        return boom(n).result()

    assert ignored.invoke(3, {"configurable": {"thread_id": "2"}}) == 6
    with pytest.raises(ValueError, match="boom 4"):
        uncaught.invoke(4, {"configurable": {"thread_id": "3"}})


def test_async_too() -> None:
    @task
    async def aboom(n: int) -> int:
        raise ValueError(f"aboom {n}")

    @entrypoint(checkpointer=InMemorySaver())
    async def acaught(n: int) -> str:
        try:
            await aboom(n)
        except ValueError as e:
            return f"caught {e}"
        return "not raised"

    assert asyncio.run(acaught.ainvoke(5, {"configurable": {"thread_id": "4"}})) == "caught aboom 5"
