"""Issue 29: the names of @task calls: a functools.partial is named after the function it wraps
(or by name=); a callable object after its class."""

import functools

from langgraph.func import entrypoint, task

from observe import record


def baz(update: str, value: str) -> str:
    return f"{update}:{value}"


class Qux:
    def __call__(self, value: str) -> str:
        return f"qux:{value}"


plain = task(functools.partial(baz, "p"))
named = task(functools.partial(baz, "n"), name="named_baz")
obj = task(Qux())


@entrypoint()
def flow(value: str) -> list:
    return [plain(value).result(), named(value).result(), obj(value).result()]


record("updates", list(flow.stream("v", stream_mode="updates")))
