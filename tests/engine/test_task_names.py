"""The names of @task calls (issue 29). Twin of tests/sidebyside/task_names.py."""

from __future__ import annotations

import functools

from engine.func import entrypoint, task


def baz(update: str, value: str) -> str:
    return f"{update}:{value}"


class Qux:
    def __call__(self, value: str) -> str:
        return f"qux:{value}"


def test_a_partial_is_named_after_its_function_an_object_after_its_class() -> None:
    plain = task(functools.partial(baz, "p"))
    named = task(functools.partial(baz, "n"), name="named_baz")
    obj = task(Qux())

    @entrypoint()
    def flow(value: str) -> list:
        return [plain(value).result(), named(value).result(), obj(value).result()]

    assert list(flow.stream("v", stream_mode="updates")) == [
        {"baz": "p:v"}, {"named_baz": "n:v"}, {"Qux": "qux:v"}, {"flow": ["p:v", "n:v", "qux:v"]},
    ]
