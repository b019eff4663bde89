"""A Runtime a caller seeds in the config (``configurable["__pregel_runtime"]``, as LangGraph's server does
for graph factories): the run takes its store, and its context when the call gives none (LangGraph 1.2.22's
test_foreign_object_in_runtime_slot_is_coerced pins it; the slot's name became public on the engine this stop)."""

from __future__ import annotations

from typing import Any, TypedDict

from engine._internal._constants import CONFIG_KEY_RUNTIME
from engine.graph import START, StateGraph
from engine.runtime import Runtime
from engine.store.memory import InMemoryStore


class S(TypedDict, total=False):
    text: str


class ServerLike:
    def __init__(self, context: Any, store: Any) -> None:
        self.context, self.store = context, store


def test_a_seeded_runtime_gives_its_store_and_its_context_unless_the_call_gives_one() -> None:
    seen: list[tuple[Any, Any]] = []

    def echo(state: S, runtime: Runtime) -> S:
        seen.append((runtime.context, runtime.store))
        return {"text": "ok"}

    graph = StateGraph(S).add_node("echo", echo).add_edge(START, "echo").compile()
    store = InMemoryStore()
    slot = {"configurable": {CONFIG_KEY_RUNTIME: ServerLike({"source": "slot"}, store)}}
    assert graph.invoke({"text": "hi"}, slot) == {"text": "ok"}
    assert graph.invoke({"text": "hi"}, slot, context={"source": "call"}) == {"text": "ok"}
    assert seen == [({"source": "slot"}, store), ({"source": "call"}, store)]
