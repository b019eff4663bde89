"""ToolNode(wrap_tool_call=, awrap_tool_call=) and ToolCallRequest (issue 29, prebuilt).

Each expectation was observed on langgraph-prebuilt 1.1.3 (tests/sidebyside/tool_wrappers.py
runs the same program there and here): a wrapper sees each call as a request,
may change it, run it any number of times or answer it itself, and its own
failures are handled as a tool's.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool

from engine import START, StateGraph, interrupt
from engine.graph import MessagesState
from engine.prebuilt import InjectedState, ToolNode, ToolRuntime
from engine.prebuilt.tool_node import ToolCallRequest
from engine.testing import thread
from engine.types import Command


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def flaky(x: int, runtime: ToolRuntime) -> str:
    """Fails on its first try within a call."""
    tries = runtime.state.setdefault("tries", [])
    tries.append(x)
    if len(tries) < 2:
        raise ConnectionError("try again")
    return f"ok after {len(tries)}"


@tool
def sees(x: int, state: Annotated[dict, InjectedState]) -> str:
    """Reports the state it was given."""
    return f"{x}: {state.get('note')}"


def calls(*cs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"messages": [AIMessage("", tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(cs)])]}


def contents(out: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(m.content, m.name, m.status) for m in out["messages"]]


def test_a_passthrough_wrapper_sees_each_call_as_a_request() -> None:
    seen: list[tuple[str, Any, bool]] = []

    def wrapper(request: ToolCallRequest, execute: Any) -> Any:
        seen.append((request.tool_call["name"], request.tool, isinstance(request.runtime, ToolRuntime)))
        return execute(request)

    out = ToolNode([add], wrap_tool_call=wrapper).invoke(calls(("add", {"a": 1, "b": 2}), ("nope", {})))
    assert seen == [("add", add, True), ("nope", None, True)]  # an unknown name reaches the wrapper, tool None
    assert contents(out) == [
        ("3", "add", "success"),
        ("Error: nope is not a valid tool, try one of [add].", "nope", "error"),
    ]


def test_override_changes_the_call_and_leaves_the_request_as_it_was() -> None:
    originals: list[dict[str, Any]] = []

    def double(request: ToolCallRequest, execute: Any) -> Any:
        args = request.tool_call["args"]
        changed = request.override(tool_call={**request.tool_call, "args": {"a": args["a"] * 2, "b": args["b"]}})
        originals.append(request.tool_call["args"])
        return execute(changed)

    out = ToolNode([add], wrap_tool_call=double).invoke(calls(("add", {"a": 5, "b": 1})))
    assert contents(out) == [("11", "add", "success")]
    assert originals == [{"a": 5, "b": 1}]


def test_a_state_override_reaches_injected_state_and_the_runtime() -> None:
    def note(request: ToolCallRequest, execute: Any) -> Any:
        new = request.override(state={**request.state, "note": "from the wrapper"})
        assert new.runtime.state is new.state and request.runtime.state is not new.state
        return execute(new)

    out = ToolNode([sees], wrap_tool_call=note).invoke(calls(("sees", {"x": 1})))
    assert contents(out) == [("1: from the wrapper", "sees", "success")]


def test_setting_a_request_attribute_warns() -> None:
    request = ToolCallRequest(tool_call={"name": "add", "args": {}, "id": "1"}, tool=add, state={}, runtime=None)  # type: ignore[arg-type]
    with pytest.warns(DeprecationWarning, match="Setting attribute 'state' on ToolCallRequest is deprecated"):
        request.state = {"x": 1}
    assert request.state == {"x": 1}


def test_a_wrapper_may_retry_and_may_answer_without_running_the_tool() -> None:
    def retry(request: ToolCallRequest, execute: Any) -> Any:
        if request.tool_call["name"] == "add":
            return ToolMessage("cached", tool_call_id=request.tool_call["id"], name="add")
        try:
            return execute(request)
        except ConnectionError:
            return execute(request)

    node = ToolNode([add, flaky], wrap_tool_call=retry, handle_tool_errors=False)
    out = node.invoke(calls(("add", {"a": 1, "b": 2}), ("flaky", {"x": 7})))
    assert contents(out) == [("cached", "add", "success"), ("ok after 2", "flaky", "success")]


def test_a_wrapper_failure_is_handled_as_a_tool_failure() -> None:
    def broken(request: ToolCallRequest, execute: Any) -> Any:
        raise ValueError("wrapper broke")

    out = ToolNode([add], wrap_tool_call=broken, handle_tool_errors=True).invoke(calls(("add", {"a": 1, "b": 2})))
    assert contents(out) == [("Error: ValueError('wrapper broke')\n Please fix your mistakes.", "add", "error")]
    with pytest.raises(ValueError, match="wrapper broke"):  # the default handles bad arguments only
        ToolNode([add], wrap_tool_call=broken).invoke(calls(("add", {"a": 1, "b": 2})))


def test_an_async_run_uses_the_async_wrapper_else_the_sync_one() -> None:
    order: list[str] = []

    async def awrap(request: ToolCallRequest, execute: Any) -> Any:
        order.append("async")
        return await execute(request)

    def wrap(request: ToolCallRequest, execute: Any) -> Any:
        order.append("sync")
        return execute(request)

    both = ToolNode([add], wrap_tool_call=wrap, awrap_tool_call=awrap)
    only_sync = ToolNode([add], wrap_tool_call=wrap)
    assert contents(asyncio.run(both.ainvoke(calls(("add", {"a": 2, "b": 2}))))) == [("4", "add", "success")]
    assert contents(asyncio.run(only_sync.ainvoke(calls(("add", {"a": 2, "b": 3}))))) == [("5", "add", "success")]
    assert order == ["async", "sync"]


@tool
def asks(q: str) -> str:
    """Asks the user."""
    return f"user said {interrupt(q)}"


def test_an_interrupt_inside_a_wrapped_tool_stops_the_run_whatever_the_error_handling(checkpointer: Any) -> None:
    def wrapper(request: ToolCallRequest, execute: Any) -> Any:
        return execute(request)

    g = StateGraph(MessagesState)
    g.add_node("agent", lambda s: calls(("asks", {"q": "colour?"})))
    g.add_node("tools", ToolNode([asks], wrap_tool_call=wrapper, handle_tool_errors=True))
    g.add_edge(START, "agent").add_edge("agent", "tools")
    app = g.compile(checkpointer=checkpointer)
    out = app.invoke({"messages": [("user", "hi")]}, thread("w"))
    assert [i.value for i in out["__interrupt__"]] == ["colour?"]
    out = app.invoke(Command(resume="blue"), thread("w"))
    assert out["messages"][-1].content == "user said blue"
