"""Graph lifecycle callbacks (engine.callbacks, LangGraph's langgraph.callbacks): interrupts and resumes
told to GraphCallbackHandlers only (tests/sidebyside/graph_callbacks.py compares it with LangGraph)."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

pytest.importorskip("langchain_core")

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402

from engine.callbacks import GraphCallbackHandler, GraphInterruptEvent, GraphResumeEvent  # noqa: E402
from engine.graph import START, StateGraph  # noqa: E402
from engine.types import Command, interrupt  # noqa: E402


class Told(GraphCallbackHandler):
    def __init__(self) -> None:
        self.events: list[Any] = []

    def on_interrupt(self, event: GraphInterruptEvent) -> None:
        self.events.append(("interrupt", event.status, [i.value for i in event.interrupts], event.checkpoint_id))

    def on_resume(self, event: GraphResumeEvent) -> None:
        self.events.append(("resume", event.status, event.checkpoint_ns, event.checkpoint_id))


class Plain(BaseCallbackHandler):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self.seen.append(name)


class S(TypedDict):
    a: str


def _graph(checkpointer: Any, **kw: Any) -> Any:
    def ask(s: S) -> dict[str, Any]:
        return {"a": interrupt("q?")}

    def b(s: S) -> dict[str, Any]:
        return {"a": s["a"] + "!"}

    g = StateGraph(S)
    g.add_node(ask)
    g.add_node(b)
    g.add_edge(START, "ask")
    g.add_edge("ask", "b")
    return g.compile(checkpointer=checkpointer, **kw)


def test_interrupts_and_resumes_are_told_with_the_version_and_the_status(checkpointer: Any) -> None:
    told, plain = Told(), Plain()
    app = _graph(checkpointer, interrupt_after=["b"])
    config = {"configurable": {"thread_id": "t"}, "callbacks": [plain, told]}
    app.invoke({"a": ""}, config)
    stopped = app.get_state(config).config["configurable"]["checkpoint_id"]
    app.invoke(Command(resume="x"), config)
    app.invoke(None, config)
    assert [e[:3] for e in told.events] == [
        ("interrupt", "pending", ["q?"]), ("resume", "pending", ()), ("interrupt", "interrupt_after", []), ("resume", "pending", ()),
    ]  # fmt: skip
    assert told.events[0][3] == told.events[1][3] == stopped  # stopped at that version, resumed from it
    assert plain.seen == []
    app.invoke({"a": "new"}, config)  # new input does not resume
    assert told.events[-1][:2] == ("interrupt", "pending")


def test_a_raising_handler_is_logged_unless_it_asks_to_raise(checkpointer: Any) -> None:
    class Raises(GraphCallbackHandler):
        def __init__(self, raise_error: bool) -> None:
            self.raise_error = raise_error

        def on_interrupt(self, event: GraphInterruptEvent) -> None:
            raise ValueError("boom")

    told = Told()
    out = _graph(checkpointer).invoke({"a": ""}, {"configurable": {"thread_id": "r"}, "callbacks": [Raises(False), told]})
    assert "__interrupt__" in out and len(told.events) == 1
    with pytest.raises(ValueError, match="boom"):
        _graph(checkpointer).invoke({"a": ""}, {"configurable": {"thread_id": "e"}, "callbacks": [Raises(True)]})


def test_async_handlers_and_a_subgraphs_resume(checkpointer: Any) -> None:
    class AsyncTold(Told):
        async def on_resume(self, event: GraphResumeEvent) -> None:  # type: ignore[override]
            Told.on_resume(self, event)

    def ask(s: S) -> dict[str, Any]:
        return {"a": interrupt("q?")}

    sub = StateGraph(S)
    sub.add_node(ask)
    sub.add_edge(START, "ask")
    parent = StateGraph(S)
    parent.add_node("sub", sub.compile())
    parent.add_edge(START, "sub")
    app = parent.compile(checkpointer=checkpointer)
    told = AsyncTold()
    config = {"configurable": {"thread_id": "s"}, "callbacks": [told]}

    async def turns() -> None:
        await app.ainvoke({"a": ""}, config)
        await app.ainvoke(Command(resume="z"), config)

    asyncio.run(turns())
    assert [(e[0], [n.split(":")[0] for n in e[2]] if e[0] == "resume" else e[2]) for e in told.events] == [
        ("interrupt", ["q?"]), ("resume", []), ("resume", ["sub"]),
    ]  # fmt: skip
